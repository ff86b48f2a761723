"""The tool set every agent gets, and the Agent options that reach it."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_nb import Agent
from orkas_nb.core.errors import ConfigError
from orkas_nb.core.messages import ToolResultMessage
from orkas_nb.harness.approval import Decision, to_decision
from orkas_nb.testing import ScriptedModel, call, reply
from orkas_nb.tools import default_tools

from .conftest import Recorder


def test_tool_set_and_read_only_flags(tmp_path: Path) -> None:
    tools = {t.name: t for t in default_tools(tmp_path, settings={"isolation": "off"})}
    assert sorted(tools) == ["bash", "bash_poll", "bash_stop", "edit_file", "grep_files",
                             "read_file", "search_files", "stat_file", "web_fetch", "write_file"]
    read_only = sorted(n for n, t in tools.items() if t.read_only)
    assert read_only == ["bash_poll", "grep_files", "read_file", "search_files", "stat_file",
                         "web_fetch"]
    assert "without OS isolation" in tools["bash"].description
    with pytest.raises(ConfigError):
        default_tools(tmp_path, settings={"isolation": "sometimes"})
    with pytest.raises(ConfigError, match="cannot be the root"):
        default_tools(tmp_path, allowed_paths=["/"])


def test_to_decision_fails_closed() -> None:
    assert to_decision("RUN") is Decision.RUN and to_decision(True) is Decision.ONCE
    for bad in (None, False, "yes please", 1):
        assert to_decision(bad) is Decision.DENY


async def test_agent_passes_allowed_paths_and_approver(tmp_path: Path) -> None:
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    data.mkdir()
    (data / "d.csv").write_text("a,b\n1,2\n")
    recorder = Recorder(answer=Decision.DENY)
    model = ScriptedModel([
        reply("", call("read_file", path=str(data / "d.csv")),
              call("bash", command="rm -r old_results")),
        reply("done"),
    ])
    agent = Agent(model, workspace=ws, allowed_paths=[data], approver=recorder,
                  tool_settings={"isolation": "off"})
    result = await agent.arun("go")
    read, bash = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert read.status == "ok" and "1,2" in read.text
    assert bash.status == "denied" and "Denied" in bash.text
    assert [r.category for r in recorder.asked] == ["destructive_delete"]
    assert result.stats.denials == 1 and result.stats.tool_failures == 0


async def test_a_failing_approver_denies(tmp_path: Path) -> None:
    from orkas_nb.harness.approval import ApprovalGate, ApprovalRequest
    from orkas_nb.harness.cancellation import AbortSignal

    def broken(request):
        raise RuntimeError("widget gone")

    gate = ApprovalGate(broken)
    request = ApprovalRequest(kind="command", category="destructive_delete", subject="rm -r x",
                              reasons=["r"], scope_key="k", scope_text="t")
    assert await gate.ask(request, run=AbortSignal()) is Decision.DENY


def test_import_stays_light() -> None:
    import subprocess
    import sys

    heavy = ["tree_sitter", "tree_sitter_bash", "pypdf", "docx", "openpyxl", "pptx", "bs4",
             "regex", "pathspec", "psutil"]
    code = ("import sys, orkas_nb, orkas_nb.tools; "
            f"print([m for m in {heavy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_run_grants_end_with_the_run() -> None:
    import gc

    from orkas_nb.harness.approval import ApprovalGate, ApprovalRequest
    from orkas_nb.harness.cancellation import AbortSignal

    asked = []

    def approver(request):
        asked.append(request.scope_key)
        return Decision.RUN

    gate = ApprovalGate(approver)
    request = ApprovalRequest(kind="command", category="destructive_delete", subject="rm -r x",
                              reasons=["r"], scope_key="command:destructive_delete", scope_text="t")
    run = AbortSignal()
    assert await gate.ask(request, run=run) is Decision.RUN
    assert await gate.ask(request, run=run) is Decision.RUN and len(asked) == 1
    other = request.model_copy(update={"scope_key": "command:exfiltration"})
    await gate.ask(other, run=run)
    assert len(asked) == 2  # a grant covers its scope only
    del run
    gc.collect()
    assert len(gate._grants) == 0  # the run is over: its grants are gone
    assert await gate.ask(request, run=AbortSignal()) is Decision.RUN and len(asked) == 3
