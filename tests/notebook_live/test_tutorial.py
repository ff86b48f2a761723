"""The second tutorial runs headless end to end from its cassette, with no key."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.notebook.kernel import REPO

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

NAME = "02-kernel-tools-and-approvals"
TRANSCRIPT = "application/vnd.orkas.transcript+json"


def test_kernel_tools_tutorial_replays_identically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for suffix in (".ipynb", ".cassette.jsonl", ".cassette.jsonl.approvals.jsonl"):
        shutil.copy(REPO / "notebooks" / f"{NAME}{suffix}", tmp_path / f"{NAME}{suffix}")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(tmp_path / f"{NAME}.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    agent_cells = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%agent")]
    assert len(agent_cells) == 2
    finals = []
    for cell in agent_cells:
        bundles = [o["data"] for o in cell.outputs if TRANSCRIPT in o.get("data", {})]
        assert len(bundles) == 1, [o.get("data", {}).keys() for o in cell.outputs]
        # the live view gave way to the transcript: no widget is left in the saved cell
        assert not any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                       for o in cell.outputs)
        finals.append(bundles[0])
    first, second = (f["text/markdown"] for f in finals)
    assert "run_python" in first and "June was the weakest month" in first
    assert "nothing was run" in second and "propose_cell" in second

    average = next(c for c in nb.cells if c.cell_type == "code" and c.source == "average")
    assert average.outputs[0]["data"]["text/plain"].startswith("105.83")
    # no category is allow-listed: the first run ran and the second was denied because the
    # recorded answers replayed (a headless button would have waited, then timed out)
