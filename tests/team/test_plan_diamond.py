"""Seed 001's diamond end to end: a commander writes the plan, scripted agents over the loopback
model server run it (two research steps, a summary waiting for both), a step blocks on the
user and a form answer resumes it, and a kill -9 mid-plan is handled by the step's policy."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from orkas_nb import Agent
from orkas_nb.agent.plan import run_planned
from orkas_nb.agent.team import build_team
from tests.fakes.model_server import ModelServer, Reply, ToolCall
from tests.team.teamkit import COMMANDER_MARK, write_agents

REPO = Path(__file__).resolve().parents[2]
SUMMARY = ("Write the launch note from:\nMarket: {{step_1.output_summary}}\n"
           "Rivals: {{step_2.output_summary}}")


def diamond(on_failure: str = "ask_commander") -> list[dict[str, Any]]:
    return [
        {"title": "Study the market", "assignee": "researcher", "input": "Size the market."},
        {"title": "Analyse the rivals", "assignee": "analyst", "input": "List the rivals.",
         "wait_for": [], "on_failure": on_failure},
        {"title": "Summarise", "assignee": "writer", "input": SUMMARY, "wait_for": [1, 2]},
    ]


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


class Script:
    """Per-member replies, chosen by the marker in each request's system prompt."""

    def __init__(self, **replies: list[Reply | Callable[[dict], Reply]]) -> None:
        self.replies = replies
        self.seen: dict[str, list[dict]] = {}

    def __call__(self, payload: dict) -> Reply:
        system = text_of(payload["messages"][0]["content"])
        member = "commander" if COMMANDER_MARK in system else system.split("[[", 1)[1].split("]]")[0]
        self.seen.setdefault(member, []).append(payload)
        step = self.replies[member].pop(0)
        return step(payload) if callable(step) else step

    def last_user_text(self, member: str) -> str:
        messages = self.seen[member][-1]["messages"]
        return "\n".join(text_of(m.get("content")) for m in messages if m["role"] in ("user", "tool"))


def write_plan(steps: list[dict[str, Any]]) -> Reply:
    return Reply(tool_calls=[ToolCall("write_plan", json.dumps({"title": "Launch", "steps": steps}))])


@pytest.fixture
def ws(workspace: Path) -> Path:
    write_agents(workspace, researcher="Sizes markets.", analyst="Studies rivals.",
                 writer="Writes notes.")
    return workspace


def team_over(server: ModelServer, ws: Path):
    agent = Agent("openai/gpt-4o-mini", workspace=ws, base_url=server.openai_url, api_key="sk-test")
    return build_team(agent, user_dir=ws / "no-user-dir")


async def test_the_diamond_hands_both_summaries_to_the_summary_step(ws: Path) -> None:
    script = Script(
        commander=[write_plan(diamond()), Reply(text="The plan is written.")],
        researcher=[Reply(text="Market grows 20% a year.")],
        analyst=[Reply(text="Two incumbents, one newcomer.")],
        writer=[Reply(text="Launch note: go.")],
    )
    with ModelServer(script).start() as server:
        team = team_over(server, ws)
        await run_planned(team, "Prepare the launch of Widget X")
        plan = team.plan.plan
        assert plan.state == "done"
        assert [s.status for s in plan.steps] == ["done", "done", "done"]
        writer = script.last_user_text("writer")
        assert "Market: Market grows 20% a year." in writer
        assert "Rivals: Two incumbents, one newcomer." in writer
        assert "Prepare the launch of Widget X" in writer  # the original request goes along
        assert plan.steps[2].output_summary == "Launch note: go."
        tasks = [m for m in team.state.bus.messages if m.kind == "task"]
        assert [(m.sender, m.to) for m in tasks] == [
            ("commander", "researcher"), ("commander", "analyst"), ("commander", "writer")]
        # serial by default: each step started after the one before it ended
        assert "Market grows" not in script.last_user_text("analyst")
        team.close()


async def test_a_blocked_step_pauses_the_plan_and_the_answer_resumes_it(ws: Path) -> None:
    ask = ToolCall("ask_user", json.dumps({"prompt": "Which region?", "fields": [
        {"name": "region", "kind": "choice", "choices": ["EU", "US"]}]}), id="call_ask_1")
    script = Script(
        commander=[write_plan(diamond()), Reply(text="Planned.")],
        researcher=[Reply(text="Market grows.")],
        analyst=[Reply(tool_calls=[ask]), Reply(text="EU rivals: two.")],
        writer=[Reply(text="Note.")],
    )
    with ModelServer(script).start() as server:
        team = team_over(server, ws)
        seen: list[str] = []
        team.plan.subscribe(lambda p: seen.append(p.state))
        await run_planned(team, "Prepare the launch")
        plan = team.plan.plan
        assert plan.state == "paused" and plan.steps[1].status == "blocked"
        assert plan.steps[1].form.prompt == "Which region?" and plan.steps[2].status == "pending"
        assert len(script.seen["analyst"]) == 1 and "writer" not in script.seen
        team.plan.answer(2, {"region": "EU"})
        await team.plan.wait()
        plan = team.plan.plan
        assert plan.state == "done" and plan.steps[1].answer == {"region": "EU"}
        # the answer is the ask_user call's own result, and the run goes on from it: the
        # resumed request ends with the analyst's call and that result, no new user message
        messages = script.seen["analyst"][-1]["messages"]
        assert [m["role"] for m in messages[-3:]] == ["user", "assistant", "tool"]
        assert messages[-2]["tool_calls"][0]["id"] == "call_ask_1"
        assert messages[-1]["tool_call_id"] == "call_ask_1"
        assert json.loads(text_of(messages[-1]["content"])) == {"region": "EU"}
        assert "Rivals: EU rivals: two." in script.last_user_text("writer")
        # a resume, not a re-dispatch: one task message for the analyst
        tasks = [m for m in team.state.bus.messages if m.kind == "task" and m.to == "analyst"]
        assert len(tasks) == 1 and plan.steps[1].attempts == 1
        assert "paused" in seen and seen[-1] == "done"
        team.close()


CHILD = textwrap.dedent("""
    import asyncio, sys
    from orkas_nb import Agent
    from orkas_nb.agent.plan import run_planned
    from orkas_nb.agent.team import build_team
    ws, url = sys.argv[1], sys.argv[2]
    agent = Agent("openai/gpt-4o-mini", workspace=ws, base_url=url, api_key="sk-test")
    team = build_team(agent, user_dir=ws + "/no-user-dir")
    asyncio.run(run_planned(team, "Prepare the launch"))
""")


def kill_mid_step(ws: Path, server: ModelServer, script: Script,
                  killed: threading.Event | None = None) -> None:
    """Run the plan in a child process and kill -9 it while step 2 is in flight; ``killed`` is
    set once the child is gone."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(ws), server.openai_url], env=env)
    deadline = time.monotonic() + 60
    try:
        while "analyst" not in script.seen:  # the analyst's model request is in flight
            assert child.poll() is None and time.monotonic() < deadline, "the child did not get there"
            time.sleep(0.02)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        if killed is not None:
            killed.set()


def stalled(killed: threading.Event):  # type: ignore[no-untyped-def]
    """A reply that comes only after the child is killed (not after a sleep it might outlast)."""

    def answer(payload: dict) -> Reply:
        killed.wait(120)
        return Reply(text="too late")

    return answer


@pytest.mark.parametrize("policy", ["continue", "ask_commander"])
async def test_a_kill_mid_plan_resumes_with_the_interrupted_step_handled_by_its_policy(
        ws: Path, policy: str) -> None:
    script = Script(
        commander=[write_plan(diamond(policy)), Reply(text="Planned.")],
        researcher=[Reply(text="Market grows.")],
        analyst=[stalled(killed := threading.Event())],
        writer=[Reply(text="Note.")],
    )
    with ModelServer(script).start() as server:
        kill_mid_step(ws, server, script, killed)
        if policy == "ask_commander":  # the woken commander retries the step
            script.replies["commander"] += [
                Reply(tool_calls=[ToolCall("retry_step", json.dumps({"index": 2}))]),
                Reply(text="Retrying the rivals.")]
            script.replies["analyst"].append(Reply(text="Rivals: two."))
        team = team_over(server, ws)
        plan = team.plan.plan
        assert plan.steps[0].status == "done"
        assert plan.steps[1].failure_reason == "interrupted"
        assert plan.state == "paused"  # nothing runs by itself after a restart
        asked = {m: len(v) for m, v in script.seen.items()}
        await team.plan.wait()
        assert {m: len(v) for m, v in script.seen.items()} == asked
        if policy == "continue":
            assert plan.steps[1].status == "skipped"
        else:
            assert plan.steps[1].status == "failed" and plan.decisions == [2]
        await team.plan.run()
        plan = team.plan.plan
        assert plan.state == "done" and plan.steps[2].status == "done"
        writer = script.last_user_text("writer")
        if policy == "continue":
            assert "Rivals: (step 2 skipped: interrupted)" in writer
            assert len(script.seen["analyst"]) == 1  # never re-dispatched silently
        else:
            assert "Rivals: Rivals: two." in writer and len(script.seen["analyst"]) == 2
            assert "interrupted" in script.last_user_text("commander")
        assert len(script.seen["researcher"]) == 1
        # resuming a finished plan runs nothing
        before = sum(len(v) for v in script.seen.values())
        await team.plan.run()
        assert sum(len(v) for v in script.seen.values()) == before
        team.close()
