"""The state of one turn and its plumbing: the context-policy hook, what a step resolves to,
the emitter and the stopper.

Kept apart from ``runner.py`` so side concerns (compaction) can name ``TurnState`` without
importing the runner, and the runner reads as the turn itself. A turn's state reaches the
provider, session and tools only through its :class:`~.requests.RequestBuilder`.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from contextlib import AbstractAsyncContextManager, aclosing, nullcontext
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Literal, Protocol

from ..core.errors import ProviderError
from ..core.events import RunEvent, RunStats
from ..core.messages import AssistantMessage, ToolResultMessage, Usage
from .cancellation import AbortSignal
from .requests import RequestBuilder
from .tool_protocol import Taint

__all__ = ["Answer", "ContextPolicy", "Emitter", "Final", "RunAgain", "StepResult", "Stopped",
           "Stopper", "TurnState", "closing"]


def closing(events: AsyncIterator[Any]) -> AbstractAsyncContextManager[Any]:
    """Closes an event stream the turn leaves early (Stop lands between two of its events), so
    its own cleanup (an HTTP response, a compaction request) runs now, not when collected."""
    return aclosing(events) if hasattr(events, "aclose") else nullcontext(events)  # type: ignore[arg-type]


class ContextPolicy(Protocol):
    """Keeps the history inside the model's window (compaction lives in ``compaction.py``)."""

    async def after_tool_batch(self, turn: "TurnState") -> AsyncIterator[RunEvent]: ...

    async def on_overflow(self, turn: "TurnState", error: ProviderError) -> AsyncIterator[RunEvent]: ...


@dataclass
class TurnState:
    """What one turn knows; handed to side concerns (context policy) so they need no runner."""

    requests: RequestBuilder
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
    # Set when the consumer stopped reading: the turn ends at its next event, like a Stop.
    abandoned: bool = False
    turn_id: str = ""  # the id of the user message that started the turn
    taint: Taint | None = None  # the runner's record of untrusted content read (tools.Taint)
    end_requested: bool = False  # a tool's output asked the turn to end (ToolOutput.end_turn)

    def raise_if_stopped(self) -> None:
        """Called where the turn resumes after handing events over: Stop pressed meanwhile
        lands here, before anything else is started (no tool, no request)."""
        if self.abort.aborted or self.abandoned:
            raise asyncio.CancelledError


# -- what a step resolves to ------------------------------------------------------------------
# A step is an async generator (it yields ``None`` each time events are ready) whose last item
# is its value: an async generator cannot return one.


@dataclass(frozen=True)
class Answer:
    """The model's answer, saved, with the positions of calls whose ids had to be replaced."""

    message: AssistantMessage
    id_problems: dict[int, str]


@dataclass(frozen=True)
class RunAgain:
    """Ask the model again: tool results or steer messages were added."""


@dataclass(frozen=True)
class Final:
    """The turn ends here, for this reason."""

    stop_reason: Literal["end_turn", "max_steps", "loop_guard"]


@dataclass(frozen=True)
class Stopped:
    """Stop was pressed before the step could start anything."""


StepResult = RunAgain | Final | Stopped


class Emitter:
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


class Stopper:
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
