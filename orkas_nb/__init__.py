"""orkas_nb: a Jupyter-native agent runtime.

The public surface is small and flat; everything else lives in subpackages and may move.
Heavy parts load lazily, so ``import orkas_nb`` (and ``%load_ext orkas_nb``) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

_LAZY = {
    "Agent": ("orkas_nb.agent", "Agent"),
    "tool": ("orkas_nb.harness.tool_protocol", "tool"),
    "Tool": ("orkas_nb.harness.tool_protocol", "Tool"),
    "ToolContext": ("orkas_nb.harness.tool_protocol", "ToolContext"),
    "ToolOutput": ("orkas_nb.harness.tool_protocol", "ToolOutput"),
    "AbortSignal": ("orkas_nb.harness.cancellation", "AbortSignal"),
    # Options the README tells users to pass: Agent(config=RunConfig(...)),
    # Agent(retry=RetryPolicy(...)), and a cassette recorder / player around any provider.
    "RunConfig": ("orkas_nb.harness.config", "RunConfig"),
    "RetryPolicy": ("orkas_nb.providers.retry", "RetryPolicy"),
    "RecordingProvider": ("orkas_nb.providers.cassette", "RecordingProvider"),
    "ReplayProvider": ("orkas_nb.providers.cassette", "ReplayProvider"),
    "ContextOverflowError": ("orkas_nb.core.errors", "ContextOverflowError"),
    "ScriptedModel": ("orkas_nb.testing", "ScriptedModel"),
    "RunResult": ("orkas_nb.core.events", "RunResult"),
    "RunEvent": ("orkas_nb.core.events", "RunEvent"),
    "TextDelta": ("orkas_nb.core.events", "TextDelta"),
    "ThinkingDelta": ("orkas_nb.core.events", "ThinkingDelta"),
    "ToolStart": ("orkas_nb.core.events", "ToolStart"),
    "ToolEnd": ("orkas_nb.core.events", "ToolEnd"),
    "Compaction": ("orkas_nb.core.events", "Compaction"),
    "Retry": ("orkas_nb.core.events", "Retry"),
    "Steer": ("orkas_nb.core.events", "Steer"),
    "Warning": ("orkas_nb.core.events", "Warning"),
    "UsageUpdate": ("orkas_nb.core.events", "UsageUpdate"),
    "Done": ("orkas_nb.core.events", "Done"),
}

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:  # pragma: no cover
    from .agent import Agent  # noqa: F401
    from .core.errors import ContextOverflowError  # noqa: F401
    from .core.events import (  # noqa: F401
        Compaction,
        Done,
        Retry,
        RunEvent,
        RunResult,
        Steer,
        TextDelta,
        ThinkingDelta,
        ToolEnd,
        ToolStart,
        UsageUpdate,
        Warning,
    )
    from .harness.cancellation import AbortSignal  # noqa: F401
    from .harness.config import RunConfig  # noqa: F401
    from .harness.tool_protocol import Tool, ToolContext, ToolOutput, tool  # noqa: F401
    from .providers.cassette import RecordingProvider, ReplayProvider  # noqa: F401
    from .providers.retry import RetryPolicy  # noqa: F401
    from .testing import ScriptedModel  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'orkas_nb' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext orkas_nb``: registers the magics (the notebook adapter loads lazily)."""
    from .notebook import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .notebook import unload_ipython_extension as _unload

    _unload(ipython)
