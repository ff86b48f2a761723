"""Costs the workspace tools add, as ratios to a baseline measured in the same run.

    python tests/benchmarks/bench_tools.py [--files N]

- bash: one trivial command through the executor (grading + env + process group + kill), in
  degraded mode and in bubblewrap, against a bare ``subprocess.run(["bash", "-c", "true"])``;
- grading: ``risk.grade`` of a typical pipeline against ``shlex.split`` of it;
- read_file: the policy + descriptor-walk read of a 100 KB file against ``Path.read_text``;
- the sandbox's per-call scan of a workspace of N files (secret and hard-link masks).

The machine has 2 cores shared with other work; figures are noisy, ratios less so.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from orkas_nb.harness.cancellation import AbortSignal  # noqa: E402
from orkas_nb.harness.tool_protocol import ToolContext  # noqa: E402
from orkas_nb.tools import default_tools, isolation_status  # noqa: E402
from orkas_nb.tools.paths import PathPolicy  # noqa: E402
from orkas_nb.tools.risk import Context, grade  # noqa: E402
from orkas_nb.tools.sandbox import scan_masked  # noqa: E402


def timed(fn, n: int) -> float:
    """Median seconds per call over ``n`` calls."""
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--n", type=int, default=30)
    args = ap.parse_args()
    ws = Path(tempfile.mkdtemp(prefix="bench-ws-"))
    (ws / "data.txt").write_text("x" * 100_000)
    ctx = ToolContext(workspace=ws, abort=AbortSignal())
    loop = asyncio.new_event_loop()

    def run_tool(tools, name, **kw):
        t = tools[name]
        return loop.run_until_complete(t.execute(t.validate(kw), ctx))

    base = timed(lambda: subprocess.run(["bash", "-c", "true"], check=True), args.n)
    print(f"bash baseline subprocess.run: {base * 1000:.1f} ms")
    for label, settings in (("degraded", {"isolation": "off"}),
                            ("bubblewrap", {"isolation": "bubblewrap"}),
                            ("bubblewrap + network", {"isolation": "bubblewrap", "network": True})):
        if settings["isolation"] == "bubblewrap" and not isolation_status().isolated:
            print(f"bash {label}: skipped (unavailable)")
            continue
        tools = {t.name: t for t in default_tools(ws, settings=settings)}
        cost = timed(lambda: run_tool(tools, "bash", command="true"), args.n)  # noqa: B023
        print(f"bash executor ({label}): {cost * 1000:.1f} ms  ({cost / base:.1f}x baseline)")

    command = "grep -rn 'TODO' src | sort | uniq -c | head -20 > todo.txt && wc -l todo.txt"
    policy = PathPolicy(ws)
    gctx = Context(policy=policy, env={"HOME": "/root", "PATH": "/usr/bin"}, cwd=ws,
                   isolated=False, network=False)
    b = timed(lambda: shlex.split(command), 2000)
    g = timed(lambda: grade(command, gctx), 500)
    print(f"grade (degraded rules): {g * 1e6:.0f} us  ({g / b:.0f}x shlex.split at {b * 1e6:.1f} us)")

    tools = {t.name: t for t in default_tools(ws, settings={"isolation": "off"})}
    b = timed(lambda: (ws / "data.txt").read_text(), 200)
    r = timed(lambda: run_tool(tools, "read_file", path="data.txt", limit=200_000), 200)
    print(f"read_file 100 KB: {r * 1e6:.0f} us  ({r / b:.1f}x Path.read_text at {b * 1e6:.0f} us)")

    big = Path(tempfile.mkdtemp(prefix="bench-scan-"))
    for i in range(args.files):
        d = big / f"d{i % 50}"
        d.mkdir(exist_ok=True)
        (d / f"f{i}.py").write_text("x")
    time.sleep(2.1)  # past the window in which a just-changed folder is always listed again
    w = timed(lambda: sum(1 for _ in big.rglob("*")), 5)
    cold = timed(lambda: scan_masked(big), 1)
    warm = timed(lambda: scan_masked(big), 5)
    print(f"sandbox mask scan of {args.files} files: first {cold * 1000:.1f} ms "
          f"({cold / w:.1f}x a bare rglob at {w * 1000:.1f} ms), then {warm * 1000:.2f} ms per "
          f"bash call ({warm / w:.3f}x)")


if __name__ == "__main__":
    main()
