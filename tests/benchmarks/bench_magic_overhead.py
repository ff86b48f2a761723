"""What the notebook adapter costs before the model is asked anything.

Measures, on this machine, in one run:

1. ``import orkas_nb`` in a fresh interpreter (baseline: ``import asyncio``);
2. ``%load_ext orkas_nb`` in a fresh IPython shell (baseline: ``%load_ext autoreload``, one of
   IPython's own extensions), in a terminal-style shell and in a real kernel; target: < 300 ms;
3. the ``%%agent`` magic's own overhead: from the cell's start to the first model request, for
   the first cell (cold: the engine is imported then) and later cells (warm), with the default
   tools and with ``--no-tools``; baseline: the same turn through ``Agent.arun`` of one Agent
   kept by a script.

Usage: ``python tests/benchmarks/bench_magic_overhead.py [--runs N]``. The machine has 2 shared
cores; figures are noisy, so medians are printed and a quiet re-run is worth doing.
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


def _child(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env=env, cwd=tempfile.gettempdir(), check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


IMPORT = """
import json as _j, sys, time
t = time.perf_counter()
import {module}
print(_j.dumps({{"s": time.perf_counter() - t, "modules": sorted(m for m in sys.modules if m.startswith("orkas_nb"))}}))
"""

LOAD_EXT = """
import json, sys, time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
t = time.perf_counter()
shell.run_line_magic("load_ext", "{ext}")
took = time.perf_counter() - t
heavy = [m for m in ("pydantic", "httpx", "orkas_nb.agent", "orkas_nb.harness.runner", "ipywidgets") if m in sys.modules]
print(json.dumps({{"s": took, "heavy": heavy}}))
"""

OVERHEAD = """
import asyncio, json, os, sys, time, tempfile
from IPython.core.interactiveshell import InteractiveShell
ws = tempfile.mkdtemp()
os.chdir(ws)
stamps = []
def answer(request):
    stamps.append(time.perf_counter())
    return "ok"
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "orkas_nb")
from orkas_nb.testing import ScriptedModel
shell.user_ns["m"] = ScriptedModel(answer)
import io, contextlib
def cell(flags):
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        r = shell.run_cell("%%agent -m $m -s bench " + flags + "\\nhello")
    assert r.success, r.error_in_exec
    return stamps[-1] - t
cold = cell("{flags}")
warm = [cell("{flags}") for _ in range({runs})]
# Baseline: the same turn from a script that keeps one Agent (as a notebook keeps its tools).
from orkas_nb import Agent
from orkas_nb.harness.session import JsonlSession, session_path
agent = Agent(shell.user_ns["m"], workspace=ws, session=JsonlSession(session_path(ws, "direct")),
              default_tools={default_tools})
def direct():
    t = time.perf_counter()
    asyncio.run(agent.arun("hello"))
    return stamps[-1] - t
base = [direct() for _ in range({runs})]
print(json.dumps({{"cold": cold, "warm": warm, "base": base}}))
"""


def _in_kernel() -> float:
    from jupyter_client.manager import KernelManager

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    km = KernelManager(kernel_name="python3")
    km.start_kernel(env=env, cwd=tempfile.gettempdir())
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        lines: list[str] = []
        code = ("import time as _t; _s = _t.perf_counter(); get_ipython().run_line_magic('load_ext', 'orkas_nb'); "
                "print(_t.perf_counter() - _s)")
        kc.execute_interactive(code, timeout=60, output_hook=lambda m: lines.append(m["content"].get("text", "")))
        return float("".join(lines).strip())
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _median(xs: list[float]) -> float:
    return statistics.median(xs)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    n = args.runs
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores (shared: figures are noisy)\n")

    imp = [_child(IMPORT.format(module="orkas_nb"))["s"] for _ in range(n)]
    base = [_child(IMPORT.format(module="asyncio"))["s"] for _ in range(n)]
    mods = _child(IMPORT.format(module="orkas_nb"))["modules"]
    print(f"import orkas_nb      median {_median(imp) * 1000:7.1f} ms  (import asyncio {_median(base) * 1000:.1f} ms; "
          f"ratio {_median(imp) / _median(base):.2f}x); modules loaded: {', '.join(mods)}")

    ours = [_child(LOAD_EXT.format(ext="orkas_nb")) for _ in range(n)]
    theirs = [_child(LOAD_EXT.format(ext="autoreload"))["s"] for _ in range(n)]
    load = _median([o["s"] for o in ours])
    print(f"%load_ext orkas_nb   median {load * 1000:7.1f} ms  (%load_ext autoreload {_median(theirs) * 1000:.1f} ms; "
          f"ratio {load / _median(theirs):.1f}x); target < 300 ms: {'met' if load < 0.3 else 'MISSED'}; "
          f"heavy modules loaded: {ours[0]['heavy'] or 'none'}")

    kernel = [_in_kernel() for _ in range(3)]
    print(f"%load_ext orkas_nb in a real kernel: median {_median(kernel) * 1000:.1f} ms over {len(kernel)} fresh kernels")

    for flags, default_tools in (("", True), ("--no-tools", False)):
        r = _child(OVERHEAD.format(flags=flags, runs=n, default_tools=default_tools))
        warm, direct = _median(r["warm"]), _median(r["base"])
        label = flags or "default tools"
        print(f"%%agent ({label:13}) to first model request: cold {r['cold'] * 1000:6.1f} ms, "
              f"warm median {warm * 1000:5.1f} ms; a script's kept Agent.arun {direct * 1000:5.1f} ms; "
              f"magic overhead {max(0.0, warm - direct) * 1000:5.1f} ms (ratio {warm / direct:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
