"""A plan view's link to the plan executor: live pictures in, the user's controls out.

The executor (``orkas_nb.team``) owns the plan's state; a view never sets a step's status. A
:class:`PlanControl` subscribes to the executor's state changes and hands every view a fresh
:class:`~.plan_picture.PlanPicture`; a click (answer a form, approve, retry, skip, resume, stop)
becomes one call of the executor's API, so a skip obeys the executor's dependency rules and a
retry re-runs that step only. The rules are the executor's alone (answering a step that asks
nothing, a required field left empty, retrying a step that did not fail): its refusal, a
``ValueError`` with a sentence, is shown in the view, and nothing changed.

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

    def act(self, action: str, index: int, values: dict[str, Any] | None = None) -> Any: ...

    def resume(self) -> Any: ...

    def stop(self) -> Any: ...


def snapshot_of(executor: Any) -> Any:
    """The executor's current plan: ``snapshot()`` when it has one, else its ``plan``."""
    snap = getattr(executor, "snapshot", None)
    if callable(snap):
        return snap()
    plan = getattr(executor, "plan", None)
    return plan() if callable(plan) else plan


def why_not(action: str, step: int | None) -> str | None:
    """Why a request cannot even be put to the executor (None: ask it; it decides)."""
    if action not in (*STEP_ACTIONS, "resume", "stop"):
        return f"unknown action {action!r}"
    if action in STEP_ACTIONS and step is None:
        return f"{action} needs a step"
    return None


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

    def remove_view(self, view: Callable[[PlanPicture], None]) -> None:
        """Stop redrawing ``view`` (a closed widget); the others stay."""
        if view in self._views:
            self._views.remove(view)

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
        refusal = why_not(action, step)
        if refusal is not None:
            report(refusal)
            return refusal
        ex = self.executor
        try:
            if action == "resume":
                result = ex.resume()
            elif action == "stop":
                result = ex.stop()
            else:
                result = ex.act(action, step, values)  # type: ignore[arg-type] # checked above
        except ValueError as exc:  # the executor's refusal: a sentence, nothing changed
            report(str(exc))
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - shown in the view, not raised into the comm
            log.exception("orkas_nb: plan %s failed", action)
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
