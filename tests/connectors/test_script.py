"""From a plain script: an agent without MCP servers never imports the SDK; one with an
approved server calls it, and the server is stopped when the script ends."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[2]


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ORKAS_CONFIG_DIR": str(tmp_path / "cfg"), "ORKAS_KEYRING": "0",
           "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)


def test_an_agent_without_servers_loads_neither_the_sdk_nor_cryptography(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    out = _run("import sys\nfrom orkas_nb import Agent\nfrom orkas_nb.testing import ScriptedModel, reply\n"
               "a = Agent(ScriptedModel([reply('hi')]), workspace='ws')\n"
               "assert a.run_sync('x').text == 'hi'\n"
               "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'cryptography', 'httpx2')))",
               tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_script_calls_an_approved_server_and_stops_it_at_exit(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    code = """
from orkas_nb import Agent
from orkas_nb.testing import ScriptedModel, reply, call
from orkas_nb.connectors import config, review
from orkas_nb.connectors.runtime import manager
config.save('ws', 'time', {'command': 'mcp-server-time'})
assert review('ws', 'time', lambda r: 'once').approved
m = ScriptedModel([reply('', call('mcp__time__get_current_time', timezone='Europe/Paris')), reply('done')])
a = Agent(m, workspace='ws', approver=lambda r: 'run')
assert a.run_sync('what time is it in Paris?').text == 'done'
tool_text = [x.text for x in m.requests[1].messages if x.role == 'tool'][0]
assert 'Europe/Paris' in tool_text, tool_text
print(manager().running()[0].pid)
"""
    out = _run(code, tmp_path)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.strip().splitlines()[-1])
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not psutil.pid_exists(pid), "the server outlived the script"
