"""Sessions outlive kernels: restart, kill -9 mid-tool, autoload from ipython_config.py."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from orkas_nb.harness.session import JsonlSession

from .conftest import SETUP
from .kernel import Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

PROFILE = '''
c = get_config()
c.InteractiveShellApp.extensions = ["orkas_nb"]
c.Agent.model = "$m"
c.Agent.max_steps = 7
'''


@pytest.fixture
def profile_env(tmp_path: Path) -> dict[str, str]:
    ipython_dir = tmp_path / "ipython"
    (ipython_dir / "profile_default").mkdir(parents=True)
    (ipython_dir / "profile_default" / "ipython_config.py").write_text(PROFILE)
    return {"IPYTHONDIR": str(ipython_dir), "JPY_SESSION_NAME": "/somewhere/Sales Report.ipynb",
            "ORKAS_RENDERER": "text"}


def test_autoload_config_file_and_a_session_that_survives_a_restart(
    tmp_path: Path, profile_env: dict[str, str]
) -> None:
    ws = tmp_path / "proj"
    ws.mkdir()
    setup = SETUP.replace("%load_ext orkas_nb\n", "")  # the profile loads the extension
    with Kernel(ws, env=profile_env) as k:
        k.run(setup)
        assert k.value("__import__('orkas_nb.notebook').notebook.current_state().config.max_steps") == 7
        k.run("m = ScriptedModel([reply('The answer is 42.')])")
        k.run("%%agent --no-tools\nWhat is the answer?")  # the model comes from the config file
        assert (ws / ".orkas/sessions/Sales_Report.jsonl").exists()  # named from the notebook
        k.restart()
        k.run(setup)
        k.run("m = ScriptedModel([reply('You asked for the answer.')])")
        cell = k.run("%%agent --no-tools\nWhat did I ask?")
        history = k.value("[(x.role, x.text) for x in m.requests[0].messages]")
        assert history == [["user", "What is the answer?"], ["assistant", "The answer is 42."],
                           ["user", "What did I ask?"]]
        assert "You asked for the answer." in k.shown(cell)[-1]["text/markdown"]


def test_kill_9_mid_tool_leaves_a_session_that_reloads_repaired(ws: Path) -> None:
    path = ws / ".orkas/sessions/crash.jsonl"
    k = Kernel(ws, env={"ORKAS_RENDERER": "text"}).start()
    try:
        k.run(SETUP)
        k.run('m = ScriptedModel([reply("Working on it.", call("slow", seconds=60))])')
        cell = k.send("%%agent -m $m -s crash\nDo the slow thing.")
        k.pump(lambda: any("→ slow" in d.get("text/plain", "") for d in k.shown(cell)), 30,
               "the tool to start")
        k.kill9()
    finally:
        k.stop()
    on_disk = [line for line in path.read_bytes().splitlines() if line.strip()]
    assert len(on_disk) == 2  # the prompt and the call; the call's result never came
    view = JsonlSession(path, readonly=True)
    assert "repaired tool-call pairing" in view.repair_notes
    assert [(m.role, getattr(m, "status", None)) for m in view.messages] == [
        ("user", None), ("assistant", None), ("tool", "interrupted")]
    with Kernel(ws) as k2:  # a new kernel on the same notebook continues the repaired session
        k2.run(SETUP)
        k2.run("m = ScriptedModel([reply('Picking up again.')])")
        started = time.monotonic()
        k2.run("%%agent -m $m -s crash --no-tools\nWhere were we?")
        assert time.monotonic() - started < 30
        assert k2.value("roles(m, 0)") == [["user", None], ["assistant", None],
                                           ["tool", "interrupted"], ["user", None]]
    assert len(JsonlSession(path, readonly=True).messages) == 5


def test_a_second_kernel_on_the_same_session_gets_a_clear_error(ws: Path) -> None:
    env = {"ORKAS_RENDERER": "text"}
    with Kernel(ws, env=env) as first, Kernel(ws, env=env) as second:
        for k in (first, second):
            k.run(SETUP)
            k.run("m = ScriptedModel([reply('mine')])")
        first.run("%%agent -m $m --no-tools -s shared\nhello")
        cell = second.run("%%agent -m $m --no-tools -s shared\nhello too", allow_error=True)
        (line,) = cell.error["traceback"]
        assert line.startswith("orkas: session 'shared.jsonl' is open for writing in another process")
        assert str(first.pid) in line
        shown = second.run("%agent show shared").stream()  # a read-only view still works
        assert "session shared: 2 messages" in shown and "agent> mine" in shown
    assert len(JsonlSession(ws / ".orkas/sessions/shared.jsonl", readonly=True).messages) == 2
