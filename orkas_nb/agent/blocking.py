"""``Agent.run_sync`` where an event loop already runs (a notebook cell): the turn on a worker loop.

A notebook kernel runs its cells inside a running event loop, so ``asyncio.run`` refuses. The
turn runs instead on one long-lived event loop of a daemon thread, while the caller's thread
waits. Measured against ``nest_asyncio`` (re-entering the kernel's own loop) in
``tests/benchmarks/bench_run_sync.py``; why this way:

- the kernel interrupt lands on the waiting thread, outside any loop: the wait stops, the run's
  abort signal stops the turn (open calls are closed, the session stays valid), and
  ``KeyboardInterrupt`` reaches the cell as usual. Under nest_asyncio it lands inside the
  kernel's loop mid-turn: the session is left with an unanswered tool call and the agent
  believes it is still running, so every later turn is refused (measured by the benchmark);
- nothing is patched: ``nest_asyncio.apply`` swaps asyncio's C tasks for Python ones (and
  ``asyncio.run``) in the whole kernel for good, and a click during its ``run_until_complete``
  is lost (SPEC §14.1);
- the cost is a thread hop per call (~0.1 ms CPU), nothing next to a model request;
- one loop for every call, so what binds to a loop (an HTTP client's connections) is reused.

The turn runs in a copy of the caller's context (the kernel routes output by context, so what
the run prints lands in this cell). Things that must happen on the caller's thread (``input()``,
printing a notice) are handed to it through :class:`Portal` while it waits.

Approvals: the cell blocks, so a button can never be clicked. Approvers that wait for a click
are replaced for this run (:func:`~orkas_nb.harness.approval.stand_in_for_clicks`) by
:class:`BlockedCellApprover`: it asks through the kernel's ``input()`` when the front end
answers input requests (JupyterLab, classic Notebook), and otherwise (nbclient, nbconvert)
denies at once, telling the user to run ``await agent.arun(...)`` to get the buttons.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import queue
import sys
import threading
import time
from typing import Any, Callable, Coroutine, TypeVar

from ..harness.approval import (
    ApprovalRequest,
    Decision,
    prompt_answer,
    prompt_text,
    stand_in_for_clicks,
)
from ..harness.cancellation import AbortSignal

T = TypeVar("T")

INTERRUPTED = "interrupted by the kernel (KeyboardInterrupt)"
STOP_GRACE_S = 10.0  # how long an interrupted run may take to close its calls before we leave it
_POLL_S = 0.1  # the waiting thread wakes this often, so a signal is handled promptly

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def worker_loop() -> asyncio.AbstractEventLoop:
    """The process's run_sync loop, started on first use on a daemon thread."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def serve() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            threading.Thread(target=serve, name="orkas-run-sync", daemon=True).start()
            ready.wait()
            _loop = loop
        return _loop


_Handed = tuple[Callable[[], Any], concurrent.futures.Future[Any]]


class Portal:
    """Calls the worker hands to the waiting caller's thread (``input()``, a notice)."""

    def __init__(self) -> None:
        # None only wakes the waiting thread (the turn ended).
        self._calls: queue.SimpleQueue[_Handed | None] = queue.SimpleQueue()

    async def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the caller's thread and return its result (from the worker loop)."""
        done: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._calls.put((fn, done))
        return await asyncio.wrap_future(done)

    def serve(self, until: concurrent.futures.Future[Any], timeout_s: float | None = None) -> bool:
        """On the caller's thread: run handed calls until ``until`` is done; False on timeout.

        Waits in short slices so the kernel interrupt (SIGINT → KeyboardInterrupt on this
        thread) is raised here promptly; a call interrupted that way is failed, not left hanging.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        until.add_done_callback(lambda _f: self._calls.put(None))  # wake the wait at once
        while not until.done():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            try:
                handed = self._calls.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            if handed is None:
                continue
            fn, done = handed
            if not done.set_running_or_notify_cancel():
                continue
            try:
                done.set_result(fn())
            except Exception as exc:
                done.set_exception(exc)
            except BaseException:  # the interrupt, inside input(): the asker sees a failure
                done.set_exception(RuntimeError(INTERRUPTED))
                raise
        return True


def _kernel_takes_input() -> bool | None:
    """Whether ``input()`` reaches the user: the kernel's answer for this cell (the front end
    said so in its request), None outside a kernel."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    return bool(getattr(kernel, "_allow_stdin", False))


def _can_prompt() -> bool:
    in_kernel = _kernel_takes_input()
    if in_kernel is not None:
        return in_kernel
    return bool(getattr(sys.stdin, "isatty", lambda: False)())


def denial_notice(request: ApprovalRequest) -> str:
    subject = " ".join(request.subject.split())
    subject = subject if len(subject) <= 120 else subject[:119] + "…"
    what = f"{request.tool or request.kind}, {request.category}"
    return (f"orkas: approval needed ({what}): {subject}\n"
            "  denied: run_sync() blocks this cell, so the approval buttons cannot be clicked and "
            "this front end takes no input().\n"
            "  To answer approvals, run the turn with `await agent.arun(...)` instead.\n")


class BlockedCellApprover:
    """Stands in for click approvers while ``run_sync`` blocks the cell (see the module)."""

    def __init__(self, portal: Portal, *, can_prompt: bool) -> None:
        self.portal = portal
        self.can_prompt = can_prompt

    async def __call__(self, request: ApprovalRequest) -> Decision:
        if self.can_prompt:
            raw = await self.portal.call(lambda: input(prompt_text(request)))
            return prompt_answer(raw)
        await self.portal.call(lambda: _notify(denial_notice(request)))
        return Decision.DENY


def _notify(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def run_blocking(turn: Coroutine[Any, Any, T], abort: AbortSignal) -> T:
    """Run ``turn`` (stopped by ``abort``) on the worker loop while this thread waits.

    The kernel interrupt raises the abort signal, waits (up to :data:`STOP_GRACE_S`) for the turn
    to close its open calls and save them, then re-raises ``KeyboardInterrupt``.
    """
    if asyncio.get_running_loop() is _loop:
        turn.close()
        raise RuntimeError("run_sync() was called from inside a run_sync() turn (a tool?), "
                           "which would wait for itself; use `await agent.arun(...)` there")
    portal = Portal()
    context = contextvars.copy_context()
    context.run(stand_in_for_clicks, BlockedCellApprover(portal, can_prompt=_can_prompt()))
    # run_coroutine_threadsafe schedules in the current context, and the task copies it.
    future = context.run(asyncio.run_coroutine_threadsafe, turn, worker_loop())
    try:
        portal.serve(future)
    except KeyboardInterrupt:
        abort.abort(INTERRUPTED)
        portal.serve(future, timeout_s=STOP_GRACE_S)  # a second interrupt leaves at once
        raise
    return future.result()
