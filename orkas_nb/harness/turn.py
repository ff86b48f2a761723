"""The state of one turn and its plumbing: configuration, the context-policy hook, the emitter.

Kept apart from ``runner.py`` so side concerns (compaction) can name ``TurnState`` without
importing the runner, and the runner reads as the turn itself.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Protocol

from ..core.errors import ProviderError
from ..core.events import RunEvent, RunStats
from ..core.messages import AssistantMessage, ToolResultMessage, Usage
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
    # What the turn's steps hand on (they are event streams, which cannot return values).
    answer: AssistantMessage | None = None
    id_problems: dict[int, str] = field(default_factory=dict)
    loop_stopped: bool = False
    stop_reason: str = "end_turn"
    # Set when the consumer stopped reading: the turn ends at its next event, like a Stop.
    abandoned: bool = False
    turn_id: str = ""  # the id of the user message that started the turn

    def raise_if_stopped(self) -> None:
        """Called where the turn resumes after handing events over: Stop pressed meanwhile
        lands here, before anything else is started (no tool, no request)."""
        if self.abort.aborted or self.abandoned:
            raise asyncio.CancelledError


class _Emitter:
    """Numbers events and buffers them; the runner hands them over each time the turn yields."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.seq = 0
        self.buffer: deque[RunEvent] = deque()

    def __call__(self, cls: type, **fields: Any) -> None:
        self.seq += 1
        self.buffer.append(cls(agent=self.agent, seq=self.seq, **fields))

    def forward(self, event: RunEvent) -> None:
        self.seq += 1
        self.buffer.append(event.model_copy(update={"agent": self.agent, "seq": self.seq}))


class _Stopper:
    """Lands a Stop inside the turn at once.

    The turn runs in the consumer's own task (no task of its own, no queue: a streamed token
    reaches the consumer without a task switch). Stop therefore cancels that task, but only
    while it waits inside the turn (``inside``); the turn catches the cancellation and takes
    it back (``take_back``). Pressed while the consumer is busy elsewhere, Stop lands when the
    consumer next asks for an event (``TurnState.raise_if_stopped``).
    """

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task
        self.inside = False
        self.cancelled = False

    def __call__(self) -> None:  # the abort signal's callback, on the loop
        if self.inside and self.task is not None and not self.cancelled:
            self.cancelled = True
            self.task.cancel()

    def take_back(self) -> bool:
        """After the turn caught a CancelledError: False when the task has another cancellation
        pending besides ours (then it is not ours to swallow)."""
        if not self.cancelled:
            return True
        self.cancelled = False
        uncancel = getattr(self.task, "uncancel", None)  # Python 3.11+
        return uncancel is None or uncancel() == 0
