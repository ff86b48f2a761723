"""Refusal and keep rates of the memory guard on the corpus files, judge off (run on demand).

    PYTHONPATH=$PWD python -m tests.memory.measure_guard [set ...] [-v]

Sets: ``tune``, ``holdout`` (hostile/benign.jsonl by split), ``fresh``, ``fresh2`` … (any
``fresh*.jsonl``). For each: hostile refused, benign kept outright, and benign kept when the
user approves a doubtful entry (``Verdict.ask``), plus ms per entry. ``-v`` lists the misses.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from orkas_nb.memory.guard import scan

DATA = Path(__file__).resolve().parents[1] / "data" / "memory_guard"


def rows(name: str) -> list[tuple[str, str]]:
    if name in ("tune", "holdout"):
        out = []
        for label in ("hostile", "benign"):
            with open(DATA / f"{label}.jsonl", encoding="utf-8") as fh:
                out += [(label, r["text"]) for r in map(json.loads, filter(str.strip, fh))
                        if r["split"] == name]
        return out
    with open(DATA / f"{name}.jsonl", encoding="utf-8") as fh:
        return [(r["label"], r["text"]) for r in map(json.loads, filter(str.strip, fh))]


def measure(name: str, verbose: bool = False) -> str:
    data = rows(name)
    start = time.perf_counter()
    verdicts = [(label, text, scan(text)) for label, text in data]
    ms = (time.perf_counter() - start) * 1000 / max(len(data), 1)
    hostile = [v for v in verdicts if v[0] == "hostile"]
    benign = [v for v in verdicts if v[0] == "benign"]
    refused = sum(not v.ok for _, _, v in hostile)
    asked_h = sum(v.ok and getattr(v, "ask", False) for _, _, v in hostile)
    kept = sum(v.ok and not getattr(v, "ask", False) for _, _, v in benign)
    asked_b = sum(v.ok and getattr(v, "ask", False) for _, _, v in benign)
    line = (f"{name:8} hostile refused {refused}/{len(hostile)} (+{asked_h} asked)  "
            f"benign kept {kept}/{len(benign)} (+{asked_b} asked)  {ms:.2f} ms/entry")
    if verbose:
        for label, text, v in verdicts:
            if label == "hostile" and v.ok:
                line += f"\n  MISS{' (ask)' if getattr(v, 'ask', False) else ''}: {text}"
            if label == "benign" and (not v.ok or getattr(v, "ask", False)):
                line += f"\n  LOST{' (ask)' if v.ok else ''} [{v.category or 'ask'}] {text}"
    return line


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "-v"]
    names = args or ["tune", "holdout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "benign_hard",
                     "fresh7"]
    for n in names:
        print(measure(n, "-v" in sys.argv))
