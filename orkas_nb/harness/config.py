"""The knobs of a turn, shared by the runner, the request builder and the agent that sets them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RunConfig"]


@dataclass
class RunConfig:
    """Knobs of a turn. ``max_tokens=None``: no cap on the main turn (the model's maximum)."""

    max_steps: int = 500
    max_tokens: int | None = None
    temperature: float | None = None
    loop_guard_remind: int = 3
    loop_guard_stop: int = 5
    session_id: str | None = None
    # Context policy (compaction.py): on by default; the window comes from the provider's
    # catalogue unless ``context_window`` overrides it.
    compaction: bool = True
    context_window: int | None = None
    compact_threshold: float = 0.8
