"""``agent.run_sync()`` inside a running event loop (a notebook cell): worker loop vs nest_asyncio.

A kernel runs each cell inside its event loop, so a synchronous ``run_sync`` must either
re-enter that loop (``nest_asyncio.apply()`` + ``loop.run_until_complete``) or run the turn on
another thread's loop while the cell waits (what ``orkas_nb.agent.blocking`` does). Each
variant runs in its own process (nest_asyncio patches asyncio for the whole process, for good),
inside ``asyncio.run`` (the running loop), one Agent kept across calls:

    await        ``await agent.arun()`` on the running loop: the floor (a top-level-await cell)
    worker       ``agent.run_sync()``: the turn on the worker thread's loop
    nest         ``nest_asyncio.apply()`` then ``loop.run_until_complete(agent.arun())``
    await+nest   ``await agent.arun()`` in a process where nest_asyncio was applied: what the
                 patch costs every later await of the kernel, run_sync or not

Workloads: ``tiny`` (one scripted text reply: the fixed cost of a call), ``loop`` (a scripted
8-step tool loop, 20 text chunks: the per-await cost), ``http`` (a 4-step tool loop streamed
over loopback HTTP from tests/fakes/model_server.py in its own process, so its CPU is not
counted). Per call: wall latency and process CPU (user+sys, all threads), medians over the
calls after a warm-up; the variants take turns over --rounds rounds so drift falls on all.
The machine is small and shared: compare ratios measured in the same run. nest_asyncio is
not a dependency of orkas_nb; install it to measure its variants (skipped, and said so, without).

Then, in a real kernel (``--no-kernel`` skips it), what the kernel interrupt leaves behind when
it lands during a tool call of each sync variant: how long the cell took to stop, whether the
session's last tool call got its result (pairing), whether the agent still counts as running,
and whether the next turn runs.

    python tests/benchmarks/bench_run_sync.py [--calls 60] [--rounds 3] [--only worker,nest]
        [--workloads tiny,loop,http] [--no-kernel]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VARIANTS = ("await", "worker", "nest", "await+nest")
WORKLOADS = ("tiny", "loop", "http")

CHILD = r'''
import asyncio, json, sys, tempfile, time
variant, workload, calls, url = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
from orkas_nb import Agent, tool
from orkas_nb.testing import ScriptedModel, reply, call

@tool
def lookup(path: str) -> str:
    """Describe a file.

    Args:
        path: the file
    """
    return f"{path}: 3 lines"

def script(n_calls):
    steps = 8 if workload == "loop" else 0
    turn = [reply("", call("lookup", path=f"n{i}.txt")) for i in range(steps)]
    turn.append(reply("The notes say nothing new. " * 6, chunk_chars=8))
    return turn * n_calls

ws = tempfile.mkdtemp()
if workload == "http":
    from orkas_nb.providers.openai_chat import OpenAIChatProvider
    from orkas_nb.providers.auth import StaticKey
    model = OpenAIChatProvider(base_url=url, token_source=StaticKey("sk-bench"))
    agent = Agent(model, model_name="loop-4", workspace=ws, default_tools=False, tools=[lookup])
else:
    agent = Agent(ScriptedModel(script(calls + 3)), workspace=ws, default_tools=False,
                  tools=[lookup])

if variant in ("nest", "await+nest"):
    import nest_asyncio

def one_sync(loop):
    if variant == "worker":
        return agent.run_sync("go")
    return loop.run_until_complete(agent.arun("go"))

async def main():
    loop = asyncio.get_running_loop()
    if variant in ("nest", "await+nest"):
        nest_asyncio.apply(loop)
    out = []
    for i in range(calls + 2):  # two warm-up calls
        w, c = time.perf_counter(), time.process_time()
        if variant in ("await", "await+nest"):
            result = await agent.arun("go")
        else:
            result = one_sync(loop)
        w, c = time.perf_counter() - w, time.process_time() - c
        assert result.ok, result
        if i >= 2:
            out.append((w, c))
    return out

print(json.dumps(asyncio.run(main())))
'''


def _env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path)


def _child(variant: str, workload: str, calls: int, url: str) -> list[tuple[float, float]]:
    argv = [sys.executable, "-c", textwrap.dedent(CHILD), variant, workload, str(calls), url]
    out = subprocess.run(argv, capture_output=True, text=True, env=_env(),
                         cwd=tempfile.gettempdir())
    if out.returncode != 0:
        raise RuntimeError(f"{variant}/{workload} failed:\n{out.stderr[-2000:]}")
    return [tuple(x) for x in json.loads(out.stdout.strip().splitlines()[-1])]


def _server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.model_server"],
                            stdout=subprocess.PIPE, text=True, env=_env(), cwd=str(REPO))
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip() + "/v1"


KERNEL_SETUP = r'''
import asyncio
from orkas_nb import Agent, tool
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.testing import ScriptedModel, reply, call

@tool
async def slow(seconds: float = 120.0) -> str:
    """Wait, then answer.

    Args:
        seconds: how long to wait
    """
    print("slow started", flush=True)
    await asyncio.sleep(seconds)
    return "waited"

def fresh():
    return Agent(ScriptedModel([reply("", call("slow")), reply("after")]), workspace=".",
                 default_tools=False, tools=[slow])

def next_turn(agent):
    try:
        return agent.run_sync("go on").text
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
'''

SYNC_CALL = {
    "worker": 'a.run_sync("wait")',
    "nest": ('import nest_asyncio; nest_asyncio.apply()\n'
             'asyncio.get_event_loop().run_until_complete(a.arun("wait"))'),
}
REPORT = ('import json; print(json.dumps({"pairing_ok": not pairing_problems(a.messages), '
          '"running": a.runner.running, "next_turn": next_turn(a)}))')


def interrupt_in_a_kernel(variant: str) -> dict[str, object]:
    """Interrupt the kernel during a tool call of ``variant``'s sync call; what is left."""
    import time

    sys.path.insert(0, str(REPO))
    from tests.notebook.kernel import Kernel

    with Kernel(tempfile.mkdtemp()) as k:
        k.run(KERNEL_SETUP + "\na = fresh()")
        cell = k.send(SYNC_CALL[variant])
        k.pump(lambda: "slow started" in cell.stream(), 60, "the tool to start")
        start = time.monotonic()
        k.km.interrupt_kernel()
        k.pump(lambda: cell.done, 60, "the interrupted cell")
        took = time.monotonic() - start
        after = json.loads(k.run(REPORT, timeout=60).stream().strip().splitlines()[-1])
        return {"stopped_s": took, "error": (cell.error or {}).get("ename"), **after}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=60, help="timed calls per variant and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=",".join(VARIANTS))
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--no-kernel", action="store_true", help="skip the kernel interrupt check")
    args = parser.parse_args()
    variants = [v for v in args.only.split(",") if v]
    try:
        import nest_asyncio  # noqa: F401 - not a dependency: only this comparison needs it
    except ImportError:
        print("nest_asyncio is not installed (pip install nest_asyncio): its variants are skipped")
        variants = [v for v in variants if "nest" not in v]
    workloads = [w for w in args.workloads.split(",") if w]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores (shared: figures are noisy)")
    server, url = _server()
    try:
        for workload in workloads:
            samples: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
            for _ in range(args.rounds):
                for v in variants:
                    samples[v] += _child(v, workload, args.calls, url)
            floor = samples.get("await")
            base_w = statistics.median(w for w, _ in floor) if floor else None
            base_c = statistics.median(c for _, c in floor) if floor else None
            print(f"\n{workload}: {args.calls} calls x {args.rounds} rounds per variant; "
                  "median per call")
            for v in variants:
                w = statistics.median(x for x, _ in samples[v])
                c = statistics.median(x for _, x in samples[v])
                ratio = (f"  ({w / base_w:4.2f}x / {c / base_c:4.2f}x of await)"
                         if base_w and base_c and v != "await" else "")
                print(f"  {v:11} wall {w * 1000:7.2f} ms   cpu {c * 1000:7.2f} ms{ratio}")
    finally:
        server.terminate()
        server.wait(timeout=10)
    if not args.no_kernel:
        print("\nkernel interrupt during a tool call of the sync call:")
        for v in (v for v in ("worker", "nest") if v in variants):
            r = interrupt_in_a_kernel(v)
            pairing = "ok" if r["pairing_ok"] else "BROKEN"
            print(f"  {v:11} cell stopped in {r['stopped_s']:.2f} s ({r['error']}); session "
                  f"pairing {pairing}; agent still running: {r['running']}; "
                  f"next turn: {r['next_turn']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
