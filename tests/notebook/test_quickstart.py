"""The quickstart runs end to end with no key: `python -m orkas_nb quickstart`."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from orkas_nb.__main__ import main
from orkas_nb.harness.session import JsonlSession
from orkas_nb.notebook.views.transcript import TRANSCRIPT_MIME, Transcript

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

SOURCE = Path(__file__).resolve().parents[2] / "notebooks" / "01-quickstart.ipynb"


def test_the_committed_notebook_is_clean_and_says_its_cassette_is_authored() -> None:
    nb = nbformat.read(SOURCE, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert "*authored*" in nb.cells[0].source


def test_quickstart_command_runs_the_notebook_with_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ORKAS_MODEL", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "qs"
    for _attempt in range(2):  # a second run in the same folder replays identically
        assert main(["quickstart", "--dir", str(folder)]) == 0
        out = capsys.readouterr().out
        assert "Feb (95), Apr (80) and Jun (70) fell below 100" in out
        nb = nbformat.read(folder / "01-quickstart.ipynb", as_version=4)
        transcripts = [Transcript.model_validate(o["data"][TRANSCRIPT_MIME])
                       for c in nb.cells for o in c.get("outputs", []) if TRANSCRIPT_MIME in o.get("data", {})]
        assert len(transcripts) == 2
        first, second = transcripts
        assert [c.name for m in first.messages if m.role == "assistant" for c in m.tool_calls] == [
            "read_file", "write_file"]
        assert all(m.status == "ok" for m in first.messages if m.role == "tool")
        assert first.provenance.replay == "01-quickstart.cassette.jsonl"
        assert second.messages[-1].text.startswith("June was the weakest")
        assert (folder / "weak_months.md").read_text().startswith("# Months below 100")
        session = JsonlSession(folder / ".orkas/sessions/quickstart.jsonl", readonly=True)
        assert len(session.messages) == 8  # 6 from the first question, 2 from the follow-up
