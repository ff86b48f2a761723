"""The Agent facade from a plain script: default tools, sessions on disk, sync and async entries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orkas_nb import Agent, tool
from orkas_nb.core.errors import ConfigError
from orkas_nb.core.events import Done
from orkas_nb.harness import JsonlSession
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.testing import ScriptedModel, call, reply


def test_agent_runs_a_tool_loop_in_its_workspace_and_persists_the_session(workspace: Path) -> None:
    (workspace / "data.txt").write_text("forty-two")
    model = ScriptedModel([
        reply("", call("read_file", path="data.txt")),
        reply("", call("write_file", path="out/answer.txt", content="42")),
        reply("The answer is 42."),
    ])
    with Agent(model, workspace=workspace, session="nb") as agent:
        result = agent.run_sync("what is in data.txt?")
    assert result.ok and result.text == "The answer is 42."
    assert result.output_files == ["out/answer.txt"]
    assert (workspace / "out" / "answer.txt").read_text() == "42"
    assert model.requests[1].messages[-1].text == "forty-two"
    saved = JsonlSession(workspace / ".orkas" / "sessions" / "nb.jsonl", readonly=True)
    assert len(saved.messages) == 6 and pairing_problems(saved.messages) == []
    # The system prompt names the workspace, and the default tools were offered.
    assert str(workspace.resolve()) in model.requests[0].system
    assert {"read_file", "write_file"} <= {t.name for t in model.requests[0].tools}


def test_a_second_agent_continues_the_same_session(workspace: Path) -> None:
    with Agent(ScriptedModel([reply("first answer")]), workspace=workspace, session="s") as a:
        a.run_sync("first question")
    model = ScriptedModel([reply("second answer")])
    with Agent(model, workspace=workspace, session="s") as b:
        b.run_sync("second question")
    texts = [m.text for m in model.requests[0].messages]
    assert texts == ["first question", "first answer", "second question"]


async def test_user_tools_join_and_can_replace_defaults(workspace: Path) -> None:
    @tool
    def read_file(path: str) -> str:
        """My own reader."""
        return f"custom:{path}"

    model = ScriptedModel([reply("", call("read_file", path="x")), reply("ok")])
    agent = Agent(model, workspace=workspace, tools=[read_file])
    events = [e async for e in agent.run("go")]
    assert isinstance(events[-1], Done)
    assert model.requests[1].messages[-1].text == "custom:x"
    assert [t.name for t in model.requests[0].tools].count("read_file") == 1


async def test_steer_and_stop_through_the_agent(workspace: Path) -> None:
    model = ScriptedModel([reply("", call("search_files", pattern="*")), reply("saw steer"), reply("x")])
    agent = Agent(model, workspace=workspace)
    events = []
    async for e in agent.run("go"):
        events.append(e)
        if e.type == "tool_start":
            agent.steer("also check the notes")
    assert any(e.type == "steer" for e in events)
    assert model.requests[1].messages[-1].text == "also check the notes"

    slow = Agent(ScriptedModel([reply("z " * 500, delay_s=0.005, chunk_chars=2)]), workspace=workspace)
    seen = 0
    async for e in slow.run("go"):  # noqa: B007 - the last event is checked after the loop
        seen += 1
        if seen == 3:
            slow.stop()
    assert e.type == "done" and e.result.stop_reason == "cancelled"


def test_bad_construction_gives_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a folder"):
        Agent(ScriptedModel([]), workspace=tmp_path / "missing")


async def test_run_sync_works_inside_a_running_loop_and_arun_after_it(workspace: Path) -> None:
    # A notebook cell runs inside the kernel's loop; tests/agent/test_run_sync.py has the rest.
    agent = Agent(ScriptedModel([reply("x"), reply("y")]), workspace=workspace)
    assert agent.run_sync("go").text == "x"
    assert (await agent.arun("go")).text == "y"


def test_the_engine_runs_from_a_plain_script_without_jupyter(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(
        "import sys\n"
        "from orkas_nb import Agent\n"
        "from orkas_nb.testing import ScriptedModel, reply, call\n"
        "m = ScriptedModel([reply('', call('search_files')), reply('done')])\n"
        f"r = Agent(m, workspace={str(tmp_path)!r}).run_sync('hi')\n"
        "assert r.text == 'done', r\n"
        "jupyter = sorted(k for k in sys.modules if k.split('.')[0] in "
        "('IPython', 'ipykernel', 'ipywidgets', 'jupyter_client', 'zmq', 'orkas_nb.notebook'))\n"
        "print('loaded:', jupyter)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "loaded: []"


def test_demo_command_runs_a_real_tool_loop() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "orkas_nb", "demo"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "→ read_file(path='sales.csv')" in out.stdout
    assert "← write_file [ok" in out.stdout
    assert "pairing ok" in out.stdout


def test_memory_and_knowledge_are_wired_only_where_turned_on(workspace: Path, tmp_path: Path,
                                                            monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from orkas_nb.memory import CrossSessionMemory, open_knowledge_base

    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(tmp_path / "config"))
    # Off by default: no memory tool, no kb tool, the plain system prompt.
    plain = ScriptedModel([reply("hi")])
    Agent(plain, workspace=workspace).run_sync("hello")
    names = {t.name for t in plain.requests[0].tools}
    assert "memory" not in names and "kb_search" not in names
    assert "<memory>" not in plain.requests[0].system

    (workspace / "runbook.md").write_text("# Runbook\nRestart the queue with `make requeue`.\n")
    open_knowledge_base(workspace).add("runbook.md")
    memory = CrossSessionMemory(workspace)
    memory.enable()  # what `%agent memory on` does
    memory.add("notes", "The queue is RabbitMQ.")
    model = ScriptedModel([
        reply("", call("kb_search", query="restart the queue")),
        reply("", call("memory", action="add", target="profile", content="Prefers make targets.")),
        reply("Use `make requeue`."),
        reply("ok"),
    ])
    agent = Agent(model, workspace=workspace)
    assert agent.run_sync("how do I restart the queue?").ok
    assert "runbook.md:1-2" in model.requests[1].messages[-1].text
    systems = {r.system for r in model.requests[:3]}
    assert len(systems) == 1 and "The queue is RabbitMQ." in systems.pop()  # frozen for the turn
    agent.run_sync("thanks")
    assert "Prefers make targets." in model.requests[3].system  # the next turn sees the write

    off = ScriptedModel([reply("x")])
    Agent(off, workspace=workspace, memory=False, knowledge=False).run_sync("hello")
    assert not {"memory", "kb_search"} & {t.name for t in off.requests[0].tools}
