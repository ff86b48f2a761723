"""Tutorial 05 replayed headless: the planned analysis runs to its end inside the cell, and the
saved notebook keeps the plan's static picture (no widget state), in the cell that ran it and
in ``%agent plan``'s."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = "05-plan-analysis"
PLAN = "application/vnd.orkas.plan+json"
WIDGET = "application/vnd.jupyter.widget-view+json"


def test_the_planned_analysis_replays_and_leaves_its_picture(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    for f in (REPO / "notebooks").glob(f"{TUTORIAL}.*"):
        shutil.copy(f, tmp_path / f.name)
    nb = nbformat.read(tmp_path / f"{TUTORIAL}.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    planned = next(c for c in code if c.source.startswith("%%agent --plan"))
    shown = next(c for c in code if c.source.strip() == "%agent plan")
    for cell in (planned, shown):
        pictures = [o["data"][PLAN] for o in cell.outputs if PLAN in o.get("data", {})]
        assert len(pictures) == 1, cell.outputs
        assert not [o for o in cell.outputs if WIDGET in o.get("data", {})]
        plan = pictures[0]
        assert plan["state"] == "done"
        assert [(s["index"], s["assignee"], s["status"]) for s in plan["steps"]] == [
            (1, "analyst", "done"), (2, "researcher", "done"), (3, "writer", "done")]
        assert plan["steps"][2]["wait_for"] == [1, 2]
        assert "-27.6%" in plan["steps"][0]["output_summary"]
    text = next(o["data"]["text/plain"] for o in planned.outputs if PLAN in o.get("data", {}))
    assert text.startswith("Plan: Q3 sales: where and why (done; 3 done)")
