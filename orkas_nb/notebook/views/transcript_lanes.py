"""A team run's lanes in the saved transcript: who did what, with status, tokens and cost.

A member's run is in its own session, not the cell's, so the transcript keeps what it showed:
its text and tool calls as transcript messages, read from the events the lane streamed (a floor
lane's without its ``<handback />``: :class:`~.lanes.LaneTracker`). Each lane is saved with
``after``, the number of the cell's messages before it, so a reopened notebook draws the
commander's loop as segments cut at each visible dispatch, in the order it ran. Lanes started
by one answer (parallel dispatches) are saved in the order of the calls that started them,
whichever first spoke, so a replayed notebook reads the same every run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import Field

from ...core.events import Done, MemberEvent, TextDelta, ThinkingDelta, ToolEnd, ToolStart
from ...core.messages import Usage
from .lanes import LaneTracker
from .transcript_messages import TAssistant, TToolCall, TToolResult, _Model
from .transcript_text import cut, saved_arguments

__all__ = ["LaneRecorder", "TLane"]

LANE_RESULT_CHARS = 2000  # per tool result of a member kept in the saved notebook


class TLane(_Model):
    """One visible member run, as saved."""

    task_id: str
    member: str
    kind: Literal["dispatch", "worker", "floor"] = "dispatch"
    status: str = "running"  # running | done | stopped | error (see views/lanes.py)
    stop_reason: str = ""
    after: int = 0  # how many of the transcript's messages come before the lane
    model: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None  # at the member's own model's list price; None: unknown
    model_requests: int = 0
    handed_back: bool = False  # a floor lane that handed the floor back (marker not kept)
    error: str = ""
    messages: list[TAssistant | TToolResult] = Field(default_factory=list)


class LaneRecorder:
    """Builds :class:`TLane` records from a run's events; ``anchor()`` is how many of the
    cell's messages are saved when a lane opens."""

    def __init__(self, tracker: LaneTracker, anchor: Callable[[], int]) -> None:
        self.tracker = tracker
        self._anchor = anchor
        self._lanes: dict[str, TLane] = {}
        self._rank: dict[str, int] = {}
        self._calls: list[str | None] = []  # members named by the commander's calls, in order

    def on_call(self, event: ToolStart) -> None:
        """A commander's ``dispatch_to``/``run_worker`` call: the lane it opens takes its rank."""
        if event.name in ("dispatch_to", "run_worker"):
            name = event.arguments.get("agent" if event.name == "dispatch_to" else "name")
            self._calls.append(name.lower() if isinstance(name, str) else None)

    def on(self, event: MemberEvent) -> None:
        lane, new, shown = self.tracker.on(event)
        if not lane.visible:
            return
        if new:
            self._lanes[lane.task_id] = TLane(task_id=lane.task_id, member=lane.member,
                                              kind=lane.kind, after=self._anchor())
            member = lane.member.lower()
            rank = self._calls.index(member) if lane.kind != "floor" and member in self._calls \
                else len(self._calls) + len(self._rank)
            if 0 <= rank < len(self._calls):
                self._calls[rank] = None  # claimed: a second call to the member opens the next lane
            self._rank[lane.task_id] = rank
        saved = self._lanes[lane.task_id]
        for inner in shown:
            self._add(saved, inner)
        saved.usage, saved.cost_usd, saved.model = lane.usage, lane.cost, lane.meter.model or None
        saved.model_requests, saved.status = lane.requests, lane.status
        saved.stop_reason, saved.handed_back, saved.error = lane.stop_reason, lane.handed_back, lane.error

    @staticmethod
    def _add(saved: TLane, inner: object) -> None:
        last = saved.messages[-1] if saved.messages else None
        speaking = last if isinstance(last, TAssistant) and not last.tool_calls else None
        if isinstance(inner, TextDelta | ThinkingDelta):
            if speaking is None:
                speaking = TAssistant()
                saved.messages.append(speaking)
            if isinstance(inner, TextDelta):
                speaking.text += inner.text
            else:
                speaking.thinking += inner.text
        elif isinstance(inner, ToolStart):
            if not isinstance(last, TAssistant):
                last = TAssistant()
                saved.messages.append(last)
            last.tool_calls.append(TToolCall(id=inner.call_id, name=inner.name,
                                             arguments=saved_arguments(inner.arguments)))
        elif isinstance(inner, ToolEnd):
            text, truncated = cut(inner.result, LANE_RESULT_CHARS)
            saved.messages.append(TToolResult(
                tool_call_id=inner.call_id, name=inner.name, status=inner.status, text=text,
                truncated=truncated, duration_s=inner.duration_s,
                output_files=list(inner.output_files)))
        elif isinstance(inner, Done) and speaking is not None:
            speaking.text = speaking.text.rstrip()

    def lanes(self) -> list[TLane]:
        """The saved lanes in reading order; a lane that never ended was stopped with the run."""
        out = sorted(self._lanes.values(), key=lambda x: (x.after, self._rank[x.task_id]))
        for lane in out:
            if lane.status == "running":
                lane.status = "stopped"
        return out
