"""An agent's ``ask_user`` in a plan (issue 16): the call stays open in the member's session, the
user's answer becomes that call's own result (saved before it is used) and the run continues
from it; work for a member awaiting an answer is refused; a skipped question is closed; a
kill -9 between "answer saved" and "run resumed" resumes once, from that answer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from orkas_nb.harness.awaiting import AwaitingAnswerError, awaiting_calls
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.harness.session import JsonlSession
from orkas_nb.team.bus import USER
from orkas_nb.team.plan_executor import PlanActionError
from tests.fakes.model_server import ModelServer, Reply, ToolCall
from tests.team.test_plan_diamond import REPO, Script, team_over, text_of, write_plan
from tests.team.teamkit import write_agents

STEPS = [{"title": "Analyse the rivals", "assignee": "analyst", "input": "List the rivals."},
         {"title": "Write", "assignee": "writer", "input": "Note: {{step_1.output_summary}}"}]
FORM = {"prompt": "Which region?", "fields": [
    {"name": "region", "kind": "choice", "choices": ["EU", "US"]}]}


def ask(call_id: str = "call_ask_1") -> ToolCall:
    return ToolCall("ask_user", json.dumps(FORM), id=call_id)


@pytest.fixture
def ws(workspace: Path) -> Path:
    write_agents(workspace, analyst="Studies rivals.", writer="Writes notes.")
    return workspace


def results_for(payload: dict[str, Any], call_id: str) -> list[str]:
    return [text_of(m.get("content")) for m in payload["messages"]
            if m["role"] == "tool" and m.get("tool_call_id") == call_id]


def member_session(ws: Path, name: str) -> list[Any]:
    [path] = (ws / ".orkas").rglob(f"{name}.jsonl")
    with JsonlSession(path, readonly=True) as view:
        return view.messages


async def blocked_team(ws: Path, server: ModelServer):
    from orkas_nb.agent.plan import run_planned

    team = team_over(server, ws)
    await run_planned(team, "Prepare the launch")
    assert team.plan.plan.steps[0].status == "blocked"
    return team


async def test_other_calls_of_the_asking_turn_pair_and_the_answer_resumes_from_the_call(
        ws: Path) -> None:
    (ws / "rivals.txt").write_text("Acme\n")
    read = ToolCall("read_file", json.dumps({"path": "rivals.txt"}), id="call_read")
    script = Script(commander=[write_plan(STEPS), Reply(text="Planned.")],
                    analyst=[Reply(tool_calls=[ask(), read]), Reply(text="EU rivals: Acme.")],
                    writer=[Reply(text="Note.")])
    with ModelServer(script).start() as server:
        team = await blocked_team(ws, server)
        session = member_session(ws, "analyst")
        assert [r.tool_call_id for r in awaiting_calls(session)] == ["call_ask_1"]
        assert "Acme" in session[-1].text and session[-1].tool_call_id == "call_read"
        team.plan.answer(1, {"region": "EU"})
        await team.plan.wait()
        assert team.plan.plan.state == "done"
        resumed = script.seen["analyst"][-1]
        assert [m["role"] for m in resumed["messages"][-4:]] == ["user", "assistant", "tool", "tool"]
        assert [json.loads(t) for t in results_for(resumed, "call_ask_1")] == [{"region": "EU"}]
        assert "Acme" in results_for(resumed, "call_read")[0]
        assert pairing_problems(member_session(ws, "analyst")) == []
        # the answer is shown in the conversation once, as the user's message to the analyst
        shown = [m for m in team.state.bus.messages if m.sender == USER and m.to == "analyst"]
        assert [m.text for m in shown] == ["region: EU"]
        team.close()


async def test_work_for_a_member_awaiting_an_answer_is_refused_and_nothing_is_recorded(
        ws: Path) -> None:
    script = Script(commander=[write_plan(STEPS), Reply(text="Planned.")],
                    analyst=[Reply(tool_calls=[ask()]), Reply(text="Done, EU.")],
                    writer=[Reply(text="Note.")])
    with ModelServer(script).start() as server:
        team = await blocked_team(ws, server)
        tasks, messages = len(team.state.ledger.tasks), len(team.state.bus.messages)
        before = member_session(ws, "analyst")
        with pytest.raises(AwaitingAnswerError, match="analyst is waiting for the user's answer"):
            await team.dispatch("analyst", "something else meanwhile")
        assert len(team.state.ledger.tasks) == tasks and len(team.state.bus.messages) == messages
        # a chat turn to the member is refused by its runner: nothing appended after the question
        result = await team.arun("@analyst are you there?")
        assert result.error is not None and result.error.kind == "AwaitingAnswerError"
        assert member_session(ws, "analyst") == before
        assert len(script.seen["analyst"]) == 1  # its model was not asked
        team.plan.answer(1, {"region": "EU"})
        await team.plan.wait()
        assert team.plan.plan.state == "done"
        resumed = script.seen["analyst"][-1]
        assert [json.loads(t) for t in results_for(resumed, "call_ask_1")] == [{"region": "EU"}]
        with pytest.raises(PlanActionError):  # answered once: a second answer is refused
            team.plan.answer(1, {"region": "US"})
        team.close()


async def test_a_skipped_question_is_closed_so_the_member_can_work_again(ws: Path) -> None:
    script = Script(commander=[write_plan(STEPS), Reply(text="Planned.")],
                    analyst=[Reply(tool_calls=[ask()]), Reply(text="Other work done.")],
                    writer=[Reply(text="Note.")])
    with ModelServer(script).start() as server:
        team = await blocked_team(ws, server)
        team.plan.skip(1)
        await team.plan.wait()
        session = member_session(ws, "analyst")
        assert awaiting_calls(session) == [] and pairing_problems(session) == []
        closed = [m for m in session if getattr(m, "tool_call_id", None) == "call_ask_1"]
        assert closed[0].status == "interrupted" and "did not answer" in closed[0].text
        outcome = await team.dispatch("analyst", "other work")
        assert outcome.status == "done" and outcome.summary == "Other work done."
        team.close()


CHILD = textwrap.dedent("""
    import asyncio, os, signal, sys
    from orkas_nb import Agent
    from orkas_nb.agent.team import build_team
    from orkas_nb.harness import session as session_module
    ws, url, die_at = sys.argv[1], sys.argv[2], sys.argv[3]

    def hook(label):
        if label == die_at:
            os.kill(os.getpid(), signal.SIGKILL)

    session_module.crash_hook = hook

    async def main():
        agent = Agent("openai/gpt-4o-mini", workspace=ws, base_url=url, api_key="sk-test")
        team = build_team(agent, user_dir=ws + "/no-user-dir")
        team.plan.answer(1, {"region": "EU"})
        await team.plan.wait()

    asyncio.run(main())
""")


def stalled(killed: threading.Event):  # type: ignore[no-untyped-def]
    """A reply that comes only after the child is killed (not after a sleep it might outlast)."""

    def answer(payload: dict) -> Reply:
        killed.wait(120)
        return Reply(text="too late")

    return answer


@pytest.mark.parametrize("die_at", [
    "rewrite:temp-synced",  # the answer in the plan, the member's session not yet changed
    "rewrite:renamed",  # the answer in the session too, the run not started
    "in_flight",  # the resumed run's model request under way
])
async def test_a_kill_between_answer_saved_and_run_resumed_resumes_once_from_the_answer(
        ws: Path, die_at: str) -> None:
    script = Script(commander=[write_plan(STEPS), Reply(text="Planned.")],
                    analyst=[Reply(tool_calls=[ask()]),
                             *([stalled(killed := threading.Event())] if die_at == "in_flight"
                               else []),
                             Reply(text="EU rivals: two.")],
                    writer=[Reply(text="Note.")])
    with ModelServer(script).start() as server:
        (await blocked_team(ws, server)).close()
        env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(ws), server.openai_url,
                                  die_at], env=env)
        if die_at == "in_flight":
            deadline = time.monotonic() + 60
            while len(script.seen["analyst"]) < 2:
                assert child.poll() is None and time.monotonic() < deadline, "no resumed request"
                time.sleep(0.02)
            child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=120) == -signal.SIGKILL
        if die_at == "in_flight":
            killed.set()
        team = team_over(server, ws)
        step = team.plan.plan.steps[0]
        assert step.status == "blocked" and step.answer == {"region": "EU"}  # kept, not lost
        assert team.plan.plan.state == "paused"  # nothing runs by itself after a restart
        with pytest.raises(PlanActionError, match="has its answer already"):
            team.plan.answer(1, {"region": "US"})  # no second answer
        await team.plan.run()
        plan = team.plan.plan
        assert plan.state == "done" and plan.steps[0].output_summary == "EU rivals: two."
        resumed = script.seen["analyst"][-1]
        assert [json.loads(t) for t in results_for(resumed, "call_ask_1")] == [{"region": "EU"}]
        assert resumed["messages"][-1]["role"] == "tool"  # from the call's result, no new message
        session = member_session(ws, "analyst")
        answers = [m for m in session if getattr(m, "tool_call_id", None) == "call_ask_1"]
        assert len(answers) == 1 and json.loads(answers[0].text) == {"region": "EU"}
        assert pairing_problems(session) == []
        shown = [m for m in team.state.bus.messages if m.sender == USER and m.to == "analyst"]
        assert len(shown) == 1  # the answer shown once, whichever life saved it
        team.close()


async def test_another_step_of_the_member_queued_behind_the_question_waits_for_the_answer(
        ws: Path) -> None:
    both = [{"title": "Rivals", "assignee": "analyst", "input": "List the rivals.", "wait_for": []},
            {"title": "Prices", "assignee": "analyst", "input": "List the prices.", "wait_for": []}]
    script = Script(commander=[write_plan(both), Reply(text="Planned.")],
                    analyst=[Reply(tool_calls=[ask()]), Reply(text="EU rivals."),
                             Reply(text="Prices listed.")])
    with ModelServer(script).start() as server:
        from orkas_nb.agent.plan import run_planned

        team = team_over(server, ws)
        team.plan.max_parallel = 2  # both steps start; the second queues on the analyst
        await run_planned(team, "Prepare the launch")
        plan = team.plan.plan
        assert [s.status for s in plan.steps] == ["blocked", "pending"]
        assert plan.steps[1].transient_failures == 1  # refused, not failed: it goes on later
        refused = [t for t in team.state.ledger.tasks if "prices" in t.text]
        assert len(refused) == 1 and "waits for the user's answer" in refused[0].reason
        assert len(script.seen["analyst"]) == 1  # the refused run asked no model
        team.plan.answer(1, {"region": "EU"})
        await team.plan.wait()
        plan = team.plan.plan
        assert plan.state == "done" and [s.output_summary for s in plan.steps] == [
            "EU rivals.", "Prices listed."]
        assert [json.loads(t) for t in results_for(script.seen["analyst"][1], "call_ask_1")] \
            == [{"region": "EU"}]
        team.close()
