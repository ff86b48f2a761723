"""The state of one turn and its plumbing: configuration, the context-policy hook, the emitter.

Kept apart from ``runner.py`` so side concerns (compaction) can name ``TurnState`` without
importing the runner, and the runner reads as the turn itself.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Protocol

from ..core.errors import ProviderError
from ..core.events import RunEvent, RunStats
from ..core.messages import ToolResultMessage, Usage
from .cancellation import AbortSignal

if TYPE_CHECKING:
    from .runner import Runner


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


class ContextPolicy(Protocol):
    """Keeps the history inside the model's window (compaction lives in ``compaction.py``)."""

    async def after_tool_batch(self, turn: "TurnState") -> AsyncIterator[RunEvent]: ...

    async def on_overflow(self, turn: "TurnState", error: ProviderError) -> AsyncIterator[RunEvent]: ...


@dataclass
class TurnState:
    """What one turn knows; handed to side concerns (context policy) so they need no runner."""

    runner: "Runner"
    abort: AbortSignal
    stats: RunStats = field(default_factory=RunStats)
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    started: float = field(default_factory=time.perf_counter)
    first_token_s: float | None = None
    output_files: list[str] = field(default_factory=list)
    partial_text: str = ""
    last_input_tokens: int | None = None
    last_input_anchor: str | None = None  # id of the last message the real count covered
    unsaved: list[ToolResultMessage] = field(default_factory=list)


class _Emitter:
    """Numbers events and hands them to the consumer through a queue."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.seq = 0
        self.queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()

    def __call__(self, cls: type, **fields: Any) -> None:
        self.seq += 1
        self.queue.put_nowait(cls(agent=self.agent, seq=self.seq, **fields))

    def forward(self, event: RunEvent) -> None:
        self.seq += 1
        self.queue.put_nowait(event.model_copy(update={"agent": self.agent, "seq": self.seq}))
