"""Provider abstraction: the LLMProvider protocol and its implementations."""

from .base import (  # noqa: F401
    LLMProvider,
    ModelRequest,
    ProviderCapabilities,
    StreamDone,
    StreamEvent,
    StreamRetry,
    StreamText,
    StreamThinking,
    StreamToolCall,
    ToolSpec,
    capabilities_of,
    drain,
)
