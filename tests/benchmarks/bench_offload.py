"""run_blocking against asyncio.to_thread, measured in the same run (ratios, not absolutes).

    python tests/benchmarks/bench_offload.py [--calls 2000] [--rounds 5]

- quick call: wall and CPU time per ``await run_blocking(int, "1")`` and per
  ``await asyncio.to_thread(int, "1")`` (the baseline), rounds interleaved so drift falls on both;
- grace hits: the share of quick calls that end inside the grace, without a loop future;
- cancel: time from ``task.cancel()`` to the ``CancelledError`` for a call blocked in its thread;
- batch: wall time of four 0.3 s calls gathered with a 0.1 s grace against four ``to_thread``
  calls (one grace for the batch is ~1.33x, a grace each would be ~2.33x).

The machine has 2 cores shared with other work; figures are noisy, ratios less so.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from orkas_nb.harness import offload  # noqa: E402
from orkas_nb.harness.offload import run_blocking  # noqa: E402

Hop = Callable[..., Awaitable[Any]]


async def _quick(hop: Hop, calls: int) -> tuple[float, float]:
    """(wall us, CPU us) per quick call through ``hop``."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        await hop(int, "1")
    return ((time.perf_counter() - wall) / calls * 1e6, (time.process_time() - cpu) / calls * 1e6)


async def _grace_hits(calls: int) -> float:
    loop = asyncio.get_running_loop()
    original, created = loop.create_future, 0

    def counting() -> asyncio.Future:
        nonlocal created
        created += 1
        return original()

    loop.create_future = counting  # type: ignore[method-assign]
    try:
        for _ in range(calls):
            await run_blocking(int, "1")
    finally:
        loop.create_future = original  # type: ignore[method-assign]
    return 1 - created / calls


async def _cancel(hop: Hop) -> float:
    """Seconds from cancel() to CancelledError for a call that is still blocked."""
    release = threading.Event()
    task = asyncio.ensure_future(hop(release.wait, 5))
    await asyncio.sleep(0.02)
    started = time.perf_counter()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    waited = time.perf_counter() - started
    release.set()
    return waited


async def _batch(hop: Hop) -> float:
    started = time.perf_counter()
    await asyncio.gather(*(hop(time.sleep, 0.3) for _ in range(4)))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    hops: dict[str, Hop] = {"to_thread": asyncio.to_thread, "run_blocking": run_blocking}

    async def measure() -> None:
        quick: dict[str, list[tuple[float, float]]] = {name: [] for name in hops}
        for _ in range(args.rounds):
            for name, hop in hops.items():
                quick[name].append(await _quick(hop, args.calls))
        hits = [await _grace_hits(args.calls) for _ in range(args.rounds)]
        cancel = {name: statistics.median([await _cancel(hop) for _ in range(args.rounds)])
                  for name, hop in hops.items()}
        grace = offload.GRACE_S
        offload.GRACE_S = 0.1  # a long grace, to see how often the batch pays it
        try:
            batch = {name: await _batch(hop) for name, hop in hops.items()}
        finally:
            offload.GRACE_S = grace

        base_wall = statistics.median(w for w, _ in quick["to_thread"])
        base_cpu = statistics.median(c for _, c in quick["to_thread"])
        print(f"quick call, median of {args.rounds} rounds of {args.calls} (ratio to asyncio.to_thread)")
        for name in hops:
            wall = statistics.median(w for w, _ in quick[name])
            cpu = statistics.median(c for _, c in quick[name])
            print(f"  {name:13s} wall {wall:7.1f} us ({wall / base_wall:4.2f}x)   "
                  f"CPU {cpu:7.1f} us ({cpu / base_cpu:4.2f}x)")
        print(f"grace hits (quick calls with no loop future, grace {grace * 1e3:.1f} ms): "
              f"median {statistics.median(hits):.0%}, worst {min(hits):.0%}")
        print("cancel to CancelledError: " + ", ".join(f"{n} {s * 1e3:.2f} ms" for n, s in cancel.items()))
        ratio = batch["run_blocking"] / batch["to_thread"]
        print(f"batch of four 0.3 s calls, grace 0.1 s: run_blocking {batch['run_blocking']:.3f} s, "
              f"to_thread {batch['to_thread']:.3f} s ({ratio:.2f}x; one grace ~1.33x, one each ~2.33x)")

    asyncio.run(measure())


if __name__ == "__main__":
    main()
