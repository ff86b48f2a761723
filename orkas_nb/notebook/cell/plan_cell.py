"""The plan side of a ``%%agent`` cell (SPEC §11, §14): show it, and run it after the turn.

A team's commander may write a plan (``write_plan``) during its turn; ``%%agent --plan`` asks it
to. The plan appears in the cell as soon as it exists (or at once, empty, with ``--plan``), drawn
by :func:`~orkas_nb.notebook.views.plan_display.show_plan` from the executor's own state. When
the turn ends, an unfinished plan runs (the executor dispatches its ready steps over the bus)
while the cell awaits, so the plan view stays live and the members' runs are drawn in the run
view; a paused plan (a form to answer, a failure to decide) ends the cell and goes on from the
view's controls, or from the next cell. A stop of the cell stops the plan (running steps fail
as "stopped", the plan pauses).

The team is rebuilt per cell over the conversation's kept state, which keeps the plan's
executor (``TeamState.plan``): each new team is re-attached to it, so the views already in the
notebook keep working, and a plan that a click resumed runs on while the next cell starts. That
cell shows the running plan at once, and its run view draws the steps still running on an
earlier cell's team (:class:`StepEvents`) as well as those its own team runs.

``%agent plan`` shows the session's current plan: live when this kernel runs its executor, else
a static picture read from the conversation's file. ``%agent plan answer N name=value …``,
``retry N``, ``skip N``, ``resume`` and ``stop`` are the view's controls from a cell (for a front
end without widgets): the same executor calls, the same refusals.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..state import NotebookState
    from ..views.plan_display import PlanDisplay

log = logging.getLogger(__name__)

PLAN_NUDGE = ("(Plan this before doing it: write the plan with write_plan, with a step for each "
              "piece of work and who does it, then end your turn; the plan then runs.)")


def executor_of(team: Any) -> Any | None:
    """The team's plan executor (``team.plan``), or None (no team, or a team without plans)."""
    executor = getattr(team, "plan", None) if team is not None else None
    return executor if callable(getattr(executor, "subscribe", None)) else None


class StepEvents:
    """The run events of one conversation's plan steps, whichever cell's team runs them.

    A step runs on the team that started it, which may be an earlier cell's (a step still in
    flight when the next cell starts, or one a view's control resumed after its cell
    returned), and that team's events reach only its own listeners. Every cell's team is
    watched here; a cell's run view listens while it runs and gets the member runs of the
    other teams, each in its own lane (its own team's it draws itself). An older team's
    commander turn (a commander step) is not forwarded: its text would read as this cell's
    commander's; the plan view shows that step's state.
    """

    def __init__(self) -> None:
        self._watched: weakref.WeakSet[Any] = weakref.WeakSet()
        self._listeners: list[tuple[int, Callable[[Any], None]]] = []

    def watch(self, team: Any) -> None:
        if team not in self._watched:
            self._watched.add(team)
            source = id(team)  # alive while subscribed: its listener dies with it
            team.subscribe(lambda event: self._emit(source, event))

    def listen(self, render: Callable[[Any], None], own: Any) -> Callable[[], None]:
        entry = (id(own), render)
        self._listeners.append(entry)
        return lambda: self._listeners.remove(entry) if entry in self._listeners else None

    def _emit(self, source: int, event: Any) -> None:
        from ...core.events import MemberEvent

        if not isinstance(event, MemberEvent):
            return
        for own, render in list(self._listeners):
            if own != source:
                try:
                    render(event)
                except Exception:  # noqa: BLE001 - a view must never break the member's run
                    log.exception("orkas_nb: a run view failed to draw a plan step's event")


_EVENTS: weakref.WeakKeyDictionary[Any, StepEvents] = weakref.WeakKeyDictionary()


def step_events(executor: Any) -> StepEvents:
    """The :class:`StepEvents` of ``executor``'s conversation (one per executor, as it lasts)."""
    events = _EVENTS.get(executor)
    if events is None:
        events = _EVENTS[executor] = StepEvents()
    return events


def _plan_id(executor: Any) -> str | None:
    plan = executor.plan
    return None if plan is None else f"{plan.id}:{len(plan.steps)}"


class CellPlan:
    """One cell's view of its team's plan; see the module docs."""

    def __init__(self, executor: Any, shell: Any, *, forced: bool, renderer: str = "auto",
                 shown: dict[str, Any] | None = None, session: str = "") -> None:
        self.executor = executor
        self._shown, self._session = shown, session
        self.shell = shell
        self.forced = forced
        # the view the cell's renderer setting names (auto: what the front end draws)
        self.kind = renderer if renderer in ("lab", "widgets", "text") else None
        self.display: PlanDisplay | None = None
        self._before = _plan_id(executor)
        self._unsubscribe = executor.subscribe(self._changed)
        self._unlisten: Callable[[], None] | None = None

    async def start(self, render: Callable[[Any], None] | None = None, team: Any = None) -> None:
        """Before the turn: the run view (``render``) draws the plan steps other cells' teams
        still run; with ``--plan``, or while the plan runs, the front end is asked which views
        it draws and the plan view is shown."""
        if render is not None and team is not None:
            self._follow(render, team)
        plan = self.executor.plan
        if not (self.forced or (plan is not None and plan.state == "running")):
            return
        from ..views.lab.handshake import probe_frontend

        await probe_frontend()
        self.show()

    def show(self) -> None:
        if self.display is None:
            from ..views.plan_display import show_plan

            self.display = show_plan(self.executor, shell=self.shell, kind=self.kind)
            if self._shown is not None:
                self._shown[self._session] = self.display

    def _changed(self, plan: Any = None) -> None:
        # The commander chose to plan (a plan written or revised in this cell's turn).
        if self.display is None and _plan_id(self.executor) != self._before:
            self.show()

    async def run(self, render: Any, team: Any) -> None:
        """After the turn: run an unfinished plan until it is finished or paused, drawing the
        members' runs with ``render``."""
        plan = self.executor.plan
        if plan is None or plan.finished:
            return
        self.show()
        self._follow(render, team)
        unsubscribe = team.subscribe(render)
        try:
            await self.executor.run()
        finally:
            unsubscribe()

    def stop(self, reason: str) -> None:
        if self.executor.plan is not None:
            self.executor.stop(reason)

    def _follow(self, render: Callable[[Any], None], team: Any) -> None:
        if self._unlisten is None:
            events = step_events(self.executor)
            events.watch(team)
            self._unlisten = events.listen(render, team)

    def close(self) -> None:
        self._unsubscribe()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None


PLAN_USAGE = ("%agent plan [SESSION] | plan answer N NAME=VALUE … | plan retry N | plan skip N | "
              "plan resume | plan stop")
CONTROLS = ("answer", "approve", "retry", "skip", "resume", "stop")


def _control(state: NotebookState, args: list[str]) -> None:
    from IPython.core.error import UsageError

    from ..views.plan_control import PlanControl

    action, rest = args[0], args[1:]
    executor = state.plans.get(state.current)
    if executor is None or executor.plan is None:
        raise UsageError(f"no plan runs in session {state.current!r} in this kernel "
                         "(a %%agent cell takes it over)")
    step: int | None = None
    if action in ("answer", "approve", "retry", "skip"):
        if not rest or not rest[0].isdigit():
            raise UsageError(f"%agent plan {action} needs a step number; usage: {PLAN_USAGE}")
        step, rest = int(rest[0]), rest[1:]
    values: dict[str, Any] = {}
    for word in rest:
        key, eq, value = word.partition("=")
        if action != "answer" or not eq or not key:
            raise UsageError(f"unexpected {word!r}; usage: {PLAN_USAGE}")
        values[key] = {"true": True, "false": False}.get(value.lower(), value)
    control = PlanControl(executor)
    try:
        refusal = control.act(action, step, values)
    finally:
        control.close()
    if refusal is not None:
        raise UsageError(refusal)
    print(f"plan: {action}{f' step {step}' if step else ''} sent (%agent plan shows it)")


def plan_command(state: NotebookState, args: list[str]) -> None:
    """``%agent plan``: the current plan of the session (``%agent plan SESSION``: of another);
    ``%agent plan ACTION …``: one of the view's controls."""
    from IPython.core.error import UsageError

    if args and args[0] in CONTROLS:
        _control(state, args)
        return
    if len(args) > 1:
        raise UsageError(f"%agent plan takes at most one session name; usage: {PLAN_USAGE}")
    name = args[0] if args else state.current
    executor = state.plans.get(name)
    if executor is not None and executor.plan is not None:
        from ..views.plan_display import show_plan

        renderer = state.config.renderer
        state.plan_views[name] = show_plan(
            executor, shell=state.shell,
            kind=renderer if renderer in ("lab", "widgets", "text") else None)
        return
    plan = _saved_plan(state, name)
    if plan is None:
        print(f"no plan in session {name!r} (%%agent --plan asks the commander for one)")
        return
    from ..views.plan_display import show_picture

    show_picture(plan, shell=state.shell)
    if not plan.finished:
        print("this kernel is not running this plan: the next %%agent cell resumes it")


def _saved_plan(state: NotebookState, name: str) -> Any | None:
    from ...team.bus import team_folder

    path = team_folder(state.workspace, name) / "plan.jsonl"
    if not path.exists():
        return None
    from ...team.plan_store import PlanStore

    store = PlanStore(path, readonly=True)
    try:
        return store.plan
    finally:
        store.close()


__all__ = ["PLAN_NUDGE", "CellPlan", "StepEvents", "executor_of", "plan_command", "step_events"]
