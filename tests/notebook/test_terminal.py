"""%%agent in a plain (terminal) IPython shell: no kernel, no display ids, text to stdout."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from orkas_nb.testing import ScriptedModel, call, reply


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    (tmp_path / "a.txt").write_text("hello from a file\n")
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "orkas_nb")
    yield ip
    ip.run_line_magic("unload_ext", "orkas_nb")


@pytest.mark.parametrize("awaited", [True, False])
def test_a_terminal_run_streams_text_and_saves_the_session(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str], awaited: bool
) -> None:
    shell.run_line_magic("config", f"Agent.top_level_await = {awaited}")
    shell.user_ns["m"] = m = ScriptedModel([reply("Reading.", call("read_file", path="a.txt")),
                                            reply("It says hello.")])
    result = shell.run_cell("%%agent -m $m\nWhat does a.txt say?", store_history=True)
    assert result.success, result.error_in_exec
    out = capsys.readouterr().out
    assert out.count("Reading.") == 1 and "→ read_file(path='a.txt')" in out and "It says hello." in out
    assert "\x1b" not in out and "application/vnd.orkas" not in out
    transformed = shell.user_ns["In"][-1]
    assert transformed.startswith("await ") == awaited  # the awaited path, or the cell magic
    assert "hello from a file" in m.requests[1].messages[-1].text
    assert (tmp_path / ".orkas/sessions" / f"{tmp_path.name}.jsonl").exists()


def test_background_needs_a_loop_in_a_terminal(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    shell.run_line_magic("config", "Agent.top_level_await = False")
    shell.user_ns["m"] = ScriptedModel([reply("x")])
    shell.run_cell("%%agent -m $m --background\nhi")
    assert "UsageError: --background needs a running event loop" in capsys.readouterr().err
