"""The second tutorial, as a reader runs it in JupyterLab with the extension: the run view
draws each run, the recorded approval answers replay (nobody is asked), and the saved cells
hold transcripts the extension renders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .notebook import CELLS, NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
TUTORIAL = "02-kernel-tools-and-approvals"


def test_tutorial_replays_in_the_run_view(nb: NotebookPage) -> None:
    for f in NOTEBOOKS.glob(f"{TUTORIAL}*"):
        shutil.copy(f, nb.lab.root / f.name)
    nb.open(f"{TUTORIAL}.ipynb")
    nb.command("notebook:run-all-cells")
    # The last agent cell proposes a new cell below itself (left unrun, by design).
    nb.page.locator(f"{CELLS} .orkas-transcript").nth(1).wait_for(timeout=120_000)
    nb.lab.wait_kernel_ready()
    transcripts = nb.page.locator(f"{CELLS} .orkas-transcript")
    assert transcripts.count() == 2
    first, second = transcripts.nth(0), transcripts.nth(1)
    assert first.locator(".orkas-tool[data-tool='run_python'][data-status='ok']").count() >= 1
    refused = second.locator(".orkas-tool[data-tool='run_python']").first
    assert refused.get_attribute("data-status") in ("denied", "error")  # refused: nothing ran
    assert "did not consent" in refused.locator(".orkas-tool-result").inner_text()
    assert nb.page.locator(f"{CELLS} .orkas-approval").count() == 0  # replayed: nobody was asked
    assert nb.page.locator(f"{CELLS} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    nb.assert_no_console_errors()
