"""Durable resume across a process restart, over real HTTP on loopback in both wire formats.

A forked child plays the first kernel and dies by SIGKILL (no clean shutdown); the test process
then opens the same conversation as the next kernel would. What must hold (SPEC §11, issue 15):

- the floor holder and the commander's open request survive: after a hand-off, three
  un-addressed user messages reach the agent (one before the kill, two after), its
  ``<handback />`` returns the floor, and the commander resumes the request left open;
- nothing runs by itself after the restart: no model request until the next user message;
- a dispatch in flight at the kill is reported to the commander as interrupted, and runs again
  only when the commander decides so (``dispatch_to`` with ``retry_of``), at most once.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.core.errors import StateError
from orkas_nb.core.events import MemberEvent
from orkas_nb.team.runtime import Team
from tests.fakes.model_server import ModelServer
from tests.fakes.wire import Reply, ToolCall
from tests.team.teamkit import wire_last, wire_system, who, write_agents

WIRES = {"openai": ("openai/gpt-4o-mini", "openai_url"),
         "anthropic": ("anthropic/claude-sonnet-4-5", "anthropic_url")}
INTERRUPTED = re.compile(r"Task (task_\w+) for researcher was interrupted")


class Script:
    """Answers from what each request carries (no counters: a killed child's requests must not
    shift the answers of the next process)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []  # (member, last message text), in arrival order

    def __call__(self, payload: dict[str, Any]) -> Reply:
        member = who(wire_system(payload))
        role, text = wire_last(payload)
        self.seen.append((member, text))
        if member == "commander":
            if role == "tool":
                return Reply(text="Done: " + ("refused" if "Nothing was dispatched" in text
                                              else "A is 42"))
            if "The floor is back with you" in text:
                return Reply(text="Back with me: the regex lesson is finished.")
            if "what happened?" in text:
                (task_id,) = INTERRUPTED.findall(text)
                return Reply(tool_calls=[ToolCall("dispatch_to", json.dumps(
                    {"agent": "researcher", "task": "find A", "retry_of": task_id}))])
            if "do A" in text:
                return Reply(tool_calls=[ToolCall("dispatch_to", json.dumps(
                    {"agent": "researcher", "task": "find A"}))])
            return Reply(tool_calls=[ToolCall("hand_off_to", json.dumps(
                {"agent": "researcher", "message": "teach regex"}))])
        if "find A" in text:
            return Reply(text="A is 42", text_chunks=8)
        for cue, answer in (("thanks", "That is all.\n<handback />"), ("lookahead?", "Lesson 3"),
                            ("and groups?", "Lesson 2")):
            if cue in text:
                return Reply(text=answer)
        return Reply(text="Lesson 1")

    def asked(self, member: str) -> int:
        return sum(1 for m, _ in self.seen if m == member)


def open_team(workspace: Path, server: ModelServer, wire: str) -> Team:
    model, url = WIRES[wire]
    agent = Agent(model, workspace=workspace, base_url=getattr(server, url), api_key="sk-test",
                  session="main")
    return build_team(agent, user_dir=workspace / "none")


def in_a_killed_child(play: Callable[[Callable[[str], None]], None]) -> list[str]:
    """Run ``play(report)`` in a forked child that then dies by SIGKILL; what it reported."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the first kernel: never returns into pytest
        try:
            os.close(read_fd)
            play(lambda line: os.write(write_fd, (line + "\n").encode()) and None)
            os.kill(os.getpid(), signal.SIGKILL)
        finally:
            os._exit(3)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as reader:
        lines = reader.read().decode().splitlines()
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (status, lines)
    return lines


@pytest.fixture
def ws(workspace: Path) -> Path:
    write_agents(workspace, researcher="Finds facts; teaches.", writer="Writes notes.")
    return workspace


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_a_hand_off_survives_a_kill_and_the_commander_resumes_after_handback(wire, ws):
    script = Script()
    with ModelServer(script) as server:
        def first_kernel(report: Callable[[str], None]) -> None:
            async def play() -> None:
                team = open_team(ws, server, wire)
                report((await team.arun("teach me regex")).text)
                report((await team.arun("and groups?")).text)
            asyncio.run(play())

        assert in_a_killed_child(first_kernel) == ["Lesson 1", "Lesson 2"]
        before = len(script.seen)
        team = open_team(ws, server, wire)  # the next kernel
        ledger = team.state.ledger
        assert ledger.floor.holder == "researcher"
        (request,) = ledger.unfinished()
        assert (request.assignee, request.status, request.text) == (
            "commander", "waiting", "teach me regex")
        assert team.state.notices == []  # nothing was in flight: nothing to report
        assert len(script.seen) == before  # nothing ran by itself

        async def second() -> list[str]:
            return [(await team.arun(t)).text for t in ("lookahead?", "thanks")]

        assert asyncio.run(second()) == ["Lesson 3", "Back with me: the regex lesson is finished."]
        # three un-addressed messages reached the agent; the commander spoke twice in all
        assert [m for m, _ in script.seen] == ["commander", "researcher", "researcher",
                                               "researcher", "researcher", "commander"]
        resume = script.seen[-1][1]
        assert "Unfinished work" in resume and request.id in resume
        assert ledger.floor.holder == "commander" and ledger.unfinished() == []
        assert ledger.get(request.id).status == "done"
        assert server.rejected == []
        team.close()


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_a_dispatch_cut_by_a_kill_runs_again_only_by_the_commanders_decision(wire, ws):
    script = Script()
    with ModelServer(script) as server:
        def first_kernel(report: Callable[[str], None]) -> None:
            async def play() -> None:
                team = open_team(ws, server, wire)

                def die_once_started(event: object) -> None:
                    if isinstance(event, MemberEvent) and event.event.type == "text_delta":
                        report("researcher is streaming")
                        os.kill(os.getpid(), signal.SIGKILL)

                team.subscribe(die_once_started)
                await team.arun("do A and B")
            asyncio.run(play())

        assert in_a_killed_child(first_kernel) == ["researcher is streaming"]
        assert script.asked("researcher") == 1
        team = open_team(ws, server, wire)
        ledger = team.state.ledger
        by = {t.assignee: t for t in ledger.tasks}
        assert {a: t.status for a, t in by.items()} == {"commander": "interrupted",
                                                        "researcher": "interrupted"}
        assert by["researcher"].call_id  # the commander's call that asked for it
        # the commander is told of both, on the bus; nothing ran by itself
        assert sorted(m.task_id for m in team.state.notices) == sorted(t.id for t in by.values())
        assert len(script.seen) == 2

        result = asyncio.run(team.arun("what happened?"))
        assert result.text == "Done: A is 42"
        told = next(text for m, text in reversed(script.seen)
                    if m == "commander" and "what happened?" in text)
        assert f"The user's request {by['commander'].id} was interrupted" in told
        assert f"retry_of={by['researcher'].id!r}" in told
        retries = [t for t in ledger.tasks if t.parent == by["researcher"].id]
        assert [(t.assignee, t.status) for t in retries] == [("researcher", "done")]
        assert script.asked("researcher") == 2  # once cut short, once retried: never by itself
        with pytest.raises(StateError, match="already retried"):
            asyncio.run(team.dispatch("researcher", "find A", retry_of=by["researcher"].id))
        with pytest.raises(StateError, match="only a failed or interrupted task"):
            asyncio.run(team.dispatch("researcher", "find A", retry_of=retries[0].id))
        assert script.asked("researcher") == 2
        assert server.rejected == []
        team.close()
