"""What the memory guard's learned layer adds to a scan, as ratios measured in the same run.

    PYTHONPATH=$PWD python tests/benchmarks/bench_guard.py [--n 200]

- the learned score alone (:func:`orkas_nb.memory.guard_learned.Model.score`) on a 2 KB entry
  and on a short one, in µs;
- ``scan`` with the learned layer against ``detector_verdict`` (the detectors alone) on
  corpus entries: the extra cost per scan and the ratio;
- the first scan of a process, which loads the weights.

The machine has 2 cores shared with other work; figures are noisy, ratios less so.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from orkas_nb.memory import guard_learned  # noqa: E402
from orkas_nb.memory.guard import detector_verdict, normalise, scan  # noqa: E402

DATA = ROOT / "tests" / "data" / "memory_guard"


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
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--entries", type=int, default=60)
    args = ap.parse_args()
    model = guard_learned.model()
    if model is None:
        raise SystemExit("no learned model shipped (orkas_nb/memory/data/guard_model.npz)")
    texts = [json.loads(line)["text"] for line in (DATA / "blind4.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    long = normalise(" ".join(texts))[:2048]
    short = normalise(texts[0])
    for name, flat in (("2 KB entry", long), (f"{len(short)}-char entry", short)):
        print(f"learned score, {name}: {timed(lambda flat=flat: model.score(flat), args.n) * 1e6:.0f} µs")
    sample = texts[: args.entries]
    base = full = 0.0
    for t in sample:  # interleaved, so that the load of the machine drifts over both alike
        pairs = [(timed(lambda t=t: detector_verdict(t), 1), timed(lambda t=t: scan(t), 1))
                 for _ in range(5)]
        base += statistics.median(b for b, _ in pairs) / len(sample)
        full += statistics.median(f for _, f in pairs) / len(sample)
    print(f"scan, detectors alone: {base * 1e3:.2f} ms; with the learned layer: {full * 1e3:.2f} ms "
          f"(+{(full - base) * 1e6:.0f} µs, x{full / base:.3f}) over {len(sample)} blind4 entries")
    code = ("import time; t=time.perf_counter(); from orkas_nb.memory.guard import scan; scan('x'); "
            "a=time.perf_counter()-t; t=time.perf_counter(); scan('user prefers tabs'); "
            "print(a, time.perf_counter()-t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT)}).stdout.split()
    print(f"first scan of a process (import + weights): {float(out[0]) * 1e3:.0f} ms; "
          f"the next: {float(out[1]) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
