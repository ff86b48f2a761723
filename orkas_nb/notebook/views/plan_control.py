"""A plan view's link to the plan executor: live pictures in, the user's controls out.

The executor (``orkas_nb.team``) owns the plan's state; a view never sets a step's status. A
:class:`PlanControl` subscribes to the executor's state changes and hands every view a fresh
:class:`~.plan_picture.PlanPicture`; a click (answer a form, approve, retry, skip, resume, stop)
becomes one call of the executor's API, so a skip obeys the executor's dependency rules and a
retry re-runs that step only. What is plainly not allowed now (answering a step that asks
nothing, a required field left empty, retrying a step that did not fail) is refused here with a
sentence, before the executor is asked; whatever the executor refuses is reported the same way.

The executor's methods may be plain or ``async``: an awaitable result is scheduled on the
running loop (the kernel's), so a click on an idle kernel resumes the plan there.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any, Literal, Protocol

from .plan_picture import PlanPicture, picture

log = logging.getLogger(__name__)

Action = Literal["answer", "approve", "retry", "skip", "resume", "stop"]
STEP_ACTIONS = ("answer", "approve", "retry", "skip")


class PlanExecutorLike(Protocol):
    """What a plan view needs of the executor (``orkas_nb.team``'s plan executor is one)."""

    def subscribe(self, listener: Callable[..., Any]) -> Callable[[], None]: ...

    def answer(self, step: int, values: dict[str, Any]) -> Any: ...

    def retry(self, step: int) -> Any: ...

    def skip(self, step: int) -> Any: ...

    def resume(self) -> Any: ...

    def stop(self) -> Any: ...


def snapshot_of(executor: Any) -> Any:
    """The executor's current plan: ``snapshot()`` when it has one, else its ``plan``."""
    snap = getattr(executor, "snapshot", None)
    if callable(snap):
        return snap()
    plan = getattr(executor, "plan", None)
    return plan() if callable(plan) else plan


def why_not(p: PlanPicture, action: str, step: int | None, values: dict[str, Any]) -> str | None:
    """Why ``action`` makes no sense on the plan as it is drawn now (None: ask the executor)."""
    if action == "resume":
        return None if p.state == "paused" else f"the plan is {p.state}: nothing to resume"
    if action == "stop":
        return None if p.state == "running" else f"the plan is {p.state}: nothing to stop"
    if action not in STEP_ACTIONS:
        return f"unknown action {action!r}"
    if step is None:
        return f"{action} needs a step"
    try:
        s = p.step(step)
    except KeyError as exc:
        return str(exc.args[0])
    if action == "answer":
        if s.status != "blocked" or s.form is None:
            return f"step {step} is not waiting for an answer"
        missing = [f.name for f in s.form.fields
                   if f.required and f.kind != "bool" and values.get(f.name) in (None, "")]
        if missing:
            return f"step {step}: please fill {', '.join(missing)}"
        for f in s.form.fields:
            if f.kind == "choice" and values.get(f.name) not in (None, "", *f.choices):
                return f"step {step}: {values[f.name]!r} is not a choice for {f.name}"
        unknown = sorted(set(values) - {f.name for f in s.form.fields})
        if unknown:
            return f"step {step}: the form has no field {', '.join(unknown)}"
        return None
    if action == "approve":
        return None if s.status == "blocked" and s.form is None else (
            f"step {step} is not waiting for an approval")
    if action == "retry":
        return None if s.status == "failed" else (
            f"only a failed step can be retried (step {step} is {s.status})")
    return None if s.status in ("pending", "blocked", "failed") else (
        f"step {step} is {s.status} and cannot be skipped")


class PlanControl:
    """Binds one executor to its views: see the module docs.

    ``views`` are callables taking a :class:`PlanPicture`; each is called at once with the
    current picture and again after every state change the executor reports.
    """

    def __init__(self, executor: PlanExecutorLike) -> None:
        self.executor = executor
        self.current = picture(snapshot_of(executor))
        self._views: list[Callable[[PlanPicture], None]] = []
        self._tasks: set[asyncio.Future[Any]] = set()
        self._unsubscribe: Callable[[], None] | None = executor.subscribe(self._changed)

    def add_view(self, view: Callable[[PlanPicture], None]) -> None:
        self._views.append(view)
        view(self.current)

    def _changed(self, *args: Any, **_kwargs: Any) -> None:
        # The listener may get the new plan or nothing: a plan-like argument is used, else the
        # executor is asked for a snapshot.
        plan = next((a for a in args if hasattr(a, "steps") or isinstance(a, dict)), None)
        try:
            self.current = picture(plan if plan is not None else snapshot_of(self.executor))
        except Exception:  # noqa: BLE001 - a view must never break the executor that notifies it
            log.exception("orkas_nb: cannot draw the plan's new state")
            return
        for view in list(self._views):
            try:
                view(self.current)
            except Exception:  # noqa: BLE001 - one broken view does not stop the others
                log.exception("orkas_nb: a plan view failed to redraw")

    def act(self, action: str, step: int | None = None, values: dict[str, Any] | None = None,
            on_error: Callable[[str], None] | None = None) -> str | None:
        """Do what the user asked; returns why not (also passed to ``on_error``), or None."""
        values = dict(values or {})
        report = on_error or (lambda message: None)
        refusal = why_not(self.current, action, step, values)
        if refusal is not None:
            report(refusal)
            return refusal
        ex = self.executor
        calls: dict[str, Callable[[], Any]] = {
            "answer": lambda: ex.answer(step, values),  # type: ignore[arg-type]
            "approve": lambda: ex.answer(step, {}),  # type: ignore[arg-type] # an empty answer
            "retry": lambda: ex.retry(step),  # type: ignore[arg-type]
            "skip": lambda: ex.skip(step),  # type: ignore[arg-type]
            "resume": ex.resume,
            "stop": ex.stop,
        }
        try:
            result = calls[action]()
        except Exception as exc:  # noqa: BLE001 - the executor's refusal, shown in the view
            message = f"{action} failed: {exc}"
            report(message)
            return message
        if inspect.isawaitable(result):
            self._schedule(action, result, report)
        return None

    def _schedule(self, action: str, awaitable: Any, report: Callable[[str], None]) -> None:
        task = asyncio.ensure_future(awaitable)
        self._tasks.add(task)

        def done(t: asyncio.Future[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                report(f"{action} failed: {t.exception()}")

        task.add_done_callback(done)

    async def settle(self) -> None:
        """Wait for the work the user's clicks started (tests, and a cell that waits)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._views.clear()


__all__ = ["Action", "PlanControl", "PlanExecutorLike", "snapshot_of", "why_not"]
