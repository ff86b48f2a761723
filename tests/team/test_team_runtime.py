"""The team at work with scripted models: dispatch, workers, hand-off, prose, stale writes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from orkas_nb import Agent
from orkas_nb.agent.team import build_team, team_for
from orkas_nb.core.errors import ConfigError
from orkas_nb.core.events import Done, MemberEvent, TextDelta
from orkas_nb.core.messages import ToolCallBlock
from orkas_nb.team.state import TeamState
from orkas_nb.testing import call, reply
from tests.team.teamkit import RESEARCHER_AND_WRITER, Router, user_texts, write_agents


def make_team(workspace: Path, router: Router, **kw):
    agent = Agent(router.model(), workspace=workspace)
    return build_team(agent, user_dir=workspace / "no-user-dir", **kw)


@pytest.fixture
def ws(workspace: Path) -> Path:
    write_agents(workspace, **RESEARCHER_AND_WRITER)
    return workspace


async def test_two_parallel_dispatches_see_only_their_own_messages(ws):
    started: list[str] = []
    both_started = asyncio.Event()  # run one after the other, neither answer would ever stream

    def slow(name):
        def answer(request):
            started.append(name)
            if len(started) == 2:
                both_started.set()
            return reply(f"{name} finished", delay_s=0.05, chunk_chars=4, wait=both_started)
        return answer

    router = Router(
        commander=[reply("Sending both.", call("dispatch_to", agent="researcher", task="find A"),
                         call("dispatch_to", agent="writer", task="write B")),
                   reply("Both are done.")],
        researcher=slow("researcher"), writer=slow("writer"))
    team = make_team(ws, router)

    async def run() -> list:
        return [e async for e in team.run("do A and B")]

    events = await asyncio.wait_for(run(), 120)  # a hang here: the dispatches ran in turn
    done = events[-1]
    assert isinstance(done, Done) and done.result.text == "Both are done."
    lanes = {(e.member, e.task_id) for e in events if isinstance(e, MemberEvent)}
    assert {m for m, _ in lanes} == {"researcher", "writer"} and len(lanes) == 2
    # parallel: both lanes streamed text before either ended
    order = [(e.member, e.event.type) for e in events if isinstance(e, MemberEvent)]
    first_done = min(i for i, (_, t) in enumerate(order) if t == "done")
    assert {m for m, t in order[:first_done] if t == "text_delta"} == {"researcher", "writer"}
    # each member's context holds its own task only
    (r,), (w,) = router.requests["researcher"], router.requests["writer"]
    assert "find A" in user_texts(r) and "write B" not in user_texts(r)
    assert "write B" in user_texts(w) and "find A" not in user_texts(w)
    assert "do A and B" not in user_texts(r) + user_texts(w)  # the user spoke to the commander
    bus = team.state.bus
    assert all(m.visible_for("researcher") is False for m in bus.messages
               if m.to == "writer" or m.sender == "writer")
    # the commander read both summaries as tool results
    last = router.requests["commander"][-1]
    results = [m for m in last.messages if m.role == "tool"]
    assert sorted(res.text.split(" (")[0] for res in results) == ["researcher", "writer"]
    assert "researcher finished" in results[0].text + results[1].text
    statuses = {t.assignee: t.status for t in team.state.ledger.tasks}
    assert statuses == {"commander": "done", "researcher": "done", "writer": "done"}
    team.close()


async def test_dispatches_to_one_member_queue_behind_each_other(ws):
    running, overlap = [0], [False]

    def answer(request):
        running[0] += 1
        overlap[0] |= running[0] > 1
        return reply("ok", delay_s=0.02)

    router = Router(researcher=answer, commander=[])
    team = make_team(ws, router)

    async def one(task):
        try:
            return await team.dispatch("researcher", task)
        finally:
            running[0] -= 1

    outcomes = await asyncio.gather(one("first"), one("second"))
    assert [o.status for o in outcomes] == ["done", "done"] and not overlap[0]
    second = user_texts(router.requests["researcher"][1])
    assert "second" in second and "first" not in second.split("second")[-1]
    team.close()


async def test_workers_anonymous_and_named(ws):
    router = Router(
        commander=[reply("", call("run_worker", task="count the files"),
                         ToolCallBlock(id="c2", name="run_worker",
                                       arguments={"task": "draw a chart", "name": "charts"})),
                   reply("done")],
        worker=lambda r: reply("3 files" if "count" in user_texts(r) else "chart drawn"))
    team = make_team(ws, router)
    events = [e async for e in team.run("go")]
    lanes = {e.member: e.visible for e in events if isinstance(e, MemberEvent)}
    assert lanes == {"worker-1": False, "charts": True}
    bus = team.state.bus.messages
    anon = [m for m in bus if "worker-1" in (m.sender, m.to)]
    assert anon and all(not m.visible_for("user") for m in anon)
    named = [m for m in bus if "charts" in (m.sender, m.to)]
    assert named and all(m.visible_for("user") for m in named)
    tool_results = [m.text for m in router.requests["commander"][-1].messages if m.role == "tool"]
    assert "3 files" in tool_results[0] and "chart drawn" in tool_results[1]
    with pytest.raises(ValueError, match="is an agent of this team"):
        await team.worker("x", name="researcher")
    team.close()


async def test_hand_off_three_messages_then_handback_resumes_the_ledger(ws):
    router = Router(
        commander=[reply("", call("hand_off_to", agent="researcher", message="teach regex")),
                   reply("Back with me: the regex lesson is finished.")],
        researcher=[reply("Lesson 1"), reply("Lesson 2"), reply("Lesson 3"),
                    reply("That is all.\n<handback />")])
    team = make_team(ws, router)
    first = await team.arun("teach me regex")
    # the hand-off turn: the agent answers, with no further commander request (no synthesis)
    assert first.text == "Lesson 1" and len(router.requests["commander"]) == 1
    assert team.state.ledger.floor.holder == "researcher"
    assert "teach me regex" in user_texts(router.requests["researcher"][0])
    for n, text in enumerate(["and groups?", "lookahead?"], start=2):
        assert (await team.arun(text)).text == f"Lesson {n}"
    assert len(router.requests["commander"]) == 1  # three user messages went to the agent
    assert "lookahead?" in user_texts(router.requests["researcher"][2])
    unfinished = team.state.ledger.unfinished()
    assert [t.assignee for t in unfinished] == ["commander"]
    last = await team.arun("thanks")
    assert team.state.ledger.floor.holder == "commander"
    assert last.text == "Back with me: the regex lesson is finished."
    resume = user_texts(router.requests["commander"][1])
    assert "Unfinished work" in resume and unfinished[0].id in resume
    assert team.state.ledger.unfinished() == []
    team.close()


async def test_addressing_the_commander_takes_the_floor_back(ws):
    router = Router(commander=[reply("", call("hand_off_to", agent="writer")), reply("here")],
                    writer=[reply("hi from writer")])
    team = make_team(ws, router)
    await team.arun("let me talk to the writer")
    assert (await team.arun("@commander what now?")).text == "here"
    assert team.state.ledger.floor.holder == "commander"
    with pytest.raises(ValueError, match="no member named 'nobody'"):
        await team.arun("@nobody hello")
    team.close()


async def test_prose_naming_an_agent_dispatches_nothing(ws):
    router = Router(commander=[reply("@researcher please find A. @writer: write B.")])
    team = make_team(ws, router)
    events = [e async for e in team.run("who does it?")]
    assert not any(isinstance(e, MemberEvent) for e in events)
    assert "researcher" not in router.requests and "writer" not in router.requests
    assert [t.assignee for t in team.state.ledger.tasks] == ["commander"]
    assert isinstance(events[-2], TextDelta) or events[-1].result.text.startswith("@researcher")
    team.close()


async def test_two_agents_writing_one_file_the_loser_gets_a_stale_read(ws):
    (ws / "notes.txt").write_text("original\n")
    # both read before either writes; the researcher writes first (events, not sleeps)
    writer_has_read, researcher_wrote = asyncio.Event(), asyncio.Event()

    def write(name, wait):
        return reply("", call("write_file", path="notes.txt", content=f"by {name}\n"), wait=wait)

    def researcher(request):
        step = len(router.requests["researcher"])
        if step == 1:
            return reply("", call("read_file", path="notes.txt"))
        if step == 2:
            return write("researcher", writer_has_read)
        researcher_wrote.set()
        return reply(f"researcher: {request.messages[-1].text[:60]}")

    def writer(request):
        step = len(router.requests["writer"])
        if step == 1:
            return reply("", call("read_file", path="notes.txt"))
        if step == 2:
            writer_has_read.set()
            return write("writer", researcher_wrote)
        return reply(f"writer: {request.messages[-1].text[:60]}")

    router = Router(
        commander=[reply("", call("dispatch_to", agent="researcher", task="edit notes"),
                         call("dispatch_to", agent="writer", task="edit notes")),
                   reply("done")],
        researcher=researcher, writer=writer)
    team = make_team(ws, router)
    await team.arun("both edit notes.txt")
    assert (ws / "notes.txt").read_text() == "by researcher\n"  # the loser overwrote nothing
    writer_last = router.requests["writer"][-1].messages[-1]
    assert writer_last.role == "tool" and "stale" in writer_last.text
    team.close()


def test_no_definitions_changes_nothing(workspace):
    agent = Agent(Router().model(), workspace=workspace)
    assert team_for(agent, user_dir=workspace / "none") is None
    assert "dispatch_to" not in agent.tools and agent.name == "agent"
    with pytest.raises(ConfigError, match="no agent is defined"):
        build_team(agent, user_dir=workspace / "none")


def test_the_commander_gets_its_tools_and_prompt_and_members_do_not(ws):
    router = Router()
    team = make_team(ws, router, state=TeamState.in_memory())
    commander = team.commander
    assert {"dispatch_to", "run_worker", "hand_off_to"} <= set(commander.tools.names())
    spec = {s.name: s for s in commander.tools.specs()}["dispatch_to"]
    assert spec.input_schema["properties"]["agent"]["enum"] == ["researcher", "writer"]
    system = commander.runner.system_text()
    assert "researcher: Finds facts in the files." in system and "assigns nothing" in system
    member = team.member("researcher")
    assert "dispatch_to" not in member.tools and sorted(member.tools.names()) == [
        "edit_file", "read_file", "write_file"]
    team.close()


async def test_a_retry_the_ledger_refuses_runs_nothing_and_says_why(ws):
    router = Router(
        commander=[reply("", call("dispatch_to", agent="researcher", task="again",
                                  retry_of="task_nope"),
                         ToolCallBlock(id="c2", name="run_worker",
                                       arguments={"task": "again", "retry_of": "task_nope"})),
                   reply("told the user")])
    team = make_team(ws, router)
    assert (await team.arun("retry it")).text == "told the user"
    results = [m.text for m in router.requests["commander"][-1].messages if m.role == "tool"]
    assert results[0].startswith("Nothing was dispatched: no task 'task_nope'")
    assert results[1].startswith("Nothing was run: no task 'task_nope'")
    assert [t.assignee for t in team.state.ledger.tasks] == ["commander"]
    assert "researcher" not in router.requests and "worker" not in router.requests
    team.close()
