"""run_blocking: the worker-thread hop sync tools take, on real threads."""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time

import pytest

from orkas_nb.harness import offload
from orkas_nb.harness.offload import run_blocking

REQUEST = contextvars.ContextVar("REQUEST", default="unset")


def test_returns_the_value_and_runs_off_the_loop_thread() -> None:
    async def main() -> tuple[int, int]:
        loop_thread = threading.get_ident()
        value, worker = await run_blocking(lambda a, b: (a + b, threading.get_ident()), 2, b=3)
        return value, worker != loop_thread

    assert asyncio.run(main()) == (5, True)


def test_a_call_that_outlasts_the_grace_is_awaited_without_holding_the_loop() -> None:
    ticked = threading.Event()

    def slow() -> str:
        # Ends only once the loop has run other tasks: a held loop would never tick.
        return "slow" if ticked.wait(30) else "the loop was held"

    async def main() -> str:
        async def ticker() -> None:
            for _ in range(3):
                await asyncio.sleep(0)
            ticked.set()

        task = asyncio.ensure_future(ticker())
        result = await run_blocking(slow)
        await task
        return result

    assert asyncio.run(main()) == "slow"


def test_exceptions_reach_the_awaiting_task() -> None:
    def fail() -> None:
        raise ValueError("bad input")

    async def main() -> None:
        await run_blocking(fail)

    with pytest.raises(ValueError, match="bad input"):
        asyncio.run(main())

    def slow_fail() -> None:
        time.sleep(0.05)
        raise KeyError("late")

    with pytest.raises(KeyError, match="late"):
        asyncio.run(run_blocking(slow_fail))


def test_context_variables_carry_into_the_worker() -> None:
    async def main() -> str:
        REQUEST.set("req-7")
        return await run_blocking(REQUEST.get)

    assert asyncio.run(main()) == "req-7"


def test_cancelling_returns_at_once_and_the_abandoned_call_finishes_alone() -> None:
    release, finished = threading.Event(), threading.Event()

    def long_call() -> str:
        release.wait(30)  # far past the test: set at its end
        finished.set()
        return "ignored"

    async def main() -> float:
        task = asyncio.ensure_future(run_blocking(long_call))
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.perf_counter() - started

    waited = asyncio.run(main())
    assert not finished.is_set(), "cancelling should not wait for the call"
    assert waited < 1.0  # Stop's bound, as a user feels it (the cost is measured in bench_offload)
    release.set()
    assert finished.wait(30), "the abandoned call should still run to its end in its thread"


def test_a_batch_holds_the_loop_one_grace_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    graces: list[float] = []

    class Watched:
        """The job's done-lock, counting the waits that hold the loop (a grace)."""

        def __init__(self, lock: threading.Lock) -> None:
            self.lock = lock

        def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
            if blocking and timeout > 0:
                graces.append(timeout)
            return self.lock.acquire(blocking, timeout)

        def release(self) -> None:
            self.lock.release()

    class Job(offload._Job):
        __slots__ = ()

        def __init__(self, call) -> None:
            super().__init__(call)
            self.done = Watched(self.done)  # type: ignore[assignment]

    monkeypatch.setattr(offload, "_Job", Job)
    barrier = threading.Barrier(4, timeout=5)  # all four pending at once, or BrokenBarrierError

    async def main() -> list[int]:
        return list(await asyncio.gather(*(run_blocking(lambda i=i: barrier.wait() * 0 + i) for i in range(4))))

    # The first call waits its grace; the three submitted while it is pending go straight to the
    # await. How long the loop is held is measured in tests/benchmarks/bench_offload.py.
    assert asyncio.run(main()) == [0, 1, 2, 3]
    assert graces == [offload.GRACE_S]


def test_concurrent_calls_run_in_parallel() -> None:
    barrier = threading.Barrier(4, timeout=5)

    def meet(i: int) -> int:
        barrier.wait()  # deadlocks (BrokenBarrierError after 5 s) unless all four run at once
        return i

    async def main() -> list[int]:
        return list(await asyncio.gather(*(run_blocking(meet, i) for i in range(4))))

    assert asyncio.run(main()) == [0, 1, 2, 3]


def test_sequential_calls_reuse_idle_workers() -> None:
    def workers() -> int:
        return sum(t.name == "orkas-offload" for t in threading.enumerate())

    async def main() -> None:
        for _ in range(50):
            await run_blocking(threading.get_ident)

    asyncio.run(main())
    before = workers()
    asyncio.run(main())
    assert workers() == before >= 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_starts_its_own_workers() -> None:
    asyncio.run(run_blocking(lambda: None))  # the parent has a worker now
    pid = os.fork()
    if pid == 0:  # the child: the parent's worker thread does not exist here
        code = 1
        try:
            code = 0 if asyncio.run(asyncio.wait_for(run_blocking(lambda: 42), 5)) == 42 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_quick_calls_finish_inside_the_grace_without_a_loop_future(monkeypatch: pytest.MonkeyPatch) -> None:
    # The grace path completes without a loop future, which is what saves the self-pipe round
    # trip. A grace of a second makes that certain however loaded the machine; how often the
    # real 1 ms grace is enough is measured in tests/benchmarks/bench_offload.py.
    assert offload.GRACE_S <= 0.005  # the most the loop is held per call
    monkeypatch.setattr(offload, "GRACE_S", 1.0)
    created = 0

    deadline = time.monotonic() + 5
    while offload._workers._pending and time.monotonic() < deadline:  # calls left by other tests
        time.sleep(0.01)

    async def main() -> list[int]:
        nonlocal created
        loop = asyncio.get_running_loop()
        original = loop.create_future

        def counting() -> asyncio.Future:
            nonlocal created
            created += 1
            return original()

        loop.create_future = counting  # type: ignore[method-assign]
        return [await run_blocking(int, "1") for _ in range(20)]

    assert asyncio.run(main()) == [1] * 20
    assert created == 0, "a call that ends inside the grace should need no loop future"
