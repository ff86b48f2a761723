"""The engine: runner, tools, sessions, repair. Knows nothing of Jupyter."""

from .cancellation import AbortSignal  # noqa: F401
from .repair import pairing_problems, repair  # noqa: F401
from .runner import RunConfig, Runner, TurnState  # noqa: F401
from .session import InMemorySession, JsonlSession, Session, session_path  # noqa: F401
from .tools import FunctionTool, Tool, ToolContext, ToolOutput, ToolRegistry, tool  # noqa: F401
