"""The plan executor's engine: reconciliation, dispatch, completions, policies (SPEC §11).

:class:`PlanEngine` is the half of :class:`~.plan_executor.PlanExecutor` nobody calls from
outside. Every method here runs under the conversation's lock (``self._lock``) and saves a
change before acting on it. A completion carries the step's ``runs`` token; one that no longer
matches (the step was stopped, retried or reloaded since) is ignored, so a step never counts
twice and is never dispatched twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Collection, Iterator
from typing import Any

from ..core.messages import new_id
from .ledger import SUMMARY_CHARS, cap
from .plan import Plan, PlanStep
from .plan_check import StepSpec, canonical_assignee, dispatch_text, problems
from .plan_runner import PlanActionError, PlanRejected, StepOutcome, StepRunner
from .plan_store import PlanStore

__all__ = ["Listener", "PlanEngine", "answer_text"]

log = logging.getLogger(__name__)

Listener = Callable[[Plan], None]


class PlanEngine:
    """Runs the plan of one conversation; see :class:`~.plan_executor.PlanExecutor`."""

    def __init__(self, store: PlanStore, runner: StepRunner, *, agents: Collection[str] = (),
                 max_parallel: int = 1, transient_retries: int = 2,
                 summary_chars: int = SUMMARY_CHARS) -> None:
        if max_parallel < 1:
            raise ValueError("max_parallel must be at least 1")
        self.store, self.runner = store, runner
        self.agents = list(agents)
        self.max_parallel, self.transient_retries = max_parallel, transient_retries
        self.summary_chars = summary_chars
        self._lock = threading.RLock()  # the conversation's lock: one executor per store file
        self._listeners: list[Listener] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._active = False  # dispatching allowed (after resume; never by itself after a load)
        self._deciding = 0  # commander decision wake-ups in flight
        self._tasks: set[asyncio.Future[Any]] = set()
        self._closed = False
        self._idle = threading.Event()
        self._idle.set()
        with self._unit():
            self._recover()

    # -- the engine --------------------------------------------------------------------------

    def _require(self) -> Plan:
        if self.store.plan is None:
            raise PlanActionError("there is no plan in this conversation")
        return self.store.plan

    def _build(self, specs: list[StepSpec], start: int) -> list[PlanStep]:
        steps = []
        found: list[str] = []
        for place, spec in enumerate(specs, start):
            if spec.index is not None and spec.index != place:
                found.append(f"step {spec.index} is at place {place}: indexes are 1, 2, ... in order")
            step = spec.to_step(place)
            step.assignee = canonical_assignee(step.assignee, self.agents) or step.assignee
            steps.append(step)
        found += problems(steps, self.agents)
        if found:
            raise PlanRejected(found)
        return steps

    @contextlib.contextmanager
    def _unit(self) -> Iterator[None]:
        """One change of state: under the conversation's lock, saved as one line."""
        with self._lock, self.store.batch():
            yield

    def _activate(self) -> None:
        """A user's or the commander's action: the plan may dispatch again (after a stop too)."""
        if not self._active:
            self.runner.clear_stop()
        self._active = True
        if self._loop is None:
            self._loop = _running_loop()

    def _recover(self) -> None:
        plan = self.store.plan
        if plan is None:
            return
        for s in plan.steps:
            if s.status == "in_progress" and s.answer is not None and s.assignee != "user" \
                    and plan.state != "aborted":
                # resumed from the user's answer: blocked with it again, to resume from it
                self.store.set_step(s.index, status="blocked")
            elif s.status == "in_progress":  # its run died with the process: never re-run silently
                self.store.set_step(s.index, status="failed", failure_reason="interrupted")
                self._apply_policy(plan, plan.step(s.index), "interrupted", wake=False)
        self._settle_state()

    def _reconcile(self) -> None:
        """Dispatch what is ready (under the lock), then settle the plan's state."""
        plan = self.store.plan
        if plan is None:
            return
        self._settle_state()  # a retried or revised step may reopen a failed plan
        while self._active and self._loop is not None and not plan.finished and not self._deciding:
            statuses = [s.status for s in plan.steps]
            if "blocked" in statuses or statuses.count("in_progress") >= self.max_parallel:
                break
            ready = plan.ready()
            if not ready:
                break
            self._dispatch(plan, plan.step(ready[0]))
        self._settle_state()
        self._changed()

    def _dispatch(self, plan: Plan, step: PlanStep) -> None:
        if step.assignee == "user":
            assert step.form is not None
            self.store.set_step(step.index, status="blocked", attempts=step.attempts + 1,
                                runs=step.runs + 1, question_id=new_id("ask"), answer=None)
            self.store.flush()  # saved before the user can see the form
            self.runner.post_form(step.model_copy(), step.form)
            return
        text = dispatch_text(plan, step)
        runs = step.runs + 1
        # on disk before the message goes out: a crash now leaves in_progress -> interrupted
        self.store.set_step(step.index, status="in_progress", attempts=step.attempts + 1, runs=runs,
                            failure_reason="", question_id="", answer=None)
        snapshot = step.model_copy()
        if step.assignee == "commander":
            self._spawn(lambda: self.runner.run_commander(snapshot, text), step.index, runs)
        else:
            self._spawn(lambda: self.runner.run_agent(snapshot, text), step.index, runs)

    def _resume_answered(self, step: PlanStep) -> None:
        """An agent's step with its saved answer runs again from it (a resume: its
        ``ask_user`` call gets the answer as its result; see ``StepRunner.resume_agent``)."""
        assert step.answer is not None
        runs = step.runs + 1
        self.store.set_step(step.index, status="in_progress", runs=runs)
        snapshot, values = step.model_copy(), dict(step.answer)
        self._spawn(lambda: self.runner.resume_agent(snapshot, values), step.index, runs)

    def _withdraw(self, steps: list[PlanStep], reason: str) -> None:
        """Blocked agent steps that will not be answered: their open questions are closed."""
        withdraw = getattr(self.runner, "withdraw", None)
        for s in steps:
            if withdraw is not None and s.status == "blocked" and s.assignee != "user":
                try:
                    withdraw(s, f"the user did not answer: {reason}")
                except Exception:  # noqa: BLE001 - the plan's change is saved; report, go on
                    log.exception("could not close the question of step %s", s.index)

    def _spawn(self, make: Callable[[], Any], index: int | None, runs: int) -> None:
        loop = self._loop
        assert loop is not None, "resume() first: the plan needs an event loop"
        self._idle.clear()

        def start() -> None:
            task = asyncio.ensure_future(self._drive(make, index, runs))
            self._tasks.add(task)
            task.add_done_callback(self._task_done)

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            start()
        else:  # a widget's click on the kernel's thread
            loop.call_soon_threadsafe(start)

    def _task_done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not self._tasks:
            self._idle.set()

    async def _drive(self, make: Callable[[], Any], index: int | None, runs: int) -> None:
        try:
            outcome = await make()
        except asyncio.CancelledError:  # the loop or the caller went away: as a stop
            self._ended(index, runs, StepOutcome(status="failed", reason="interrupted",
                                                 stopped=True))
            raise
        except Exception as exc:  # noqa: BLE001 - a runner bug must not leave a step in flight
            outcome = StepOutcome(status="failed", reason=f"{type(exc).__name__}: {exc}")
        self._ended(index, runs, outcome)

    def _ended(self, index: int | None, runs: int, outcome: StepOutcome) -> None:
        with self._unit():
            if index is None:
                self._deciding -= 1
            if self._closed:
                return  # closed (or a simulated crash): the next open decides, from the file
            if index is None:
                self._reconcile()
            else:
                self._complete(index, runs, outcome)

    def _complete(self, index: int, runs: int, outcome: StepOutcome) -> None:
        plan = self.store.plan
        if plan is None:
            return
        try:
            step = plan.step(index)
        except KeyError:
            return
        if step.runs != runs or step.status != "in_progress":
            if step.status == "blocked" and step.runs == runs:
                self._reconcile()  # the run that asked the user has ended: stay blocked
            return  # stale: stopped, retried or replaced since
        if outcome.stopped:
            self._active = False
            self.store.set_step(index, status="failed", failure_reason=outcome.reason or "stopped")
        elif outcome.status == "done":
            self.store.set_step(index, status="done", output_files=list(outcome.output_files),
                                output_summary=cap(outcome.summary, self.summary_chars))
        elif outcome.transient and step.transient_failures < self.transient_retries:
            self.store.set_step(index, status="pending", failure_reason=outcome.reason,
                                transient_failures=step.transient_failures + 1)
        else:
            self.store.set_step(index, status="failed", failure_reason=outcome.reason or "failed",
                                output_summary=cap(outcome.summary, self.summary_chars))
            self._apply_policy(plan, step, outcome.reason or "failed", wake=True)
        self._reconcile()

    def _apply_policy(self, plan: Plan, step: PlanStep, reason: str, *, wake: bool) -> None:
        if plan.state == "aborted":
            return  # a step that was running when the plan ended: recorded, nothing follows
        if step.on_failure == "abort_plan":
            self._abort(plan, f"step {step.index} failed: {reason}")
        elif step.on_failure == "continue":
            self.store.set_step(step.index, status="skipped", failure_reason=reason)
        elif wake and self._active:
            self._wake_commander(step)
        else:  # wake on the next resume
            self.store.set_state(plan.state, sorted({*plan.decisions, step.index}))

    def _wake_commander(self, step: PlanStep) -> None:
        text = (f"Plan step {step.index} ({step.title!r}, assigned to {step.assignee}) failed: "
                f"{step.failure_reason}. Decide what the plan does now: retry_step, skip_step, "
                f"abort_plan or revise_plan (you may also ask the user). Its dependents wait.")
        self._deciding += 1
        self._spawn(lambda: self.runner.run_commander(None, text), None, 0)

    def _drop_decision(self, index: int) -> None:
        plan = self._require()
        if index in plan.decisions:
            self.store.set_state(plan.state, [d for d in plan.decisions if d != index])

    def _abort(self, plan: Plan, reason: str) -> None:
        blocked = [s.model_copy() for s in plan.steps if s.status == "blocked"]
        for s in plan.steps:
            if s.status in ("pending", "blocked"):
                self.store.set_step(s.index, status="skipped", failure_reason=f"plan aborted ({reason})")
        self.store.set_state("aborted", [])
        self._withdraw(blocked, f"the plan was aborted ({reason})")

    def _settle_state(self) -> None:
        plan = self.store.plan
        if plan is None or plan.state == "aborted":
            return
        statuses = {s.status for s in plan.steps}
        if statuses <= {"done", "skipped"}:
            state = "done"
        elif "in_progress" in statuses or self._deciding:
            state = "running"
        elif statuses <= {"done", "skipped", "failed"} and not plan.decisions:
            state = "failed"
        else:
            state = "paused"
        self.store.set_state(state)  # type: ignore[arg-type]

    def _changed(self) -> None:
        if not self._listeners:
            return
        snapshot = self.plan
        assert snapshot is not None
        for listener in list(self._listeners):
            try:
                listener(snapshot)
            except Exception:
                log.exception("a plan listener failed")



def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def answer_text(values: dict[str, Any]) -> str:
    return "\n".join(f"{k}: {v}" for k, v in values.items())
