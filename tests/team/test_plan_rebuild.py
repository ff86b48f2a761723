"""A team rebuilt over the same conversation state (a notebook's next cell) keeps the plan's
executor: the plan's file is opened once (one writer, SPEC §9), a plan running steps goes on,
new steps go to the new team, and a stop reaches the runs the earlier team started."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.core.errors import SessionLockedError
from orkas_nb.core.events import MemberEvent
from orkas_nb.team.plan_store import PlanStore
from orkas_nb.team.runtime import Team
from orkas_nb.team.state import TeamState
from orkas_nb.testing import call, reply
from tests.team.teamkit import Router, write_agents

SLOW = "x" * 2000  # streamed 4 characters every 10 ms: 5 s unless stopped
STEPS = [{"title": "Count answers", "assignee": "researcher"},
         {"title": "Summary", "assignee": "writer"}]


def team_over(state: TeamState, router: Router, workspace: Path):
    return build_team(Agent(router.model(), workspace=workspace), state=state,
                      user_dir=workspace / "none")


async def until(condition, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


@pytest.fixture
def router(workspace: Path) -> Router:
    write_agents(workspace, researcher="Finds facts.", writer="Writes.")
    return Router(commander=[reply("", call("write_plan", title="Survey", steps=STEPS)),
                             reply("Planned.")],
                  researcher=[reply(SLOW, chunk_chars=4, delay_s=0.01)],
                  writer=[reply("The summary.")])


async def test_a_rebuilt_team_takes_over_the_running_plan(workspace: Path, router: Router) -> None:
    rebuilt = asyncio.Event()  # step 1's answer waits for the rebuild: no race with the clock
    router.scripts["researcher"] = [reply("Counted.", wait=rebuilt)]
    state = TeamState(workspace, "default")
    first = team_over(state, router, workspace)
    executor = first.plan
    await first.arun("Analyse the survey.")
    running = asyncio.ensure_future(executor.run())
    await until(lambda: executor.store.plan.step(1).status == "in_progress", "step 1 running")
    second = team_over(state, router, workspace)  # the next cell, while step 1 runs
    assert second.plan is executor and state.plan is executor
    seen: list[str] = []
    second.subscribe(lambda e: isinstance(e, MemberEvent) and seen.append(e.member))
    assert not running.done()
    rebuilt.set()
    plan = await asyncio.wait_for(running, 60)
    assert plan is not None and plan.state == "done"
    assert [(s.status, s.runs) for s in plan.steps] == [("done", 1), ("done", 1)]
    assert "writer" in seen and "researcher" not in seen  # step 2 went out through the new team
    assert {k: len(v) for k, v in router.requests.items()} == {
        "commander": 2, "researcher": 1, "writer": 1}
    with pytest.raises(SessionLockedError, match="open for writing"):
        PlanStore(state.folder / "plan.jsonl")  # still one writer: the kept executor
    state.close()
    reopened = PlanStore(state.folder / "plan.jsonl")  # closing the state let go of the file
    assert reopened.plan is not None  # the state is derived by the executor on load
    assert [s.status for s in reopened.plan.steps] == ["done", "done"]
    reopened.close()


async def test_a_stop_after_the_rebuild_reaches_the_earlier_teams_run(workspace: Path,
                                                                      router: Router) -> None:
    state = TeamState(workspace, "default")
    first = team_over(state, router, workspace)
    await first.arun("Analyse the survey.")
    running = asyncio.ensure_future(first.plan.run())
    await until(lambda: "researcher" in first.running.values(), "the researcher running")
    second = team_over(state, router, workspace)
    pressed = time.perf_counter()
    second.plan.stop("the user pressed Stop")
    plan = await asyncio.wait_for(running, 5)
    assert time.perf_counter() - pressed < 2.0  # a bound a user feels, with margin
    assert plan is not None and plan.state == "paused"
    assert (plan.step(1).status, plan.step(2).status) == ("failed", "pending")
    assert "Stop" in plan.step(1).failure_reason
    assert "writer" not in router.requests
    state.close()


async def test_the_next_teams_turn_waits_for_the_plans_commander_turn(workspace: Path) -> None:
    """One commander session, two teams over it: the user's turn on the new team starts after
    the plan's commander step (started by the earlier team) has ended, never beside it."""
    from orkas_nb.harness.repair import open_calls
    from orkas_nb.harness.session import JsonlSession

    write_agents(workspace, researcher="Finds facts.")
    steps = [{"title": "Think it over", "assignee": "commander"}]
    step_may_end = asyncio.Event()  # the plan's commander step answers once the turn is asked
    router = Router(commander=[reply("", call("write_plan", title="Think", steps=steps)),
                               reply("Planned."), reply(SLOW, chunk_chars=400, wait=step_may_end),
                               reply("Hello again.")])
    session = JsonlSession(workspace / "commander.jsonl")
    state = TeamState(workspace, "default")

    def team() -> Team:
        return build_team(Agent(router.model(), workspace=workspace, session=session),
                          state=state, user_dir=workspace / "none")

    first = team()
    await first.arun("Think about the survey.")
    running = asyncio.ensure_future(first.plan.run())
    await until(lambda: len(router.requests.get("commander", [])) == 3, "the commander step")
    second = team()
    turn = asyncio.ensure_future(second.arun("Hi."))
    for _ in range(50):  # room for the turn to start beside the step, were it not held back
        await asyncio.sleep(0)
    assert len(router.requests["commander"]) == 3
    step_may_end.set()
    result = await asyncio.wait_for(turn, 60)
    assert result.text == "Hello again."
    last = router.requests["commander"][-1]
    assert any(SLOW in str(m.content) for m in last.messages)  # asked after the step's answer
    plan = await asyncio.wait_for(running, 60)
    assert plan is not None and plan.state == "done"
    assert open_calls(session.messages) == []
    session.close()
    state.close()
