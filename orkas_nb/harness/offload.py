"""Blocking calls run off the event loop, at a fraction of ``asyncio.to_thread``'s cost.

Sync tools run in a worker thread so a slow one cannot hold Stop or the other tools. Through
``asyncio.to_thread`` that hop cost ~120 us of CPU per call on the 2-core test machine (an
executor future built on condition variables, a wrapped asyncio future, and a wake-up of the
loop through its self-pipe): a sixth of a bare model request, paid at every tool step. Here a
job goes to an idle worker through a ``SimpleQueue`` and, when no other call is pending, the
loop first waits a short grace (``GRACE_S``) on a plain lock: most tool calls finish inside it and the loop goes on without
a self-pipe round trip (~60 us). A call that outlasts the grace is awaited like any future, so
cancellation (Stop) lands at once; the abandoned call finishes in its thread and its result is
dropped, as with ``to_thread``.

Workers are daemon threads, started on demand up to ``MAX_WORKERS`` and kept: a call still
running when the interpreter exits is not waited for (``asyncio.run`` would wait for
``to_thread``'s), which is what a stopped run wants.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any, TypeVar

T = TypeVar("T")

GRACE_S = 0.001  # the loop is held at most this long per call; Stop's bound is a second
MAX_WORKERS = 32  # as many calls at once as the widest read-only batch is likely to be


class _Job:
    __slots__ = ("call", "done", "finished", "guard", "ok", "on_done", "value")

    def __init__(self, call: Callable[[], Any]) -> None:
        self.call = call
        self.done = threading.Lock()
        self.done.acquire()  # released by the worker when the result is in
        self.guard = threading.Lock()  # orders `finished` against the loop's `on_done`
        self.finished = False
        self.ok = False
        self.value: Any = None
        self.on_done: Callable[[], None] | None = None

    def run(self) -> None:
        try:
            self.value, self.ok = self.call(), True
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task, as to_thread does
            self.value = exc

    def signal(self) -> None:
        with self.guard:
            self.finished = True
            on_done = self.on_done
        self.done.release()
        if on_done is not None:
            on_done()

    def result(self) -> Any:
        if self.ok:
            return self.value
        raise self.value


class _Workers:
    def __init__(self) -> None:
        self._jobs: SimpleQueue[_Job] = SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._threads = 0
        self._pending = 0  # submitted and not finished

    def submit(self, job: _Job) -> int:
        """Queue a job; returns how many others were pending (a batch is running)."""
        with self._lock:
            others = self._pending
            self._pending += 1
            if self._idle:
                self._idle -= 1
            elif self._threads < MAX_WORKERS:
                self._threads += 1
                threading.Thread(target=self._work, name="orkas-offload", daemon=True).start()
        self._jobs.put(job)
        return others

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            job.run()
            # Counted idle before the waiting loop is woken, so its next call finds this
            # worker instead of starting another; the wake-up is the last thing done.
            with self._lock:
                self._idle += 1
                self._pending -= 1
            job.signal()
            del job  # do not keep the last result alive while idle


_workers = _Workers()


def _reset_after_fork() -> None:
    # A forked child has none of its parent's threads: start over, or jobs would queue forever.
    global _workers
    _workers = _Workers()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


async def run_blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``await asyncio.to_thread(fn, *args, **kwargs)``, cheaper; context variables carry over."""
    context = contextvars.copy_context()
    job = _Job(lambda: context.run(fn, *args, **kwargs))
    # The grace is for a call on its own: one submitted while others are pending (a batch of
    # read-only tools) goes straight to the await, so a batch holds the loop one grace at most.
    alone = _workers.submit(job) == 0
    if job.done.acquire(timeout=GRACE_S) if alone else job.done.acquire(blocking=False):
        return job.result()  # type: ignore[no-any-return]
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()

    def wake() -> None:
        if not waiter.done():
            waiter.set_result(None)

    def on_done() -> None:
        try:
            loop.call_soon_threadsafe(wake)
        except RuntimeError:  # the loop is gone: nobody waits for this result any more
            pass

    with job.guard:
        finished = job.finished
        if not finished:
            job.on_done = on_done
    if not finished:
        await waiter
    return job.result()  # type: ignore[no-any-return]
