"""A team member's run as every view shows it: one lane per task (SPEC §11, §14).

The team forwards each member run's events as :class:`~orkas_nb.core.events.MemberEvent`.
:class:`LaneTracker` is the one reading of them the views share (text, widgets, the lab run
view, the saved transcript), so they cannot disagree on a lane's status, tokens or cost:

- a lane's **status** is ``running`` until its ``done``, then ``done``, ``stopped`` (a Stop, the
  loop guard, the step limit) or ``error``;
- its **cost** is priced at the model that answered the member (the ``usage`` events of its own
  run), else the model its agent file names, else the commander's (a member without a model of
  its own runs the commander's), on a meter of its own: a member's usage never moves the
  commander's meter, and the run's total is the commander's cost plus every lane's;
- a **floor** lane (the member answers the user) never shows a real ``<handback />``: the text
  streams through :class:`~orkas_nb.team.handback.HandbackStream` and the lane says it
  :data:`HANDED_BACK` instead;
- an anonymous worker's lane (``visible`` False) is counted in the cost, never shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ...core.events import AgentEvent, Done, MemberEvent, TextDelta, UsageUpdate
from ...core.events import Lane as LaneKind
from ...core.messages import Usage
from ...team.handback import HandbackStream

__all__ = ["HANDED_BACK", "Lane", "LaneStatus", "LaneTracker", "Meter", "lane_status", "tokens_text"]

LaneStatus = Literal["running", "done", "stopped", "error"]
CostSource = Callable[[str, Usage], "float | None"]

#: What a floor lane shows in place of the member's ``<handback />``.
HANDED_BACK = "handed the floor back"


def lane_status(stop_reason: str) -> LaneStatus:
    """A finished run's stop reason as a lane status."""
    if stop_reason == "end_turn":
        return "done"
    return "error" if stop_reason == "error" else "stopped"


def tokens_text(usage: Usage, cost: float | None) -> str:
    text = f"{usage.input_tokens:,} in / {usage.output_tokens:,} out tokens"
    return text if cost is None else f"{text} · ${cost:.4f}"


class Meter:
    """The cost of one runner's usage: its running total, priced at the model that answered.

    A total smaller than the last starts a new run of the same runner (the commander resumed
    after a hand-back): the earlier run's cost and usage are kept, not lost."""

    def __init__(self, cost: CostSource | None, model: str = "") -> None:
        fresh = getattr(cost, "fresh", None)
        self._price: CostSource | None = fresh() if callable(fresh) else cost
        self.model = model
        self._run = Usage()
        self._kept = Usage()
        self._kept_cost: float | None = 0.0
        self._run_cost: float | None = 0.0

    def update(self, usage: Usage, model: str | None = None) -> None:
        self.model = model or self.model
        if usage.input_tokens < self._run.input_tokens or usage.output_tokens < self._run.output_tokens:
            self._kept = self._kept + self._run
            self._kept_cost = None if self._kept_cost is None or self._run_cost is None \
                else self._kept_cost + self._run_cost
        self._run = usage
        self._run_cost = self._price(self.model, usage) if self._price is not None else None

    @property
    def usage(self) -> Usage:
        return self._kept + self._run

    @property
    def cost(self) -> float | None:
        if self._price is None or self._kept_cost is None or self._run_cost is None:
            return None
        return self._kept_cost + self._run_cost


@dataclass
class Lane:
    """One member run: who, which task, how it came (``kind``), and how it is going."""

    task_id: str
    member: str
    kind: LaneKind
    visible: bool
    meter: Meter
    status: LaneStatus = "running"
    stop_reason: str = ""
    error: str = ""
    requests: int = 0
    handed_back: bool = False
    text: list[str] = field(default_factory=list)  # what the lane showed (handback stripped)
    _stream: HandbackStream | None = None

    @property
    def usage(self) -> Usage:
        return self.meter.usage

    @property
    def cost(self) -> float | None:
        return self.meter.cost

    def facts(self) -> str:
        """``done · 1 model requests · 1,200 in / 30 out tokens · $0.0002``"""
        return f"{self.status} · {self.requests} model requests · {tokens_text(self.usage, self.cost)}"


class LaneTracker:
    """Reads a team run's events into lanes (see the module docs); one per view of a run."""

    def __init__(self, cost: CostSource | None = None, *, model: str = "",
                 members: Mapping[str, str] | None = None) -> None:
        self.cost = cost
        self.model = model  # the commander's, which a member without a model of its own runs
        self.members = dict(members or {})  # member -> the model its agent file names
        self.lanes: dict[str, Lane] = {}
        self.commander = Meter(cost, model)

    def configure(self, *, model: str, members: Mapping[str, str]) -> None:
        self.model = self.commander.model = model
        self.members = dict(members)

    def lane(self, event: MemberEvent) -> tuple[Lane, bool]:
        """The lane of ``event``'s task and whether this event opened it."""
        found = self.lanes.get(event.task_id)
        if found is not None:
            return found, False
        lane = Lane(task_id=event.task_id, member=event.member, kind=event.lane,
                    visible=event.visible,
                    meter=Meter(self.cost, self.members.get(event.member) or self.model),
                    _stream=HandbackStream() if event.lane == "floor" else None)
        self.lanes[event.task_id] = lane
        return lane, True

    def on(self, event: MemberEvent) -> tuple[Lane, bool, list[AgentEvent]]:
        """Read one member event: its lane, whether it opened it, and the inner events a view
        draws in the lane (a floor lane's text without the hand-back marker)."""
        lane, new = self.lane(event)
        inner = event.event
        out: list[AgentEvent] = []
        if isinstance(inner, TextDelta):
            text = inner.text if lane._stream is None else lane._stream.feed(inner.text)
            if text:
                out.append(inner if text == inner.text else inner.model_copy(update={"text": text}))
        elif isinstance(inner, UsageUpdate):
            lane.meter.update(inner.usage, inner.model)
            lane.requests = inner.model_requests
            out.append(inner)
        elif isinstance(inner, Done):
            r = inner.result
            if lane._stream is not None:
                rest, lane.handed_back = lane._stream.end()
                if rest:
                    out.append(TextDelta(agent=inner.agent, text=rest))
            lane.meter.update(r.usage)
            lane.requests = r.stats.model_requests
            lane.stop_reason, lane.status = r.stop_reason, lane_status(r.stop_reason)
            lane.error = r.error.message if r.error is not None else ""
            out.append(inner)
        else:
            out.append(inner)
        lane.text.extend(e.text for e in out if isinstance(e, TextDelta))
        return lane, new, out

    def on_commander_usage(self, event: UsageUpdate) -> None:
        self.commander.update(event.usage, event.model)

    @property
    def visible(self) -> list[Lane]:
        return [lane for lane in self.lanes.values() if lane.visible]

    def total_cost(self) -> float | None:
        """The commander's cost plus every lane's (workers' too); None when any is unknown."""
        costs = [self.commander.cost, *(lane.cost for lane in self.lanes.values())]
        return None if any(c is None for c in costs) else sum(costs)  # type: ignore[misc]
