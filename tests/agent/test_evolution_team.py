"""Self-evolution through the composition root: a team over loopback HTTP, where the user's
retry of a named agent's task becomes a private skill its next run lists, loads and is told of."""

from __future__ import annotations

import json
from typing import Any

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.core.events import MemberEvent
from tests.fakes.model_server import ModelServer
from tests.fakes.wire import Reply
from tests.team.evolvekit import call, reflecting_agent, skill_text, turn_on
from tests.team.teamkit import who, write_agents


def system_of(payload: dict[str, Any]) -> str:
    first = payload["messages"][0]
    return json.dumps(first["content"]) if first["role"] in ("system", "developer") else ""


class Script:
    def __init__(self) -> None:
        self.systems: dict[str, list[str]] = {}
        self.reflections = 0

    def __call__(self, payload: dict[str, Any]) -> Reply:
        if reflecting_agent(payload) is not None:
            self.reflections += 1
            if len(payload["messages"]) <= 2:
                return Reply(tool_calls=[call("write_skill", name="unit-check",
                                              text=skill_text("unit-check"))])
            return Reply(text="Added unit-check: the user asked twice.")
        member = who(system_of(payload))
        self.systems.setdefault(member, []).append(system_of(payload))
        last = payload["messages"][-1]
        if member == "researcher" and "unit-check" in system_of(payload) and last["role"] == "user":
            return Reply(tool_calls=[call("skill", name="unit-check")])
        return Reply(text=f"{member}: 42")


def team(workspace, server):
    agent = Agent("openai/gpt-4o-mini", workspace=workspace, base_url=server.openai_url,
                  api_key="sk-test")
    return build_team(agent, user_dir=workspace / "none")


async def test_off_by_default_nothing_is_observed_or_written(workspace):
    write_agents(workspace, researcher="Finds facts.")
    with ModelServer(Script()) as server:
        t = team(workspace, server)
        for _ in range(3):
            await t.arun("@researcher find A")
        assert getattr(t, "evolution", None) is None
    assert not (workspace / ".orkas" / "evolution").exists()


async def test_a_retry_becomes_a_private_skill_the_next_run_lists_and_loads(workspace):
    write_agents(workspace, researcher="Finds facts.")
    turn_on(workspace, "researcher", threshold=5, cooling_hours=0)
    script = Script()
    with ModelServer(script) as server:
        t = team(workspace, server)
        await t.arun("@researcher find A")
        await t.arun("@researcher find A")  # the user asks again: a correction
        await t.evolution.wait()
        assert script.reflections == 2
        (record,) = t.evolution.history("researcher")
        assert record.status == "done" and record.signals == {"correction": 5.0}
        assert not (workspace / ".orkas" / "evolution" / "commander").exists()
        t.close()
        nxt = team(workspace, server)  # the next cell builds its team afresh
        events = [e async for e in nxt.run("@researcher find B")]
    member = [e.event for e in events if isinstance(e, MemberEvent) and e.member == "researcher"]
    notices = [e.message for e in member if e.type == "warning" and e.code == "skills_evolved"]
    assert len(notices) == 1 and "unit-check" in notices[0]
    (loaded,) = [e for e in member if e.type == "tool_end" and e.name == "skill"]
    assert loaded.status == "ok" and "Always state the unit" in loaded.result
    assert "<name>unit-check</name>" in script.systems["researcher"][-1]
    # a private skill is its agent's alone: the commander's catalog never holds it
    assert "unit-check" not in [sk.name for sk in nxt.commander.skills.skills]


def test_a_named_member_gets_its_definitions_skills_and_the_skill_tool(workspace):
    from orkas_nb.testing import ScriptedModel

    folder = workspace / ".orkas" / "skills" / "pdf-forms"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_text("pdf-forms"))
    (workspace / ".orkas" / "agents").mkdir(parents=True)
    (workspace / ".orkas" / "agents" / "filler.md").write_text(
        "---\nname: filler\ndescription: Fills forms.\ntools: [read_file]\nskills: [pdf-forms]\n"
        "---\nYou fill forms.\n")
    t = build_team(Agent(ScriptedModel(["ok"]), workspace=workspace), user_dir=workspace / "none")
    member = t.member("filler")
    assert [s.name for s in member.skills.skills] == ["pdf-forms"]
    assert sorted(member.tools.names()) == ["read_file", "skill"]
    t.close()


class Writes:
    """Each member writes the file its request names: reads it first when asked to rewrite."""

    def __call__(self, payload: dict[str, Any]) -> Reply:
        member = who(system_of(payload))
        messages = payload["messages"]
        asked = next(m for m in reversed(messages) if m["role"] == "user")
        content = asked["content"]
        text = content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)
        words = text.strip().splitlines()[-1].split()  # the request, after the team's context
        done = len(messages) - 1 - messages.index(asked)
        if member == "commander" or ("write" not in words and "rewrite" not in words):
            return Reply(text=f"{member}: ok")
        path = words[words.index("rewrite" if "rewrite" in words else "write") + 1]
        steps = ([call("read_file", path=path)] if "rewrite" in words else []) + [
            call("write_file", path=path, content=f"by {member}\n")]
        if done // 2 < len(steps):
            return Reply(tool_calls=[steps[done // 2]])
        return Reply(text=f"{member}: wrote {path}")


def corrections(workspace, agent: str = "researcher") -> list[str]:
    from orkas_nb.team.evolution import AgentStore

    return [s.note for s in AgentStore(workspace, agent).signals() if s.kind == "correction"]


async def test_the_user_editing_a_file_the_agent_wrote_is_one_correction(workspace):
    write_agents(workspace, researcher="Finds facts.", writer="Writes.")
    turn_on(workspace, "researcher", "writer", threshold=100)
    with ModelServer(Writes()) as server:
        t = team(workspace, server)
        await t.arun("@researcher write notes.md now")
        await t.arun("@researcher write kept.md now")
        assert (workspace / "notes.md").read_text() == "by researcher\n"
        assert corrections(workspace) == []
        (workspace / "notes.md").write_text("by researcher\nfixed by the user: SECRET-CONTENT\n")
        t.close()
        nxt = team(workspace, server)  # the next cell builds its team afresh
        await nxt.arun("@researcher check the notes")
        await nxt.arun("@researcher check them again")
        nxt.close()
    (note,) = corrections(workspace)  # once, for the edited file only; kept.md is unchanged
    assert "notes.md" in note and "SECRET" not in note and "kept.md" not in note


async def test_a_file_another_agent_rewrote_is_no_correction_of_the_first(workspace):
    write_agents(workspace, researcher="Finds facts.", writer="Writes.")
    turn_on(workspace, "researcher", "writer", threshold=100)
    with ModelServer(Writes()) as server:
        t = team(workspace, server)
        await t.arun("@researcher write notes.md now")
        await t.arun("@writer rewrite notes.md now")
        assert (workspace / "notes.md").read_text() == "by writer\n"
        (workspace / "notes.md").write_text("by writer, fixed by the user\n")
        await t.arun("@researcher check the notes")
        await t.arun("@writer check the notes")
        t.close()
    assert corrections(workspace) == []  # the writer's output was edited, not the researcher's
    (note,) = corrections(workspace, "writer")
    assert "notes.md" in note
