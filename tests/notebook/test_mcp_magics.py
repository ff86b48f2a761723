"""%agent mcp add|list|test|tools|allow|remove in a real kernel, a %%agent cell calling a real
MCP server, and the server stopped when the kernel shuts down."""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest

from .conftest import SETUP
from .kernel import Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

SECRET = "tok-kernel-secret-9d1b"


def test_mcp_magics_a_cell_using_a_server_and_shutdown(tmp_path: Path) -> None:
    ws, config = tmp_path / "project", tmp_path / "config"
    ws.mkdir()
    env = {"ORKAS_RENDERER": "text", "ORKAS_CONFIG_DIR": str(config), "ORKAS_KEYRING": "0"}
    k = Kernel(ws, env=env).start()
    try:
        k.run(SETUP)
        out = k.run(f"%agent mcp add time mcp-server-time --local-timezone UTC --env TOKEN={SECRET}").stream()
        assert "added 'time'" in out and "nothing runs until you approve it" in out
        assert "`mcp-server-time --local-timezone UTC`; environment: TOKEN" in out and SECRET not in out
        assert "not approved" in k.run("%agent mcp list").stream()
        assert "'time' is not approved" in k.run("%agent mcp tools").stream()
        # A cell before approval: the agent runs without the server, and the user is told why.
        k.run('m0 = ScriptedModel([reply("no clock here")])')
        before = k.transcript(k.run("%%agent -m $m0\nWhat time is it?"))
        assert [n for n in before["notices"] if n["kind"] == "mcp" and "'time' is not approved" in n["text"]]
        assert not [t for t in k.value("[t.name for t in m0.requests[0].tools]") if t.startswith("mcp__")]
        # Nobody can answer input() here: asking refuses and says how to approve.
        refused = k.run("%agent mcp test time").stream()
        assert "cannot ask here" in refused and "not approved" in refused
        assert k.value("len(__import__('orkas_nb.connectors.runtime', fromlist=['x']).manager().running())") == 0
        ok = k.run("%agent mcp test time --yes").stream()
        assert "'time' runs with 2 tool(s)" in ok and "get_current_time" in ok
        assert "mcp__time__convert_time" in k.run("%agent mcp tools").stream()
        assert "no longer ask" in k.run("%agent mcp allow time").stream()
        k.run('m = ScriptedModel([reply("Checking.", call("mcp__time__get_current_time", '
              'timezone="Asia/Tokyo")), reply("It is evening in Tokyo.")])')
        cell = k.run("%%agent -m $m\nWhat time is it in Tokyo?")
        assert cell.status == "ok"
        sent = k.value("[x.text for x in m.requests[1].messages if x.role == 'tool']")
        assert any("Asia/Tokyo" in t and "+09:00" in t for t in sent), sent
        pid = k.value("__import__('orkas_nb.connectors.runtime', fromlist=['x']).manager().running()[0].pid")
        assert psutil.pid_exists(pid)
        bad = k.run("%agent mcp add x {not json", allow_error=True).stream("stderr")
        assert bad.startswith("UsageError: ") and "not valid JSON" in bad
        both = k.run("%agent mcp add y --user {\"command\": \"a\", \"url\": \"http://h\"}",
                     allow_error=True).stream("stderr")
        assert both.startswith("UsageError: ") and "either 'command'" in both
    finally:
        k.kc.stop_channels()
        k.km.shutdown_kernel(now=False)  # a graceful shutdown, as a front end asks for one
    deadline = time.monotonic() + 15
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert (ws / ".orkas" / "mcp" / "time.log").is_file()


def test_a_server_that_cannot_start_is_one_usage_line(tmp_path: Path) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    env = {"ORKAS_RENDERER": "text", "ORKAS_CONFIG_DIR": str(tmp_path / "config"), "ORKAS_KEYRING": "0"}
    with Kernel(ws, env=env) as k:
        k.run(SETUP)
        k.run("%agent mcp add gone no-such-mcp-server-binary-xyz")
        err = k.run("%agent mcp test gone --yes", allow_error=True).stream("stderr")
        assert err.startswith("UsageError: ") and "'gone' could not start" in err
        assert "\n" not in err.strip()
        # Approved (as if it had started once) yet down: the cell's model is told, not only the user.
        k.run("from orkas_nb.connectors import config as cfg\n"
              "from orkas_nb.connectors.consent import ConsentStore\n"
              "ConsentStore().approve(cfg.load('.')['gone'])")
        k.run('m = ScriptedModel([reply("no server")])')
        cell = k.transcript(k.run("%%agent -m $m\nUse the server."))
        assert [n for n in cell["notices"] if n["kind"] == "mcp" and "'gone' could not start" in n["text"]]
        system = k.value("m.requests[0].system")
        assert "'gone' could not start" in system and "none of its tools are available" in system
        err = k.run("%agent mcp test nobody", allow_error=True).stream("stderr")
        assert err.startswith("UsageError: ") and "no MCP server named 'nobody'" in err
