"""The plan view in a real JupyterLab and chromium: a scripted plan changing status live, and
the controls of a paused plan reaching the kernel."""

from __future__ import annotations

import pytest

from .cells import PLAN_CHECK, PLAN_SCRIPT, PLAN_SETUP, PLAN_TRANSCRIPT
from .conftest import OUTPUT
from .notebook import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_plan_updates_live_and_controls_reach_the_kernel(nb: NotebookPage) -> None:
    nb.open("plan.ipynb", [PLAN_SETUP, PLAN_SCRIPT, PLAN_CHECK, PLAN_TRANSCRIPT])
    nb.run_cell(0)
    view = nb.output(0).locator(".orkas-plan")
    view.wait_for()
    step = lambda i: view.locator(f".orkas-step[data-step='{i}']")
    assert view.locator(".orkas-step").count() == 5
    assert view.locator(".orkas-plan-edge").count() == 5  # one per wait_for entry
    assert view.locator(".orkas-plan-edge[data-from='3'][data-to='4']").count() == 1
    assert step(3).locator(".orkas-assignee").inner_text() == "user"
    assert step(4).locator(".orkas-assignee-commander").count() == 1
    # A step is drawn to the right of what it waits for.
    x = lambda i: step(i).bounding_box()["x"]
    assert x(0) < x(1) < x(2) < x(4) and x(0) < x(3)

    # Record every status each step shows, as the page draws it.
    nb.page.evaluate("""(root) => {
        window.__seen = {};
        const record = () => root.querySelectorAll('.orkas-step').forEach(n => {
            const a = (window.__seen[n.dataset.step] = window.__seen[n.dataset.step] || []);
            if (a[a.length - 1] !== n.dataset.status) a.push(n.dataset.status);
        });
        record();
        new MutationObserver(record).observe(root, {subtree: true, childList: true, attributes: true});
    }""", view.element_handle())
    nb.run_cell(1)  # the scripted plan changes status while the view watches
    step(2).locator("xpath=self::*[@data-status='failed']").wait_for()
    nb.wait_cell_done(1)
    seen = nb.page.evaluate("window.__seen")
    assert seen["0"] == ["pending", "running", "done"]
    assert seen["1"] == ["pending", "running", "done"]
    assert seen["2"] == ["pending", "running", "failed"]
    assert seen["3"] == ["pending", "blocked"]
    view.locator("xpath=self::*[@data-state='paused']").wait_for()

    # Answer the blocked step's form (selected for the user automatically).
    detail = view.locator(".orkas-plan-detail")
    detail.locator("select[name='style']").select_option("bar")
    detail.locator(".orkas-plan-answer").click()
    step(3).locator("xpath=self::*[@data-status='done']").wait_for()

    # Retry the failed step, with the keyboard only.
    step(2).focus()
    nb.page.keyboard.press("Enter")
    retry = detail.locator(".orkas-plan-retry")
    retry.focus()
    nb.page.keyboard.press("Enter")
    step(2).locator("xpath=self::*[@data-status='running']").wait_for()

    # Skip a pending step.
    step(4).click()
    detail.locator(".orkas-plan-skip").click()
    step(4).locator("xpath=self::*[@data-status='skipped']").wait_for()

    OUTPUT.mkdir(parents=True, exist_ok=True)
    view.screenshot(path=str(OUTPUT.parent / "plan-view.png"))

    nb.run_cell(2)
    nb.wait_cell_done(2)
    assert nb.output(2).inner_text().strip() == (
        "[('answer', 3, {'style': 'bar'}), ('retry', 2, {}), ('skip', 4, {})]")

    # The transcript renderer draws a plan snapshot as the same graph, with no widget.
    nb.run_cell(3)
    nb.wait_cell_done(3)
    snapshot = nb.output(3).locator(".orkas-transcript .orkas-plan-snapshot")
    snapshot.wait_for()
    assert snapshot.locator(".orkas-step").count() == 5
    assert snapshot.locator(".orkas-step[data-step='4']").get_attribute("data-status") == "skipped"
    assert snapshot.locator(".orkas-plan-edge").count() == 5
    nb.assert_no_console_errors()
