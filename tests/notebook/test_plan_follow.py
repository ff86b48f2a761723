"""Every view of a conversation's plan follows the executor, whichever cell or control moved it:
a step that an earlier cell's team still runs is drawn in the next cell's run view and plan
view; the output of a cell that returned long ago goes on following its plan (a failed plan
retried from a later cell), and the notebook saved afterwards keeps the plan's final picture.

A real kernel and the real executor with scripted members (tests/team/teamkit.Router); the
saved-notebook test runs the notebook with nbclient and reads the file back with nbformat."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from orkas_nb.notebook.views.plan_picture import PLAN_MIME
from tests.team.teamkit import write_agents

from .kernel import REPO, Kernel
from .test_plan_cells import kernel, start_chain  # noqa: F401 - the fixture

pytestmark = [pytest.mark.kernel]

WIDGET = "application/vnd.jupyter.widget-view+json"


def texts_of(kernel: Kernel, cell: Any) -> list[str]:  # noqa: F811
    """Every text the cell's displays showed, live updates included (they may come later)."""
    ids = {o.get("transient", {}).get("display_id") for o in cell.outputs} - {None}
    return [d.get("text/plain", "") for _, i, d in kernel.display_log if i in ids]


def test_a_step_an_earlier_cells_team_runs_is_drawn_in_the_next_cell(kernel: Kernel) -> None:  # noqa: F811
    """The answer from a control (after the first cell returned) starts step 2 on the first
    cell's team; the next cell shows the running plan at once, and its run view draws step 2's
    member run as well as step 3, which its own team runs."""
    # step 2 runs until this next cell's turn asks the commander: drawn in progress, always
    tally = 'reply("tallying the answers\\n" * 120, chunk_chars=8, wait=asked_again)'
    first = start_chain(kernel, tally, 'reply("The summary is short.")')
    kernel.run("ex0 = current_state().plans[current_state().current]")
    kernel.run("%agent plan answer 1 style=bar")  # step 2 starts on the first cell's team
    kernel.pump(lambda: kernel.value("ex0.plan.step(2).status") == "in_progress", timeout=30,
                what="step 2 running")
    nxt = kernel.run("%%agent -m $m\nHow is it going?", timeout=90)
    assert nxt.status == "ok", nxt.error
    assert kernel.value("[s.status for s in ex0.plan.steps]") == ["done", "done", "done"]
    plan_texts = [t for t in texts_of(kernel, nxt) if t.startswith("Plan: Survey")]
    assert any("[in progress] Count answers" in t for t in plan_texts)  # the plan view, live
    runs = "\n".join(d.get("text/plain", "") for d in kernel.shown(nxt)
                     if not d.get("text/plain", "").startswith("Plan: Survey"))
    assert "tallying the answers" in runs  # step 2, run by the first cell's team
    assert "The summary is short." in runs  # step 3, run by this cell's team
    assert runs.count("tallying the answers") <= 120  # drawn once, not once per team
    # the first cell's plan view followed it all to the end, although its cell had returned
    first_plan = [d[PLAN_MIME] for d in kernel.shown(first) if PLAN_MIME in d]
    assert first_plan and first_plan[-1]["state"] == "done"


def test_the_first_cells_view_follows_a_failed_plan_retried_later(kernel: Kernel) -> None:  # noqa: F811
    """A failed plan is shown as a static picture; a retry from a later cell makes the first
    cell's output live again (the widget back), then the final picture: done."""
    steps = ('[{"title": "Count answers", "assignee": "researcher", "wait_for": []},'
             ' {"title": "Summary", "assignee": "writer", "on_failure": "ask_commander"}]')
    kernel.run('%config Agent.renderer = "widgets"\n'
               f'router = Router(commander=[reply("", call("write_plan", title="Survey", steps={steps})),'
               ' reply("Planned."), reply("I leave step 2 to the user.")],'
               ' researcher=[reply("44 answers")],'
               ' writer=[RequestError("the notes file is locked"), reply("The summary.")]); m = router.model()')
    cell = kernel.run("%%agent -m $m\nAnalyse the onboarding survey.", timeout=90)
    assert cell.status == "ok", cell.error
    pictures = [d[PLAN_MIME] for d in kernel.shown(cell) if PLAN_MIME in d]
    assert pictures and pictures[-1]["state"] == "failed"
    assert not any(WIDGET in d for d in kernel.shown(cell))
    ids = {o.get("transient", {}).get("display_id") for o in cell.outputs} - {None}
    since = len(kernel.display_log)
    kernel.run("%agent plan retry 2")  # the plan runs again, on its own
    done = lambda: kernel.shown(cell)[-1].get(PLAN_MIME, {}).get("state") == "done"  # noqa: E731
    kernel.pump(done, timeout=30, what="the new end")
    again = [d for _, i, d in kernel.display_log[since:] if i in ids]
    assert WIDGET in again[0]  # the first cell's live view came back while step 2 ran again
    final = kernel.shown(cell)[-1][PLAN_MIME]
    assert final["state"] == "done" and [s["status"] for s in final["steps"]] == ["done", "done"]
    assert kernel.value("{k: len(v) for k, v in router.requests.items()}") == {
        "commander": 3, "researcher": 1, "writer": 2}  # step 2 only ran again


SETUP = '''%load_ext orkas_nb
from orkas_nb.testing import reply, call
from orkas_nb.core.errors import RequestError
from orkas_nb.notebook.state import current_state
from tests.team.teamkit import Router
router = Router(commander=[reply("", call("write_plan", title="Survey", steps=[
                    {"title": "Count answers", "assignee": "researcher", "wait_for": []},
                    {"title": "Summary", "assignee": "writer", "on_failure": "ask_commander"}])),
                reply("Planned."), reply("I leave step 2 to the user.")],
                researcher=[reply("44 answers")],
                writer=[RequestError("the notes file is locked"), reply("The summary.")])
m = router.model()'''


def test_the_saved_notebook_keeps_the_final_plan_not_the_one_its_cell_ended_with(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan fails in its cell; a later cell retries it and waits: the notebook file saved
    after the run holds, in the plan's cell, one static picture of the done plan."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(tmp_path / "no-user-config"))
    for name in ("JPY_SESSION_NAME", "ORKAS_MODEL", "ORKAS_SESSION", "ORKAS_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    ws = tmp_path / "project"
    ws.mkdir()
    write_agents(ws, researcher="Finds facts in the files.", writer="Writes short notes.")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell("%%agent -m $m\nAnalyse the onboarding survey."),
        nbformat.v4.new_code_cell("%agent plan retry 2\n"
                                  "await current_state().plans[current_state().current].wait()"),
    ])
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(ws)}}).execute()
    path = ws / "survey.ipynb"
    nbformat.write(nb, path)
    saved = nbformat.read(path, as_version=4)
    outputs = saved.cells[1].outputs
    pictures = [o["data"][PLAN_MIME] for o in outputs if PLAN_MIME in o.get("data", {})]
    assert len(pictures) == 1, outputs
    assert pictures[0]["state"] == "done"
    assert [(s["index"], s["status"]) for s in pictures[0]["steps"]] == [(1, "done"), (2, "done")]
    assert pictures[0]["steps"][1]["output_summary"] == "The summary."
    text = next(o["data"]["text/plain"] for o in outputs if PLAN_MIME in o.get("data", {}))
    assert text.startswith("Plan: Survey (done; 2 done)")
    assert not [o for o in outputs if WIDGET in o.get("data", {})]
