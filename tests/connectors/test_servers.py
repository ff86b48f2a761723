"""Real MCP servers through a real agent: tools listed, called by a scripted model over the
wire, their results (text, image, structured) in the next request to the model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import psutil
import pytest

from orkas_nb import Agent
from orkas_nb.connectors import config as cfg
from orkas_nb.connectors.asking import review
from orkas_nb.connectors.runtime import manager
from tests.fakes.model_server import Reply, ToolCall

pytestmark = pytest.mark.slow


def _agent(ws: Path, server, approver, **kw):  # type: ignore[no-untyped-def]
    return Agent("openai/gpt-4o-mini", workspace=ws, base_url=server.openai_url,
                 api_key="sk-test", approver=approver, **kw)


def _tool_texts(body: dict) -> str:
    return json.dumps([m for m in body["messages"] if m["role"] in ("tool", "user")])


async def test_time_and_git_over_stdio_reach_the_model(home, ws, model_server, approve_all):  # noqa: F811
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "notes.txt").write_text("hello\n")
    cfg.save(ws, "time", {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]})
    cfg.save(ws, "git", {"command": "mcp-server-git", "args": ["--repository", str(ws)]})
    for name in ("time", "git"):
        assert (review(ws, name, approve_all)).approved
    model_server.push(
        Reply(tool_calls=[ToolCall("mcp__time__get_current_time", '{"timezone": "Asia/Tokyo"}'),
                          ToolCall("mcp__git__git_status", json.dumps({"repo_path": str(ws)}))]),
        Reply(text="done"))
    agent = _agent(ws, model_server, approve_all)
    names = agent.tools.names()
    assert {"mcp__time__get_current_time", "mcp__time__convert_time",
            "mcp__git__git_status", "mcp__git__git_log"} <= set(names)
    result = await agent.arun("what time is it in Tokyo, and what is the repo's state?")
    assert result.text == "done"
    first, second = model_server.posts()[-2:]
    offered = {t["function"]["name"] for t in first.json["tools"]}
    assert "mcp__git__git_status" in offered and "read_file" in offered
    sent = _tool_texts(second.json)
    assert "Asia/Tokyo" in sent and "+09:00" in sent  # the time server's answer
    assert "notes.txt" in sent  # git status lists the untracked file
    # Each (agent, connector) pair was asked about once, then remembered for the run.
    calls = [r for r in approve_all.asked if r.category == "mcp_call"]
    assert {r.scope_key for r in calls} == {"mcp:agent:time", "mcp:agent:git"}


async def test_everything_over_stdio_text_image_and_structured_content(
        home, ws, model_server, approve_all, everything_js, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", "sk-kernel-key-must-not-leak")
    cfg.save(ws, "everything", {"command": "node", "args": [str(everything_js), "stdio"],
                                "env": {"GREETING": "value-sealed-at-rest"}})
    assert (review(ws, "everything", approve_all)).approved
    model_server.push(
        Reply(tool_calls=[
            ToolCall("mcp__everything__echo", '{"message": "ping from the model"}'),
            ToolCall("mcp__everything__get-tiny-image", "{}"),
            ToolCall("mcp__everything__get-structured-content", '{"location": "Chicago"}'),
            ToolCall("mcp__everything__get-env", "{}")]),
        Reply(text="seen"))
    agent = _agent(ws, model_server, approve_all)
    assert (await agent.arun("use the everything server")).text == "seen"
    body = model_server.posts()[-1].json
    sent = _tool_texts(body)
    assert "Echo: ping from the model" in sent
    assert "humidity" in sent and "temperature" in sent  # structured content
    images = [p for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)
              for p in m["content"] if p.get("type") == "image_url"]
    assert images and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
    # The server's environment: its own variable, never the kernel's API key.
    assert "value-sealed-at-rest" in sent and "GREETING" in sent
    assert "sk-kernel-key-must-not-leak" not in sent and "OPENAI_API_KEY" not in sent


async def test_everything_over_streamable_http_with_sealed_headers(
        home, ws, model_server, approve_all, everything_http):  # noqa: F811
    cfg.save(ws, "remote", {"url": everything_http,
                            "headers": {"X-Api-Key": "header-secret-123"}})
    text = cfg.workspace_file(ws).read_text()
    assert "header-secret-123" not in text and "$secret" in text
    seen = review(ws, "remote", approve_all)
    assert seen.approved and "get-sum" in [t.name for t in seen.tools]
    assert approve_all.asked[0].category == "mcp_remote" and everything_http in approve_all.asked[0].subject
    model_server.push(Reply(tool_calls=[ToolCall("mcp__remote__get-sum", '{"a": 20, "b": 22}')]),
                      Reply(text="42"))
    agent = _agent(ws, model_server, approve_all)
    assert (await agent.arun("add")).text == "42"
    assert "42" in _tool_texts(model_server.posts()[-1].json)
    assert manager().running()[0].pid is None  # remote: no child process of ours


def _kill(pid: int) -> None:
    proc = psutil.Process(pid)
    proc.kill()
    try:
        proc.wait(5)
    except psutil.NoSuchProcess:
        pass  # reaped already by the manager's loop


async def test_a_dead_server_restarts_once_then_the_model_is_told(home, ws, approve_all):
    from orkas_nb.connectors.tools import connector_tools
    from orkas_nb.harness.cancellation import AbortSignal
    from orkas_nb.harness.tool_protocol import ToolContext

    cfg.save(ws, "time", {"command": "mcp-server-time"})
    review(ws, "time", approve_all)
    tools, _ = connector_tools(ws, [], approver=approve_all)
    tool = next(t for t in tools if t.name == "mcp__time__get_current_time")
    ctx = ToolContext(workspace=ws, abort=AbortSignal())
    first = tool.server.pid
    _kill(first)
    out = await tool.execute({"timezone": "UTC"}, ctx)
    assert not out.is_error and '"timezone": "UTC"' in out.text
    assert tool.server.pid not in (None, first) and tool.server.restarts == 1
    _kill(tool.server.pid)
    out = await tool.execute({"timezone": "UTC"}, ctx)
    assert out.is_error and "not running" in out.text and "restarted once" in out.text
    assert "time.log" in out.text


async def test_a_hung_call_times_out_with_a_clear_observation(home, ws, approve_all, everything_js):
    from orkas_nb.connectors.tools import connector_tools
    from orkas_nb.harness.cancellation import AbortSignal
    from orkas_nb.harness.tool_protocol import ToolContext

    cfg.save(ws, "slow", {"command": "node", "args": [str(everything_js), "stdio"], "timeout": 1})
    review(ws, "slow", approve_all)
    tools, _ = connector_tools(ws, [], approver=approve_all)
    tool = next(t for t in tools if t.name == "mcp__slow__trigger-long-running-operation")
    out = await tool.execute({"duration": 30, "steps": 2},
                             ToolContext(workspace=ws, abort=AbortSignal()))
    assert out.is_error and "did not answer" in out.text and "within 1 s" in out.text


async def test_a_server_that_cannot_start_is_one_line_for_the_user(home, ws, approve_all,
                                                                   model_server):  # noqa: F811
    cfg.save(ws, "broken", {"command": "no-such-mcp-server-binary-xyz"})
    from orkas_nb.connectors.consent import ConsentStore

    ConsentStore().approve(cfg.load(ws)["broken"])
    model_server.push(Reply(text="fine"))
    agent = _agent(ws, model_server, approve_all)
    assert not [n for n in agent.tools.names() if n.startswith("mcp__")]
    lines = [text for code, text in agent.runner.notices if code == "mcp"]
    assert len(lines) == 1 and "'broken' could not start" in lines[0] and "\n" not in lines[0]
    assert (await agent.arun("hi")).text == "fine"  # the agent itself runs


async def test_an_approved_server_that_cannot_start_is_told_to_the_model(home, ws, approve_all,
                                                                          model_server):
    secret = "tok-never-told-7f3a"
    cfg.save(ws, "broken", {"command": "no-such-mcp-server-binary-xyz", "env": {"TOKEN": secret}})
    cfg.save(ws, "unapproved", {"command": "mcp-server-time"})
    from orkas_nb.connectors.consent import ConsentStore

    ConsentStore().approve(cfg.load(ws)["broken"])
    model_server.push(Reply(text="fine"), Reply(text="still fine"))
    agent = _agent(ws, model_server, approve_all)
    await agent.arun("hi")
    await agent.arun("again")
    systems = [_system(r.json) for r in model_server.posts()]
    assert len(systems) == 2 and systems[0] == systems[1]  # every request: a steady prompt
    notes = [line for line in systems[0].splitlines() if "MCP server" in line]
    # One line, naming the server and why; the server the user did not approve is not the
    # model's business (the user was told), and no secret value reaches the model.
    assert len(notes) == 1, notes
    assert "'broken'" in notes[0] and "could not start" in notes[0] and "none of its tools" in notes[0]
    assert "no-such-mcp-server-binary-xyz" in notes[0] or "No such file" in notes[0], notes[0]
    assert "unapproved" not in systems[0] and secret not in json.dumps(
        [r.json for r in model_server.posts()])


def _system(body: dict) -> str:
    return "\n".join(m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
                     for m in body["messages"] if m["role"] in ("system", "developer"))
