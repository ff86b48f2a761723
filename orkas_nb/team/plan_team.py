"""The plan over the team (SPEC §11): how steps reach their assignees in a conversation.

One dispatch path: an agent step is :meth:`~.runtime.Team.dispatch` itself — a ``task``
message on the conversation's bus from the commander, addressed to the agent, a ledger task,
one complete harness run — exactly what ``dispatch_to`` does. The plan is a ledger over the
bus, not a second execution path.

- ``user`` steps and agents' questions are forms: a message to the user on the bus; the
  answer comes back through :meth:`~.plan_executor.PlanExecutor.answer`.
- ``commander`` steps and decision wake-ups are private: a ``system`` message only the
  commander sees, then a turn of the commander (its events go to the team's listeners).
- A blocked agent's ``ask_user`` call stays open in its session; the user's answer is saved as
  that call's result (and shown on the bus), and a run of its session continues from it, with
  no new message (a resume, not a new dispatch). A skipped step's question is closed instead.

Whether a failure is transient comes from the run's error (``retry`` / ``rotate`` actions:
connection, 5xx, rate limit) once the agent's own retries are spent.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..core.errors import StateError
from ..core.events import Done, MemberEvent, RunEvent, RunResult
from ..core.messages import new_id
from ..harness.awaiting import AwaitingAnswerError, answer_call, asked_last, close_call
from ..harness.cancellation import AbortSignal
from .bus import COMMANDER, SYSTEM, USER, BusMessage
from .plan import PlanStep, StepForm
from .plan_runner import StepOutcome

if TYPE_CHECKING:
    from .plan_executor import PlanExecutor
    from .runtime import Team

__all__ = ["TeamStepRunner", "form_text"]

TRANSIENT_ACTIONS = frozenset({"retry", "rotate"})


def form_text(step: PlanStep, form: StepForm) -> str:
    """A form as the bus (and a text view) shows it."""
    lines = [f"Step {step.index} ({step.title}) asks you: {form.prompt}"]
    for f in form.fields:
        extra = f" (one of: {', '.join(f.choices)})" if f.choices else ""
        lines.append(f"- {f.label or f.name}{extra}{'' if f.required else ' (optional)'}")
    if not form.fields:
        lines.append("(approve to go on)")
    return "\n".join(lines)


class TeamStepRunner:
    """A :class:`~.plan_runner.StepRunner` over the latest :class:`~.runtime.Team` of one
    conversation.

    It lasts as long as the conversation's state (as its executor does, ``TeamState.plan``):
    a team rebuilt over that state (each notebook cell) is attached (:meth:`attach`), and new steps
    go to it, while a run already in flight ends on the team that started it; :meth:`stop`
    reaches both.
    """

    def __init__(self, team: Team) -> None:
        self.team = team
        self.executor: PlanExecutor | None = None  # set by bind(): what ask_user reports to
        self._errors: dict[str, RunResult] = {}  # task id -> the member run's result
        self._commander_abort: AbortSignal | None = None
        # Which step a member's current run works on (several steps of one member may be in
        # progress, queued on its lock): dispatch text -> step, task id -> step, member -> step.
        self._texts: dict[tuple[str, str], int] = {}
        self._task_step: dict[str, int] = {}
        self._current: dict[str, int] = {}
        self._busy: list[Team] = []  # the team of each run in flight (a team once per run)
        team.subscribe(self._on_event)
        team.state.bus.subscribe(self._on_message)  # the state's bus: subscribed once

    def attach(self, team: Team) -> None:
        """Steps from now on go to ``team`` (a team rebuilt over the same state)."""
        if team is self.team:
            return
        if team.state is not self.team.state:
            raise ValueError("a plan's runner serves the teams of one conversation state")
        self.team = team
        team.subscribe(self._on_event)

    @contextlib.contextmanager
    def _running(self) -> Iterator[Team]:
        # The team a run starts on is the one it ends on (a rebuild meanwhile changes self.team).
        team = self.team
        self._busy.append(team)
        try:
            yield team
        finally:
            self._busy.remove(team)

    def _on_message(self, message: BusMessage) -> None:
        if message.kind == "task" and message.to is not None:
            index = self._texts.pop((message.to, message.text), None)
            if index is not None and message.task_id is not None:
                self._task_step[message.task_id] = index

    def _on_event(self, event: RunEvent) -> None:
        if not isinstance(event, MemberEvent):
            return
        if event.task_id in self._task_step:
            self._current[event.member] = self._task_step[event.task_id]
        if isinstance(event.event, Done):
            self._errors[event.task_id] = event.event.result
            self._task_step.pop(event.task_id, None)

    def step_of(self, member: str) -> int | None:
        """The plan step ``member``'s current run works on (None: not a plan step)."""
        return self._current.get(member)

    def bind(self, executor: PlanExecutor) -> None:
        self.executor = executor

    def _with_ask_user(self, team: Team, name: str) -> None:
        # A member gets ask_user when it first runs a plan step (outside one it is refused).
        tools = getattr(team.member(name), "tools", None)
        if self.executor is not None and tools is not None and "ask_user" not in tools:
            from .plan_tools import AskUser

            tools.add(AskUser(self.executor, name, self.step_of))

    # -- agents ------------------------------------------------------------------------------

    async def run_agent(self, step: PlanStep, text: str) -> StepOutcome:
        with self._running() as team:
            name = team.definition(step.assignee).name
            self._with_ask_user(team, name)
            self._texts[(name, text)] = step.index
            try:
                outcome = await team.dispatch(step.assignee, text, requester=COMMANDER)
            except AwaitingAnswerError as exc:  # its question is being answered: try again
                self._texts.pop((name, text), None)
                return StepOutcome(status="failed", reason=str(exc), transient=True)
        result = self._errors.pop(outcome.task_id, None)
        # refused while the agent waits for an answer to another step's question: transient
        transient = bool(result is not None and result.error is not None
                         and (result.error.action in TRANSIENT_ACTIONS
                              or result.error.kind == AwaitingAnswerError.__name__))
        if outcome.status == "done":
            return StepOutcome(status="done", summary=outcome.summary,
                               output_files=outcome.output_files)
        return StepOutcome(status="failed", summary=outcome.summary, reason=outcome.reason,
                           transient=transient and outcome.status == "failed",
                           stopped=outcome.status == "interrupted")

    async def resume_agent(self, step: PlanStep, answer: dict[str, Any]) -> StepOutcome:
        with self._running() as team:
            return await self._resume(team, step, answer)

    async def _resume(self, team: Team, step: PlanStep, answer: dict[str, Any]) -> StepOutcome:
        state = team.state
        name = team.definition(step.assignee).name
        self._with_ask_user(team, name)
        member = team.member(name)
        session = state.session(name)
        async with state.member_lock(name):
            # The answer becomes the ask_user call's own result, saved before the run uses it;
            # after a restart it may be there already (never twice), and a run that had gone
            # on past it died with the process: interrupted, as any step cut short.
            try:
                saved = answer_call(session, step.question_id,
                                    json.dumps(answer, ensure_ascii=False))
            except StateError as exc:
                return StepOutcome(status="failed", reason=f"{name} cannot resume: {exc}")
            if not saved and not asked_last(session.messages, step.question_id):
                return StepOutcome(status="failed", reason="interrupted")
            task_id = _show_answer(team, name, answer)
            self._task_step[task_id] = step.index
            result = await team.run_member(member, name, None, task_id, lane="dispatch",
                                           visible=True)
        state.bus.post(name, result.text or f"({result.stop_reason})", visible_to={USER, name},
                       kind="result", to=COMMANDER)
        return _outcome(result, team.summary_chars)

    def withdraw(self, step: PlanStep, reason: str) -> None:
        """The question of a blocked agent step will not be answered (the step was skipped, the
        plan aborted): its open call is closed, so the agent can take work again."""
        if not step.question_id or step.assignee in (USER, COMMANDER):
            return
        name = self.team.definition(step.assignee).name
        close_call(self.team.state.session(name), step.question_id, reason)

    # -- the commander -----------------------------------------------------------------------

    async def run_commander(self, step: PlanStep | None, text: str) -> StepOutcome:
        with self._running() as team:
            return await self._commander_turn(team, step, text)

    async def _commander_turn(self, team: Team, step: PlanStep | None, text: str) -> StepOutcome:
        async with team.state.commander_lock:
            note = team.state.bus.post(SYSTEM, text, visible_to={COMMANDER}, kind="system",
                                       to=COMMANDER)
            prompt = team.prompt_for(COMMANDER, note, intro="The plan needs you")
            # the team's group stop aborts this turn as it does the conversation's own
            abort = self._commander_abort = team.commander_abort()
            result: RunResult | None = None
            async for event in team.commander.run(prompt, abort=abort):
                if isinstance(event, Done):
                    result = event.result
                else:
                    team.emit(event)
            assert result is not None
            if step is not None and result.text:
                team.state.bus.post(COMMANDER, result.text, visible_to={USER}, kind="chat", to=USER)
            return _outcome(result, team.summary_chars)

    # -- the user ----------------------------------------------------------------------------

    def post_form(self, step: PlanStep, form: StepForm) -> None:
        self.team.state.bus.post(COMMANDER, form_text(step, form), visible_to={USER},
                                 kind="chat", to=USER)

    def _teams(self) -> list[Team]:
        return list({id(t): t for t in [self.team, *self._busy]}.values())

    def stop(self, reason: str) -> None:
        if self._commander_abort is not None:
            self._commander_abort.abort(reason)
        for team in self._teams():
            team.stop(reason)

    def clear_stop(self) -> None:
        # A team keeps a stop until the next user turn; a resumed plan is that next turn.
        for team in self._teams():
            team.clear_stop()


def _show_answer(team: Team, name: str, answer: dict[str, Any]) -> str:
    """The user's answer on the bus, as the conversation shows it, once: a life that died after
    posting it does not post it again. Returns the id the resumed run's events carry."""
    shown = "\n".join(f"{k}: {v}" for k, v in answer.items()) or "(approved)"
    bus = team.state.bus
    since = max((m.seq for m in bus.messages if m.sender == name), default=0)
    for m in bus.messages:
        if m.seq > since and m.sender == USER and m.to == name and m.text == shown:
            return new_id("resume")
    return bus.post(USER, shown, visible_to={USER, name}, kind="chat", to=name).id


def _outcome(result: RunResult, limit: int) -> StepOutcome:
    from .ledger import cap

    if result.stop_reason == "error":
        return StepOutcome(status="failed", summary=cap(result.text, limit),
                           reason=result.error.message if result.error else "the run failed",
                           transient=bool(result.error and result.error.action in TRANSIENT_ACTIONS))
    if result.stop_reason == "cancelled":
        reason = (result.error.message if result.error else "") or "stopped"
        return StepOutcome(status="failed", summary=cap(result.text, limit), reason=reason,
                           stopped=True)
    return StepOutcome(status="done", summary=cap(result.text, limit),
                       output_files=result.output_files)
