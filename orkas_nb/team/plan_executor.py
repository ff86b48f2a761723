"""The plan executor (SPEC §11, seed 001): event-driven reconciliation of one conversation's plan.

Every change of state — a step's completion (an agent's return, the commander's turn ending), a
user's answer, a retry, a skip, a stop — runs under the conversation's lock: record the result
(on disk first, :class:`~.plan_store.PlanStore`), find the ready steps (pending, every
dependency done or skipped) and dispatch, lowest index first, at most ``max_parallel`` at once
(1 by default: correct before fast). Nothing else writes a runtime field.

Steps reach their assignees through a :class:`StepRunner` (the team's is
:class:`~.plan_team.TeamStepRunner`: an agent step is exactly a ``dispatch_to``, one message on
the bus addressed to the agent). A completion carries the step's ``runs`` token; one that no
longer matches (the step was stopped, retried, reloaded) is ignored, so a step never counts
twice.

Failures: a transient one returns the step to pending within ``transient_retries``; otherwise
``on_failure`` decides — ``abort_plan`` fails it and skips every pending step, ``continue``
skips it (its dependents go on), ``ask_commander`` fails it and wakes the commander, whose
plan tools (:mod:`.plan_tools`) retry, skip, abort or revise. A blocked step (a ``user`` step,
or an agent's ``ask_user``) pauses the whole plan until :meth:`PlanExecutor.answer`.
:meth:`PlanExecutor.stop` fails running steps as "stopped" without applying ``on_failure``.

An agent's ``ask_user`` leaves its call open in the agent's session; :meth:`PlanExecutor.answer`
saves the answer here first, then the runner saves it as that call's result and the agent's run
continues from it (a resume, not a re-dispatch).

Reload: a step found ``in_progress`` becomes failed ("interrupted") and follows its
``on_failure`` — never re-dispatched silently — except a step resumed from a saved answer: it is
blocked again with that answer (a second answer is refused) and resumes from it on
:meth:`PlanExecutor.resume` (the answer reaches the agent's session once; a run that had gone on
past it ends as interrupted). A commander to wake is remembered (``plan.decisions``); nothing
runs until :meth:`PlanExecutor.resume` (or an action).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from ..core.messages import new_id
from .ledger import cap
from .plan import Plan, PlanStep, StepForm, check_action
from .plan_check import StepSpec, revised
from .plan_engine import Listener, PlanEngine, _running_loop, answer_text
from .plan_runner import PlanActionError, PlanRejected, StepOutcome, StepRunner

__all__ = ["PlanActionError", "PlanExecutor", "PlanRejected", "StepOutcome", "StepRunner"]


class PlanExecutor(PlanEngine):
    """Runs the plan of one conversation; the view's and the tools' only way to change it."""

    # -- reading -----------------------------------------------------------------------------

    @property
    def plan(self) -> Plan | None:
        """A snapshot of the current plan (a copy: the executor's own is never handed out)."""
        with self._lock:
            return None if self.store.plan is None else self.store.plan.snapshot()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with a snapshot after every change of state; returns unsubscribe.
        It may run on the loop's thread; a failing listener does not stop the plan."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    @property
    def idle(self) -> bool:
        """Nothing in flight (no step run, no commander wake-up)."""
        return self._idle.is_set()

    # -- the model's tools -------------------------------------------------------------------

    def write(self, steps: list[StepSpec | dict[str, Any]], *, title: str = "", request: str = "",
              attachments: list[str] | None = None) -> Plan:
        """A new plan (it starts on :meth:`resume`); :class:`PlanRejected` when it cannot run
        or while another plan is unfinished."""
        specs = [s if isinstance(s, StepSpec) else StepSpec.model_validate(s) for s in steps]
        with self._unit():
            current = self.store.plan
            if current is not None and not current.finished and any(
                    s.status != "pending" for s in current.steps):
                raise PlanRejected([(f"plan {current.id!r} is still {current.state}: revise it "
                                    f"with revise_plan, or abort_plan it first")])
            built = self._build(specs, start=1)
            plan = Plan(id=new_id("plan"), title=title, request=request,
                        attachments=list(attachments or []), steps=built, state="paused")
            self.store.write(plan)
            self._active = False
            self._changed()
            return self.plan  # type: ignore[return-value]

    def revise(self, steps: list[StepSpec | dict[str, Any]], *,
               remove: Sequence[int] = ()) -> Plan:
        """Replace pending steps (same index), add steps (next indexes), skip ``remove``d ones
        ("removed from the plan"); only steps not started may change."""
        specs = [s if isinstance(s, StepSpec) else StepSpec.model_validate(s) for s in steps]
        with self._unit():
            plan = self._require()
            new, found = revised(plan, specs, remove, self.agents)
            if found:
                raise PlanRejected(found)
            new.state = "paused" if plan.state in ("done", "failed") else plan.state
            self.store.write(Plan.model_validate(new.model_dump()))
            self._reconcile()
            return self.plan  # type: ignore[return-value]

    def ask(self, member: str, form: StepForm, call_id: str = "", *,
            index: int | None = None) -> PlanStep:
        """An agent's ``ask_user``: its running step (``index``, else the member's only one)
        becomes blocked (the plan pauses) with the question saved; the agent's run then ends.
        ValueError when the member runs no plan step."""
        with self._unit():
            plan = self._require()
            mine = [s for s in plan.steps if s.status == "in_progress"
                    and s.assignee.lower() == member.lower()
                    and (index is None or s.index == index)]
            if not mine:
                raise ValueError(f"{member} is not running a plan step; ask the user in your answer")
            step = mine[0]
            self.store.set_step(step.index, status="blocked", form=form,
                                question_id=call_id or new_id("ask"), answer=None)
            self._reconcile()
            return step.model_copy()

    # -- the user's and the commander's controls ---------------------------------------------

    def act(self, action: str, index: int, values: dict[str, Any] | None = None) -> None:
        """One control of the view (``answer``, ``approve``, ``retry``, ``skip``)."""
        values = values or {}
        if action in ("answer", "approve"):
            self.answer(index, values)
        elif action == "retry":
            self.retry(index)
        elif action == "skip":
            self.skip(index)
        else:
            raise PlanActionError(f"unknown action {action!r}")

    def answer(self, index: int, values: dict[str, Any]) -> None:
        """The user's answer to a blocked step: saved, then used (a ``user`` step is done with
        it; an agent's run resumes from it as its ``ask_user`` call's result); the plan goes on.
        A process that dies before the agent's run went on keeps the answer: the step is
        blocked with it on reload and resumes from it on :meth:`resume`."""
        with self._unit():
            plan = self._require()
            why = check_action(plan, "answer", index, values)
            if why:
                raise PlanActionError(why)
            step = plan.step(index)
            if step.assignee != "user" and self._loop is None and _running_loop() is None:
                raise PlanActionError("the agent resumes on an event loop: answer from async "
                                      "code (or after resume())")
            self._activate()
            if step.assignee == "user":
                summary = cap(answer_text(values) or "(approved)", self.summary_chars)
                self.store.set_step(index, answer=dict(values), status="done",
                                    output_summary=summary)
            else:
                self.store.set_step(index, answer=dict(values))
                self.store.flush()  # on disk before the agent's session gets it
                self._resume_answered(plan.step(index))
            self._reconcile()

    def retry(self, index: int) -> None:
        """Run a failed step again (a new dispatch); nothing else is re-run."""
        with self._unit():
            plan = self._require()
            why = check_action(plan, "retry", index, {})
            if why:
                raise PlanActionError(why)
            self.store.set_step(index, status="pending", failure_reason="", transient_failures=0)
            self._drop_decision(index)
            self._activate()
            self._reconcile()

    def skip(self, index: int, reason: str = "skipped by the user") -> None:
        """Pass over a step as ``continue`` would (its dependents go on)."""
        with self._unit():
            plan = self._require()
            why = check_action(plan, "skip", index, {})
            if why:
                raise PlanActionError(why)
            was = plan.step(index).model_copy()
            self.store.set_step(index, status="skipped", failure_reason=reason)
            self._withdraw([was], reason)
            self._drop_decision(index)
            self._activate()
            self._reconcile()

    def abort(self, reason: str = "aborted") -> None:
        """End the plan: every step not finished is skipped; running steps finish unrecorded."""
        with self._unit():
            plan = self._require()
            self._abort(plan, reason)
            self._changed()

    def stop(self, reason: str = "stopped") -> None:
        """The group stop: running steps fail ("stopped", ``on_failure`` not applied), the
        plan pauses; :meth:`resume`, :meth:`retry` or :meth:`skip` go on from there."""
        with self._unit():
            self._active = False
            plan = self.store.plan
            if plan is not None:
                for s in plan.steps:
                    if s.status == "in_progress":
                        self.store.set_step(s.index, status="failed", failure_reason=reason)
                self._settle_state()
        self.runner.stop(reason)
        self._changed()

    def resume(self) -> None:
        """Go on: wake the commander for decisions left by a reload, dispatch what is ready.
        A finished or aborted plan runs nothing. Needs a running event loop."""
        with self._unit():
            self._loop = asyncio.get_running_loop()
            plan = self.store.plan
            if plan is None or plan.finished:
                return
            self._activate()
            for index in list(plan.decisions):
                self._drop_decision(index)
                self._wake_commander(plan.step(index))
            for step in plan.steps:  # answered before a restart, not yet resumed
                if step.status == "blocked" and step.answer is not None:
                    self._resume_answered(step)
            self._reconcile()

    async def run(self) -> Plan | None:
        """:meth:`resume`, then wait until the plan is finished or paused; its snapshot."""
        self.resume()
        await self.wait()
        return self.plan

    def close(self) -> None:
        """Stop recording (runs still in flight are left to the next open, which finds their
        steps in progress: interrupted) and close the plan's file."""
        with self._unit():
            self._closed = True
            self._active = False
        self.store.close()

    async def wait(self) -> None:
        """Until nothing is in flight (the plan is then finished or paused)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

