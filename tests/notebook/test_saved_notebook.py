"""A notebook executed headless (nbclient) and saved holds the static transcript."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from orkas_nb.notebook.views.transcript import TRANSCRIPT_MIME, Transcript

from .kernel import REPO

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

CELLS = [
    ("%load_ext orkas_nb\nfrom orkas_nb.testing import ScriptedModel, reply, call\n"
     "model = ScriptedModel([reply('Let me look.', call('read_file', path='notes.md')),\n"
     "                       reply('The notes say **ship on Friday**.')])"),
    "%%agent -m $model\nWhat do the notes say?",
]


def test_a_saved_notebook_holds_the_transcript_and_no_ansi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notes.md").write_text("# Notes\nship on Friday\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    NotebookClient(nb, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    saved = tmp_path / "run.ipynb"
    nbformat.write(nb, saved)
    text = saved.read_text()
    assert "\x1b" not in text and "\\u001b" not in text  # no ANSI escapes anywhere
    outputs = nbformat.read(saved, as_version=4).cells[1].outputs
    assert len(outputs) == 1  # the live text gave way to the transcript, in place
    data = outputs[0]["data"]
    transcript = Transcript.model_validate(data[TRANSCRIPT_MIME])
    assert transcript.messages[-1].text == "The notes say **ship on Friday**."
    assert transcript.messages[2].text.endswith("ship on Friday") or "ship on Friday" in transcript.messages[2].text
    assert "The notes say **ship on Friday**." in data["text/markdown"]
    assert "read_file" in data["text/plain"]
    assert transcript.provenance.session == tmp_path.name  # nbclient sets no JPY_SESSION_NAME
    assert json.loads(json.dumps(data[TRANSCRIPT_MIME])) == data[TRANSCRIPT_MIME]
