"""Team dispatch overhead: client CPU per dispatch beyond its own model requests.

All in one process over a ScriptedModel (no network, so the figures are the orchestration's
own CPU: bus and ledger lines written durably, the member's prompt built from its view, its
events forwarded as lanes), in the same run and interleaved over rounds:

    agent       one Agent.arun of a one-request answer (20 text deltas): the floor
    dispatch    Team.dispatch of the same answer to a named agent (its session on disk)
    parallel-8  8 dispatches at once, to 8 agents, through asyncio.gather

Reported: CPU (user+sys, ``time.process_time``) per model request, median over rounds, and
the dispatch overhead = dispatch − agent (the issue's budget: ≤ 2 ms). Workspace in a temp
folder; ``--no-durable`` skips fsync for a look at the pure-Python part.

    PYTHONPATH=$PWD python tests/benchmarks/bench_dispatch.py [--runs 40] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.team.state import TeamState
from orkas_nb.testing import ScriptedModel, reply
from tests.team.teamkit import write_agents

ANSWER = "x" * 160  # 20 deltas of 8 characters


def answer(request):
    return reply(ANSWER)


async def _agent(agent: Agent, runs: int) -> float:
    start = time.process_time()
    for _ in range(runs):
        await agent.arun("go")
    return (time.process_time() - start) / runs


async def _dispatch(team, runs: int) -> float:
    start = time.process_time()
    for _ in range(runs):
        await team.dispatch("a0", "go")
    return (time.process_time() - start) / runs


async def _parallel(team, runs: int) -> float:
    start = time.process_time()
    for _ in range(runs // 8 or 1):
        await asyncio.gather(*(team.dispatch(f"a{i}", "go") for i in range(8)))
    return (time.process_time() - start) / ((runs // 8 or 1) * 8)


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        write_agents(ws, **{f"a{i}": f"agent {i}" for i in range(8)})
        model = ScriptedModel(answer)
        single = Agent(model, workspace=ws, session="single")
        commander = Agent(model, workspace=ws)
        team = build_team(commander, user_dir=ws / "none",
                          state=TeamState(ws, "bench", durable=args.durable))
        for name in team.names:  # warm: members built, sessions opened
            await team.dispatch(name, "warm")
        await single.arun("warm")
        figures: dict[str, list[float]] = {"agent": [], "dispatch": [], "parallel-8": []}
        for _ in range(args.rounds):
            figures["agent"].append(await _agent(single, args.runs))
            figures["dispatch"].append(await _dispatch(team, args.runs))
            figures["parallel-8"].append(await _parallel(team, args.runs))
        team.close()
        single.close()
    base = statistics.median(figures["agent"])
    print(f"CPU per model request, median of {args.rounds} rounds x {args.runs} runs "
          f"({'durable' if args.durable else 'no fsync'}):")
    for name, values in figures.items():
        med = statistics.median(values)
        print(f"  {name:<11} {med * 1000:7.3f} ms   x{med / base:5.2f} of one agent")
    print(f"  dispatch overhead: {(statistics.median(figures['dispatch']) - base) * 1000:.3f} ms "
          f"(budget 2 ms); parallel-8 overhead per dispatch: "
          f"{(statistics.median(figures['parallel-8']) - base) * 1000:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-durable", dest="durable", action="store_false")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
