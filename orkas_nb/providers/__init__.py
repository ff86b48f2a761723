"""Provider abstraction: the LLMProvider protocol and its implementations.

The protocol types load eagerly (they are small); the HTTP clients, the registry and the
cassettes load on first use, so ``import orkas_nb`` stays light.
"""

from __future__ import annotations

from typing import Any

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

_LAZY = {
    "resolve_model": "registry",
    "ProvidersConfig": "registry",
    "EndpointConfig": "registry",
    "OpenAIChatProvider": "openai_chat",
    "AnthropicProvider": "anthropic_messages",
    "FailoverProvider": "retry",
    "Candidate": "retry",
    "RetryPolicy": "retry",
    "RecordingProvider": "cassette",
    "ReplayProvider": "cassette",
    "Catalog": "catalog",
    "ModelInfo": "catalog",
    "ModelOverride": "catalog",
    "cost_of": "catalog",
    "StaticKey": "auth",
    "RefreshingToken": "auth",
    "Token": "auth",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
