"""The team over real HTTP on loopback, in both wire formats: parallel dispatches whose
requests carry only their own messages, then a hand-off, a hand-back and the commander's resume."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.core.events import MemberEvent
from tests.fakes.model_server import ModelServer
from tests.fakes.wire import Reply, ToolCall
from tests.team.teamkit import who, write_agents

WIRES = {"openai": ("openai/gpt-4o-mini", "openai_url"),
         "anthropic": ("anthropic/claude-sonnet-4-5", "anthropic_url")}


def system_of(payload: dict[str, Any]) -> str:
    if "system" in payload:
        return json.dumps(payload["system"])
    first = payload["messages"][0]
    return json.dumps(first["content"]) if first["role"] in ("system", "developer") else ""


def asked(payload: dict[str, Any]) -> int:
    """How many answers of its own the requester already got in this turn's context."""
    return sum(1 for m in payload["messages"] if m["role"] == "assistant")


class Script:
    def __init__(self) -> None:
        self.bodies: dict[str, list[str]] = {}

    def __call__(self, payload: dict[str, Any]) -> Reply:
        member = who(system_of(payload))
        body = json.dumps(payload["messages"])
        self.bodies.setdefault(member, []).append(body)
        n = len(self.bodies[member])
        if member == "commander":
            if n == 1:
                return Reply(tool_calls=[
                    ToolCall("dispatch_to", json.dumps({"agent": "researcher", "task": "find A"})),
                    ToolCall("dispatch_to", json.dumps({"agent": "writer", "task": "write B"}))])
            if n == 2:
                return Reply(text="Both done.")
            if n == 3:
                return Reply(tool_calls=[ToolCall("hand_off_to", json.dumps(
                    {"agent": "writer", "message": "help with the note"}))])
            return Reply(text="Resumed: the note is finished.")
        if member == "writer" and n >= 2:
            return Reply(text="Here is the note." if n == 2 else "Fixed.\n<handback />")
        return Reply(text=f"{member} says: done")


@pytest.mark.parametrize("wire", sorted(WIRES))
async def test_team_over_the_wire(wire, workspace):
    write_agents(workspace, researcher="Finds facts.", writer="Writes notes.")
    script = Script()
    model, url = WIRES[wire]
    with ModelServer(script) as server:
        agent = Agent(model, workspace=workspace, base_url=getattr(server, url), api_key="sk-test")
        team = build_team(agent, user_dir=workspace / "none")
        events = [e async for e in team.run("do A and B")]
        assert events[-1].result.text == "Both done."
        lanes = Counter(e.member for e in events if isinstance(e, MemberEvent)
                        and e.event.type == "done")
        assert lanes == {"researcher": 1, "writer": 1}
        (researcher,) = script.bodies["researcher"]
        assert "find A" in researcher and "write B" not in researcher
        assert "write B" in script.bodies["writer"][0] and "find A" not in script.bodies["writer"][0]
        assert "writer says: done" in script.bodies["commander"][1]
        # hand-off: the writer answers, the next un-addressed message goes to it, it hands back,
        # and the commander resumes the request still open in the ledger
        assert (await team.arun("now a note")).text == "Here is the note."
        assert team.state.ledger.floor.holder == "writer"
        assert (await team.arun("shorter please")).text == "Resumed: the note is finished."
        assert "shorter please" in script.bodies["writer"][-1]
        assert "Unfinished work" in script.bodies["commander"][-1]
        assert team.state.ledger.floor.holder == "commander" and team.state.ledger.unfinished() == []
        assert server.rejected == []
        team.close()
