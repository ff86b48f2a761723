"""Weighted signals read from the structure of a run, never from what the words say.

One :class:`RunObserver` watches one run of a named agent (the events its harness yields) and
turns what happened into :class:`~.store.SignalRecord` values:

- ``correction`` (the heaviest): the user steered the running turn (a ``steer`` event), or
  sent the agent the same request again after it answered (a retry), or edited the agent's
  output: a file its file tools wrote whose bytes changed before its next run, unless another
  run wrote it in between (:mod:`.edits`, checked when :meth:`~.engine.Evolution.observer`
  starts the next run);
- ``recovery``: a tool failed and the run still ended well;
- ``complexity``: the run took many tool calls;
- ``weakness``: the same tool failed twice or more in one run (hit), or a run ended in an
  error (hit);
- ``inefficient_skill``: a run that loaded a skill still took many steps or failed repeatedly.

Notes are a few words of structure (tool names, counts), so a reflection reads a summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ...core.events import Done, RunEvent, Steer, ToolEnd, ToolStart
from .settings import EvolutionSettings
from .store import SignalKind, SignalRecord

__all__ = ["RunObserver", "same_request"]


def same_request(a: str, b: str) -> bool:
    """Two requests are one when only case and spacing differ (a retry, not a new task)."""
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


class RunObserver:
    """Feed it the events of one run (``observe``); ``finish`` returns the signals found."""

    def __init__(self, settings: EvolutionSettings, clock: Callable[[], float],
                 task_id: str | None = None, retry_of: str | None = None) -> None:
        self.settings = settings
        self.clock = clock
        self.task_id = task_id
        self.retry_of = retry_of
        self.steers = 0
        self.failures: Counter[str] = Counter()
        self.tools: Counter[str] = Counter()
        self.skills: list[str] = []
        self.calls: dict[str, str] = {}
        self.result_ok = True
        self.stop_reason = "end_turn"
        self.done = False

    def observe(self, event: RunEvent) -> None:
        if isinstance(event, Steer):
            self.steers += 1
        elif isinstance(event, ToolStart):
            self.calls[event.call_id] = event.name
            self.tools[event.name] += 1
            if event.name == "skill" and isinstance(event.arguments.get("name"), str):
                self.skills.append(event.arguments["name"])
        elif isinstance(event, ToolEnd):
            if event.status != "ok":
                self.failures[event.name] += 1
        elif isinstance(event, Done):
            self.done = True
            self.stop_reason = event.result.stop_reason
            self.result_ok = event.result.stop_reason == "end_turn"

    def _signal(self, kind: SignalKind, note: str) -> SignalRecord:
        return SignalRecord(ts=self.clock(), kind=kind, weight=self.settings.weights.get(kind, 1.0),
                            note=note[:300], task_id=self.task_id)

    def finish(self) -> list[SignalRecord]:
        out: list[SignalRecord] = []
        if self.steers:
            out.append(self._signal("correction", f"the user steered the run {self.steers} time(s)"))
        if self.retry_of is not None:
            out.append(self._signal("correction", f"the user asked again for the same task "
                                                  f"({self.retry_of[:120]!r})"))
        failed = sum(self.failures.values())
        if failed and self.result_ok:
            names = ", ".join(sorted(self.failures))
            out.append(self._signal("recovery", f"{failed} tool failure(s) ({names}), then the "
                                                "run ended well"))
        calls = sum(self.tools.values())
        if calls >= self.settings.complex_tool_calls:
            out.append(self._signal("complexity", f"{calls} tool calls in one run"))
        repeated = [n for n, c in self.failures.items() if c >= 2]
        if repeated:
            out.append(self._signal("weakness", f"repeated failures of {', '.join(sorted(repeated))}"))
        elif self.done and not self.result_ok and self.stop_reason != "cancelled":
            out.append(self._signal("weakness", f"the run ended by {self.stop_reason}"))
        if self.skills and (calls >= self.settings.inefficient_steps or repeated):
            out.append(self._signal("inefficient_skill", (
                f"skill(s) {', '.join(dict.fromkeys(self.skills))} loaded, then {calls} tool "
                f"calls and {failed} failure(s)")))
        return out
