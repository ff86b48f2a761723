"""The reverse gateway (issue 17), driven by a small external MCP client program standing in for
an external agent (tests/fakes/external_agent.py): a missing, wrong or expired credential is
refused, the right one works; an external agent defined with ``command:`` is approved once,
dispatched to with its task, and calls this workspace's skills, knowledge base and connectors
back, each connector call confirmed per (agent, connector)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from orkas_nb.connectors.gateway import Gateway, GatewayReply, GatewayTool
from orkas_nb.harness.approval import ApprovalRequest, Decision

AGENT = Path(__file__).parents[1] / "fakes" / "external_agent.py"


async def _echo(args: dict) -> GatewayReply:
    return GatewayReply(f"echo {args.get('x')}")


ECHO = GatewayTool("echo", "Echo x.", {"type": "object", "properties": {"x": {"type": "string"}}},
                   _echo)


PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


async def _plot(args: dict) -> GatewayReply:
    return GatewayReply("a plot", images=[("image/png", PIXEL)], structured={"points": 3})


PLOT = GatewayTool("plot", "A plot.", {"type": "object", "properties": {}}, _plot)


async def test_images_and_structured_content_reach_the_external_agent_as_such() -> None:
    async with Gateway() as gw:
        cred = gw.open_run("ext", [ECHO, PLOT], ttl_s=60)
        code, out, err = await _external('call plot {}\ncall echo {"x": "hi"}', cred.env())
        assert code == 0, err
        assert "RESULT plot error=False: a plot" in out
        assert "EXTRAS plot images=['image/png'] structured={\"points\": 3}" in out
        assert "EXTRAS echo" not in out  # a text-only answer stays text only


async def _old_style(args: dict) -> tuple[str, bool]:
    return "a bare tuple", False


async def test_a_handler_that_answers_no_gateway_reply_is_a_clear_error_for_the_caller() -> None:
    old = GatewayTool("old", "Answers a tuple.", {"type": "object", "properties": {}}, _old_style)
    async with Gateway() as gw:
        cred = gw.open_run("ext", [old, ECHO], ttl_s=60)
        code, out, err = await _external('call old {}\ncall echo {"x": "after"}', cred.env())
        assert code == 0, err
        assert "RESULT old error=True: TypeError: tool 'old' answered tuple, not a GatewayReply" in out
        assert "RESULT echo error=False: echo after" in out  # the gateway goes on


async def _external(task: str, env: dict[str, str], **extra: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(AGENT), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **env, **extra})
    out, err = await asyncio.wait_for(proc.communicate(task.encode()), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_the_right_credential_works_and_others_are_refused(tmp_path: Path) -> None:
    keep = str(tmp_path / "kept.json")
    async with Gateway() as gw:
        folder = gw.socket_path.parent
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE(gw.socket_path.stat().st_mode) == 0o600
        first = gw.open_run("ext", [ECHO], ttl_s=60)
        code, out, err = await _external('token KEEP\nlist\ncall echo {"x": "hi"}', first.env(),
                                         KEEP_ENV_FILE=keep)
        assert code == 0, err
        assert "TOOLS echo" in out and "RESULT echo error=False: echo hi" in out
        code, out, err = await _external("token WRONG\nlist", first.env())
        assert code == 4 and "TOOLS" not in out and "refused: wrong credential" in err
        gw.close_run(first)  # the run ended: its credential is destroyed
        second = gw.open_run("ext", [ECHO], ttl_s=60)
        code, out, err = await _external("token REUSE\nlist", second.env(), KEEP_ENV_FILE=keep)
        assert code == 4 and "refused: expired credential" in err and "TOOLS" not in out
        assert not first.config_path.exists()  # the mcpServers file of the ended run is gone
        short = gw.open_run("ext", [ECHO], ttl_s=0.2)
        await asyncio.sleep(0.4)
        assert await _hello(gw, short.token) == {"ok": False, "error": "expired credential"}
        assert await _hello(gw, second.token) == {"ok": True}  # another run's is unaffected
    assert not folder.exists()  # the socket and its folder go with the gateway


async def _hello(gw: Gateway, token: object) -> dict:
    reader, writer = await asyncio.open_unix_connection(str(gw.socket_path))
    writer.write(json.dumps({"orkas_gateway": 1, "token": token}).encode() + b"\n")
    await writer.drain()
    reply = json.loads(await reader.readline())
    writer.close()
    return reply


async def test_a_run_that_ends_closes_its_open_connections() -> None:
    async with Gateway() as gw:
        cred = gw.open_run("ext", [ECHO], ttl_s=60)
        reader, writer = await asyncio.open_unix_connection(str(gw.socket_path))
        writer.write(json.dumps({"orkas_gateway": 1, "token": cred.token}).encode() + b"\n")
        await writer.drain()
        assert json.loads(await reader.readline()) == {"ok": True}
        gw.close_run(cred)
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the gateway
        writer.close()
        assert await _hello(gw, None) == {"ok": False, "error": "missing credential"}
        # Raw clients: nothing, garbage, a non-string token.
        for hello in (b"\n", b"not json\n", b'{"token": 42}\n'):
            reader, writer = await asyncio.open_unix_connection(str(gw.socket_path))
            writer.write(hello)
            await writer.drain()
            reply = json.loads(await reader.readline())
            assert reply["ok"] is False and reply["error"] == "missing credential"
            writer.close()


def test_no_network_port_is_opened() -> None:
    async def main() -> list[str]:
        async with Gateway() as gw:
            gw.open_run("ext", [ECHO], ttl_s=60)
            import psutil

            return [c.type.name for c in psutil.Process().net_connections(kind="inet")
                    if c.status == "LISTEN"]

    assert asyncio.run(main()) == []


# -- an external agent in a team ----------------------------------------------------------------

SKILL = "---\nname: tally\ndescription: Counts things.\n---\nRun `cat $SKILL_DIR/data.txt`.\n"


def _team(ws: Path, approver, command: list[str], durable: bool = False, env: str = ""):
    from orkas_nb import Agent
    from orkas_nb.agent.team import build_team
    from orkas_nb.testing import ScriptedModel

    agents = ws / ".orkas" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "ext.md").write_text("---\nname: ext\ndescription: An outside agent.\ncommand: "
                                   + json.dumps(command) + (f"\nenv: {env}" if env else "")
                                   + "\n---\n")
    skill = ws / ".orkas" / "skills" / "tally"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "data.txt").write_text("TALLY-4242\n")
    agent = Agent(ScriptedModel([]), workspace=ws, approver=approver, memory=False)
    return build_team(agent, durable=durable)


async def test_an_external_agent_is_approved_once_then_calls_back(home, ws) -> None:
    from orkas_nb import memory

    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision.ONCE

    (ws / "notes.md").write_text("# Notes\nThe launch code word is PELICAN-88.\n")
    memory.knowledge_base_for(ws, None).add(ws / "notes.md")
    team = _team(ws, approver, [sys.executable, str(AGENT)])
    task = "\n".join(["list", "call list_skills", 'call read_skill {"name": "tally"}',
                      'call run_skill {"name": "tally", "command": "cat $SKILL_DIR/data.txt"}',
                      'call search_knowledge {"query": "launch code word"}'])
    outcome = await team.dispatch("ext", task)
    assert outcome.status == "done", outcome
    text = outcome.summary
    assert "TOOLS call_connector list_connectors list_skills read_skill run_skill search_knowledge" in text
    assert '"name": "tally"' in text and "Run `cat $SKILL_DIR/data.txt`." in text
    assert "TALLY-4242" in text and "PELICAN-88" in text
    consent = [r for r in asked if r.category == "external_agent"]
    assert len(consent) == 1 and str(AGENT) in consent[0].subject
    assert (await team.dispatch("ext", "list")).status == "done"
    assert len([r for r in asked if r.category == "external_agent"]) == 1  # remembered
    team.close()


async def test_an_external_agent_gets_the_variables_it_names_and_no_other_key(
        home, ws, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf-chosen-123")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-kernel-456")
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision.ONCE

    show = ["sh", "-c", 'echo "hf=${HF_TOKEN:-none} openai=${OPENAI_API_KEY:-none}"']
    team = _team(ws, approver, show, env="[HF_TOKEN]")
    outcome = await team.dispatch("ext", "go")
    assert "hf=hf-chosen-123 openai=none" in outcome.summary
    assert "environment: HF_TOKEN" in asked[-1].subject  # the names are what the user approved
    team.close()
    team = _team(ws, approver, show, env="[HF_TOKEN, OPENAI_API_KEY]")  # another name: ask again
    outcome = await team.dispatch("ext", "go")
    assert "openai=sk-kernel-456" in outcome.summary
    assert len([r for r in asked if r.category == "external_agent"]) == 2
    team.close()


async def test_a_refused_external_agent_starts_nothing(home, ws, tmp_path) -> None:
    marker = tmp_path / "started"
    team = _team(ws, lambda r: Decision.DENY, ["sh", "-c", f"touch {marker}"])
    outcome = await team.dispatch("ext", "anything")
    assert outcome.status == "failed" and "did not approve" in outcome.reason
    assert not marker.exists()
    team.close()


async def test_connector_calls_through_the_gateway_are_confirmed_per_pair(home, ws) -> None:
    import shutil

    from orkas_nb.connectors import config as cfg
    from orkas_nb.connectors.consent import ConsentStore

    if shutil.which("mcp-server-time") is None:
        pytest.skip("mcp-server-time is not installed (the test extra)")
    (ws / ".orkas").mkdir(exist_ok=True)
    (ws / ".orkas" / "mcp.json").write_text(json.dumps(
        {"mcpServers": {"time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]}}}))
    ConsentStore().approve(cfg.load(ws)["time"], None)
    answers = {"mcp_call": Decision.DENY}
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return answers.get(request.category, Decision.ONCE)

    team = _team(ws, approver, [sys.executable, str(AGENT)])
    call = 'call call_connector {"tool": "mcp__time__get_current_time", "arguments": {"timezone": "UTC"}}'
    outcome = await team.dispatch("ext", "call list_connectors\n" + call)
    assert "mcp__time__get_current_time" in outcome.summary
    assert "error=True" in outcome.summary and "did not allow 'ext'" in outcome.summary
    pair = [r for r in asked if r.category == "mcp_call"]
    assert pair and pair[-1].agent == "ext" and pair[-1].scope_key == "mcp:ext:time"
    answers["mcp_call"] = Decision.ONCE
    outcome = await team.dispatch("ext", call)
    assert "RESULT call_connector error=False" in outcome.summary
    assert '"timezone": "UTC"' in outcome.summary and '"datetime"' in outcome.summary
    team.close()


async def test_the_group_stop_ends_the_program(home, ws, tmp_path) -> None:
    import psutil

    pidfile = tmp_path / "pid"
    script = f"echo $$ > {pidfile}; echo started; exec sleep 60"
    team = _team(ws, lambda r: Decision.ONCE, ["sh", "-c", script])
    task = asyncio.ensure_future(team.dispatch("ext", "wait"))
    started = time.monotonic()
    while not (pidfile.exists() and pidfile.read_text().strip()):
        assert time.monotonic() - started < 60, "the program did not start"
        await asyncio.sleep(0.05)
    pid = int(pidfile.read_text())
    assert psutil.pid_exists(pid)
    team.stop("stopped by the user")
    outcome = await asyncio.wait_for(task, 20)
    assert outcome.status == "interrupted"

    def gone() -> bool:
        try:
            return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    stopped = time.monotonic()  # the kill is sent; its reaping may lag on a loaded machine
    while not gone() and time.monotonic() - stopped < 10:  # the program sleeps 60 s if not killed
        await asyncio.sleep(0.05)
    assert gone()
    team.close()


async def test_the_credential_is_in_no_file_the_run_wrote(home, ws, tmp_path) -> None:
    keep = tmp_path / "seen-by-the-program.json"
    team = _team(ws, lambda r: Decision.ONCE, [sys.executable, str(AGENT)], durable=True)
    os.environ["KEEP_ENV_FILE"] = str(keep)
    try:
        outcome = await team.dispatch("ext", "token KEEP\nlist")
    finally:
        del os.environ["KEEP_ENV_FILE"]
    assert outcome.status == "done" and "TOOLS" in outcome.summary
    token = json.loads(keep.read_text())["ORKAS_GATEWAY_TOKEN"]
    team.close()
    written = [p for base in (ws, home) for p in base.rglob("*") if p.is_file()]
    assert any(p.suffix == ".log" for p in written)  # the program's stderr log, among others
    assert [p for p in written if token.encode() in p.read_bytes()] == []


def test_a_connector_result_keeps_its_structured_content_to_hand_on() -> None:
    import mcp.types as types

    from orkas_nb.connectors.tools import to_output

    result = types.CallToolResult(content=[types.TextContent(type="text", text="22 C")],
                                  structured_content={"temperature": 22})
    out = to_output(result)
    assert out.structured == {"temperature": 22} and "temperature" in out.text
    assert to_output(types.CallToolResult(content=[])).structured is None
