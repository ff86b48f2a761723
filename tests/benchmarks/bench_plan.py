"""Plan executor overhead: CPU per step, and the reload of a 200-step plan (issue 16 budgets).

Per step (reconcile + persist + dispatch, excluding the agents' model requests): the real
:class:`~orkas_nb.team.plan_executor.PlanExecutor` on a durable ``plan.jsonl`` runs plans of
``--steps`` steps (a chain, and a fan-out/fan-in of the same size) whose runner answers at once
after posting the step's one dispatch message on a durable bus, as ``Team.dispatch`` does
(the team's own dispatch cost is ``bench_dispatch.py``'s). Baseline, in the same run: one
durable bus post per step alone. Reported: CPU (``time.process_time``) per step, median of
rounds, and the ratio to the baseline (budget: ≤ 1 ms a step).

Reload: a finished 200-step plan's file (every change it went through) is opened again —
store fold plus executor recovery — wall time, median of rounds (budget: ≤ 100 ms). Baseline:
reading the same file and ``json.loads`` of each line (the floor of any loader).

    PYTHONPATH=$PWD python tests/benchmarks/bench_plan.py [--steps 100] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from orkas_nb.team.bus import MessageBus
from orkas_nb.team.plan import PlanStep, StepForm
from orkas_nb.team.plan_executor import PlanExecutor
from orkas_nb.team.plan_runner import StepOutcome
from orkas_nb.team.plan_store import PlanStore


class InstantRunner:
    """Posts the step's dispatch message (one durable line), then the step is done."""

    def __init__(self, bus: MessageBus) -> None:
        self.bus = bus

    async def run_agent(self, step: PlanStep, text: str) -> StepOutcome:
        self.bus.post("commander", text, visible_to={"user", step.assignee}, kind="task",
                      to=step.assignee)
        return StepOutcome(status="done", summary=f"step {step.index} done")

    async def resume_agent(self, step: PlanStep, answer: dict[str, Any]) -> StepOutcome:
        return StepOutcome(status="done")

    async def run_commander(self, step: PlanStep | None, text: str) -> StepOutcome:
        return StepOutcome(status="done")

    def post_form(self, step: PlanStep, form: StepForm) -> None: ...
    def stop(self, reason: str) -> None: ...
    def clear_stop(self) -> None: ...


def chain(n: int) -> list[dict[str, Any]]:
    return [{"title": f"s{i}", "assignee": "a", "input": f"after {{{{step_{i - 1}.output_summary}}}}"
             if i > 1 else "start"} for i in range(1, n + 1)]


def fan(n: int) -> list[dict[str, Any]]:
    middle = [{"title": f"m{i}", "assignee": "a", "wait_for": [1]} for i in range(2, n)]
    return [{"title": "first", "assignee": "a"}, *middle,
            {"title": "join", "assignee": "a", "wait_for": list(range(2, n))}]


async def run_plan(folder: Path, steps: list[dict[str, Any]], parallel: int) -> tuple[float, Path]:
    folder.mkdir(parents=True)
    bus = MessageBus(folder / "bus.jsonl")
    store = PlanStore(folder / "plan.jsonl")
    executor = PlanExecutor(store, InstantRunner(bus), agents=["a"], max_parallel=parallel)
    executor.write(steps, request="bench")
    start = time.process_time()
    plan = await executor.run()
    cpu = time.process_time() - start
    assert plan is not None and plan.state == "done", plan
    executor.close()
    bus.close()
    return cpu / len(steps), folder / "plan.jsonl"


def baseline_posts(folder: Path, n: int) -> float:
    folder.mkdir(parents=True)
    bus = MessageBus(folder / "bus.jsonl")
    start = time.process_time()
    for i in range(n):
        bus.post("commander", f"after step {i}", visible_to={"user", "a"}, kind="task", to="a")
    cpu = time.process_time() - start
    bus.close()
    return cpu / n


def reload(path: Path) -> float:
    start = time.perf_counter()
    store = PlanStore(path)
    executor = PlanExecutor(store, InstantRunner(MessageBus.in_memory()), agents=["a"])
    elapsed = time.perf_counter() - start
    assert executor.plan is not None and len(executor.plan.steps) == 200
    executor.close()
    return elapsed


def parse_floor(path: Path) -> float:
    start = time.perf_counter()
    for line in path.read_bytes().splitlines():
        json.loads(line)
    return time.perf_counter() - start


async def main_async(args: argparse.Namespace) -> None:
    figures: dict[str, list[float]] = {"bus post (baseline)": [], "chain": [], "fan-out/in x1": [],
                                       "fan-out/in x4": []}
    loads: dict[str, list[float]] = {"json lines (baseline)": [], "reload 200": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for r in range(args.rounds):
            figures["bus post (baseline)"].append(baseline_posts(root / f"b{r}", args.steps))
            figures["chain"].append((await run_plan(root / f"c{r}", chain(args.steps), 1))[0])
            figures["fan-out/in x1"].append((await run_plan(root / f"f{r}", fan(args.steps), 1))[0])
            figures["fan-out/in x4"].append((await run_plan(root / f"p{r}", fan(args.steps), 4))[0])
        _, big = await run_plan(root / "big", chain(200), 1)
        lines = len(big.read_bytes().splitlines())
        for _ in range(args.rounds):
            loads["json lines (baseline)"].append(parse_floor(big))
            loads["reload 200"].append(reload(big))
    base = statistics.median(figures["bus post (baseline)"])
    print(f"Executor CPU per step, median of {args.rounds} rounds x {args.steps} steps "
          f"(durable plan and bus files):")
    for name, values in figures.items():
        med = statistics.median(values)
        print(f"  {name:<20} {med * 1000:7.3f} ms   x{med / base:5.2f} of one bus post")
    print("  budget: 1 ms a step (reconcile + persist + dispatch)")
    floor = statistics.median(loads["json lines (baseline)"])
    print(f"Reload of a finished 200-step plan ({lines} lines), median of {args.rounds}:")
    for name, values in loads.items():
        med = statistics.median(values)
        print(f"  {name:<22} {med * 1000:7.2f} ms   x{med / floor:5.1f} of parsing the lines")
    print("  budget: 100 ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
