"""The engine: runner, tools, sessions, repair. Knows nothing of Jupyter."""

from .cancellation import AbortSignal  # noqa: F401
from .config import RunConfig  # noqa: F401
from .repair import pairing_problems, repair  # noqa: F401
from .requests import RequestBuilder  # noqa: F401
from .runner import Runner  # noqa: F401
from .session import InMemorySession, JsonlSession, Session, session_path  # noqa: F401
from .tool_protocol import FunctionTool, Tool, ToolContext, ToolOutput, ToolRegistry, tool  # noqa: F401
from .turn import TurnState  # noqa: F401
