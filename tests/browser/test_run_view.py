"""The run view in a real JupyterLab and chromium: a `%%agent` cell against a scripted model."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from .cells import (AGENT_CELL, APPROVAL_MODEL, LONG_CODE_MODEL, MCP_MODEL, MCP_SETUP, SETUP,
                    STOP_MODEL, STREAMING_MODEL)
from .conftest import OUTPUT
from .notebook import CELLS, WIDGETS_NO_KERNEL, NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTES = "- finish the report\n- book the room\n- send the draft to Ana\n"


def _prepare(nb: NotebookPage, name: str, model_cell: str, agent_cell: str = AGENT_CELL,
             *more: str) -> None:
    (nb.lab.root / "notes.txt").write_text(NOTES)
    nb.open(name, [SETUP, model_cell, agent_cell, *more])
    for i in (0, 1):
        nb.run_cell(i)
        nb.wait_cell_done(i)


def _press_stop(nb: NotebookPage, run: Any) -> tuple[Any, float]:
    """Click the run's Stop; returns the transcript that replaces the view (checked as stopped)
    and the seconds from the click until the cell was done."""
    clicked = time.monotonic()
    run.locator(".orkas-stop").click()
    nb.wait_cell_done(2, timeout=30_000)
    took = time.monotonic() - clicked
    transcript = nb.output(2).locator(".orkas-transcript")
    transcript.wait_for()
    assert transcript.get_attribute("data-status") == "cancelled"
    return transcript, took


def test_text_streams_tool_card_completes_and_transcript_survives_reopen(nb: NotebookPage) -> None:
    name = "stream.ipynb"
    _prepare(nb, name, STREAMING_MODEL)
    nb.run_cell(2)
    out = nb.output(2)
    run = out.locator(".orkas-run:not(.orkas-transcript)")
    run.wait_for()  # the handshake chose the run view (not the built-in widgets)
    card = run.locator(".orkas-tool").first
    card.wait_for()
    card.locator("xpath=self::*[@data-status='ok']").wait_for()
    assert card.get_attribute("data-tool") == "read_file"
    assert card.locator(".orkas-tool-time").inner_text().strip()  # a duration is shown

    # Text streams in while the run is still going: part of the answer, status still running.
    partial = nb.page.wait_for_function(
        """(el) => { const md = el.querySelectorAll('.orkas-md');
             const t = md.length ? md[md.length - 1].textContent : '';
             return el.dataset.status === 'running' && t.includes('Summary') && t.length < 300 ? t : null; }""",
        arg=run.element_handle())
    assert "Summary" in partial.json_value()
    # Tokens and cost of the first response are in the bar while the answer still streams
    # (gpt-4o-mini list price: 1,200 in and 30 out = $0.0002).
    facts = run.locator(".orkas-run-facts").inner_text()
    assert "1,200 in / 30 out tokens" in facts and "$0.0002" in facts, facts
    assert run.get_attribute("data-status") == "running"

    # Incremental, not a full re-render: a finished block stays the same DOM node while the
    # rest of the answer streams in after it.
    nb.page.wait_for_function(
        """(el) => { const b = [...el.querySelectorAll('.orkas-md-block')].find(x => x.textContent.includes('Summary'));
             if (b) { b.dataset.probe = 'kept'; } return !!b; }""", arg=run.element_handle())
    nb.page.wait_for_function(
        "(el) => el.querySelectorAll('.orkas-md-block').length >= 3", arg=run.element_handle())
    assert run.locator(".orkas-md-block[data-probe='kept']").count() == 1

    # Code in the answer is highlighted by JupyterLab's own rendermime (CodeMirror token spans).
    nb.page.wait_for_function(
        "(el) => !!el.querySelector('.orkas-md pre code.language-python span[class]')",
        arg=run.element_handle())

    nb.wait_cell_done(2)
    transcript = out.locator(".orkas-transcript")
    transcript.wait_for()  # at the end the live view gives way to the static transcript
    text = transcript.inner_text()
    assert "three" in text and "any order this week" in text
    assert "2,700 in / 150 out tokens" in text and "$0.0005" in text  # the transcript keeps the cost
    assert transcript.locator(".orkas-tool[data-status='ok']").count() == 1
    assert transcript.locator(".orkas-md pre").count() >= 1

    OUTPUT.mkdir(parents=True, exist_ok=True)
    shot = OUTPUT.parent / "run-finished.png"
    nb.page.locator(CELLS).nth(2).screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000

    # Theme-aware: the same view follows JupyterLab's dark theme (colours come from its variables).
    light = transcript.evaluate("(el) => getComputedStyle(el).backgroundColor")
    nb.command("apputils:change-theme", {"theme": "JupyterLab Dark"})
    nb.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
    nb.page.wait_for_selector("#jupyterlab-splash", state="detached")
    nb.page.wait_for_function(
        "([el, before]) => getComputedStyle(el).backgroundColor !== before",
        arg=[transcript.element_handle(), light])
    nb.page.locator(CELLS).nth(2).screenshot(path=str(OUTPUT.parent / "run-finished-dark.png"))
    nb.command("apputils:change-theme", {"theme": "JupyterLab Light"})
    nb.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")
    nb.page.wait_for_selector("#jupyterlab-splash", state="detached")

    nb.save()
    saved = nb.saved(name)
    mimes = [set(o.get("data", {})) for o in saved["cells"][2]["outputs"]]
    assert any("application/vnd.orkas.transcript+json" in m for m in mimes), mimes
    nb.assert_no_console_errors()

    # Reopen with no kernel at all: the saved transcript renders from the file alone.
    nb.lab.shutdown_kernels()
    nb.page.goto(nb.lab.url("lab?reset"))
    nb.page.wait_for_selector(".jp-LabShell", timeout=60_000)
    nb.page.wait_for_function("() => !!window.jupyterapp && window.jupyterapp.started !== undefined")
    nb.command("docmanager:open", {"path": name, "factory": "Notebook",
                                   "kernelPreference": {"shouldStart": False, "canStart": False}})
    again = nb.page.locator(CELLS).nth(2).locator(".orkas-transcript")
    again.wait_for(timeout=60_000)
    assert "any order this week" in again.inner_text()
    assert again.locator(".orkas-tool[data-status='ok'] .orkas-tool-name").inner_text() == "read_file"
    assert nb.lab.api("kernels") == []
    nb.assert_no_console_errors(allow=WIDGETS_NO_KERNEL)


def test_approval_click_reaches_the_kernel_mid_run(nb: NotebookPage) -> None:
    _prepare(nb, "approve.ipynb", APPROVAL_MODEL, "%%agent -m $model\nCompute the answer.",
             "print(answer + 1)",
             "from orkas_nb.notebook.views.lab.handshake import round_trips\nprint(round_trips())")
    nb.run_cell(2)
    run = nb.output(2).locator(".orkas-run:not(.orkas-transcript)")
    prompt = run.locator(".orkas-approval")
    prompt.wait_for()
    assert run.get_attribute("data-status") == "waiting"
    assert "answer = 6 * 7" in prompt.locator(".orkas-approval-detail").inner_text()
    OUTPUT.mkdir(parents=True, exist_ok=True)
    nb.page.locator(CELLS).nth(2).screenshot(path=str(OUTPUT.parent / "run-approval.png"))
    button = prompt.locator(".orkas-approve-once")
    button.focus()
    nb.page.keyboard.press("Enter")  # keyboard reaches the control, like a click
    prompt.locator("xpath=self::*[@data-answer='once']").wait_for()
    run.locator(".orkas-tool[data-tool='run_python'][data-status='ok']").wait_for()
    nb.wait_cell_done(2)
    transcript = nb.output(2).locator(".orkas-transcript")
    transcript.wait_for()
    assert "42" in transcript.locator(".orkas-md").last.inner_text()
    # The approved code ran in the user's namespace.
    nb.run_cell(3)
    nb.wait_cell_done(3)
    assert nb.output(3).inner_text().strip() == "43"
    nb.run_cell(4)
    nb.wait_cell_done(4)
    trips = eval(nb.output(4).inner_text().strip())
    assert len(trips) == 1  # one probe per front-end connection, answered by the extension
    print(f"handshake round trip: {trips[0] * 1000:.0f} ms")
    nb.assert_no_console_errors()


def test_always_on_a_connector_call_is_remembered_and_the_next_call_is_not_asked(
        nb: NotebookPage, tmp_path: Path) -> None:
    """A connector call's prompt has a fourth button, Always (the agent → server pair): clicked,
    the kernel records the pair and the run's next call to that server asks nobody."""
    if shutil.which("mcp-server-time") is None:
        pytest.skip("mcp-server-time (the test extra) is not installed")
    config = tmp_path / "user-config"
    try:
        nb.open("always.ipynb", [SETUP, MCP_SETUP.format(config=str(config)), MCP_MODEL,
                                 "%%agent -m $model\nWhat time is it in Tokyo and in Lisbon?",
                                 "from orkas_nb.connectors.consent import ConsentStore\n"
                                 "print(ConsentStore().always('agent', 'time'), ConsentStore().always('other', 'time'))"])
        for i in (0, 1, 2):
            nb.run_cell(i)
            nb.wait_cell_done(i)
        assert "'time' runs with 2 tool(s)" in nb.output(1).inner_text()
        nb.run_cell(3)
        run = nb.output(3).locator(".orkas-run:not(.orkas-transcript)")
        prompt = run.locator(".orkas-approval")
        prompt.wait_for()
        buttons = prompt.locator(".orkas-approval-buttons button")
        assert buttons.all_inner_texts() == ["This time", "For this run (agent → time)",
                                             "Always (agent → time)", "Deny"]
        assert "time.get_current_time" in prompt.locator(".orkas-approval-detail").inner_text()
        prompt.locator(".orkas-approve-always").click()
        prompt.locator("xpath=self::*[@data-answer='always']").wait_for()
        assert prompt.locator(".orkas-approval-outcome").inner_text() == "always allowed"
        # The second call runs without a prompt: still one in the view when its card is done.
        cards = run.locator(".orkas-tool[data-tool='mcp__time__get_current_time'][data-status='ok']")
        nb.page.wait_for_function("(el) => el.querySelectorAll(\".orkas-tool[data-tool='mcp__time__"
                                  "get_current_time'][data-status='ok']\").length === 2",
                                  arg=run.element_handle())
        assert cards.count() == 2 and run.locator(".orkas-approval").count() == 1
        assert run.get_attribute("data-status") == "running"  # not waiting on a second prompt
        nb.wait_cell_done(3)
        transcript = nb.output(3).locator(".orkas-transcript")
        transcript.wait_for()
        assert "Both clocks are read" in transcript.inner_text()
        nb.run_cell(4)
        nb.wait_cell_done(4)
        assert nb.output(4).inner_text().strip() == "True False"  # the pair, recorded by the kernel
        nb.assert_no_console_errors()
    finally:
        # The lab's root is every browser test's workspace: its servers must not outlive this one.
        shutil.rmtree(nb.lab.root / ".orkas" / "mcp", ignore_errors=True)
        (nb.lab.root / ".orkas" / "mcp.json").unlink(missing_ok=True)


def test_stop_ends_the_run(nb: NotebookPage) -> None:
    _prepare(nb, "stop.ipynb", STOP_MODEL, "%%agent -m $model\nCount.")
    nb.run_cell(2)
    run = nb.output(2).locator(".orkas-run:not(.orkas-transcript)")
    nb.page.wait_for_function(
        "(el) => (el.querySelector('.orkas-md') || {}).textContent?.includes('counting 0 1 2')",
        arg=run.wait_for() or run.element_handle())
    transcript, took = _press_stop(nb, run)
    assert "1999" not in transcript.inner_text()  # it did not run to the end
    print(f"Stop: click to cell done in {took:.2f} s")
    assert took < 5.0, f"Stop took {took:.1f} s"  # the bound a user feels is ~1 s; margin for CI
    nb.assert_no_console_errors()


def test_stop_interrupts_agent_code_that_holds_the_kernel(nb: NotebookPage) -> None:
    """run_python's code runs on the kernel's main thread, where the Stop message would wait for
    it (60 s here): the button interrupts the kernel as well."""
    _prepare(nb, "stop-code.ipynb", LONG_CODE_MODEL, "%%agent -m $model\nRun the long job.")
    nb.run_cell(2)
    run = nb.output(2).locator(".orkas-run:not(.orkas-transcript)")
    prompt = run.locator(".orkas-approval")
    prompt.wait_for()
    prompt.locator(".orkas-approve-once").click()
    prompt.locator("xpath=self::*[@data-answer='once']").wait_for()
    # the card says running however late a loaded machine draws it (an assert read it once)
    run.locator(".orkas-tool[data-tool='run_python'][data-status='running']").wait_for()
    time.sleep(1.0)  # the approved code is in its loop now, holding the kernel's main thread
    transcript, took = _press_stop(nb, run)
    assert "unreachable" not in transcript.inner_text()
    print(f"Stop during run_python: click to cell done in {took:.2f} s")
    assert took < 5.0, f"Stop took {took:.1f} s"
    nb.assert_no_console_errors()


def test_without_the_extension_the_builtin_widgets_draw_the_run(nb: NotebookPage) -> None:
    """VS Code, classic notebook, or the extension disabled: nobody answers the handshake."""
    nb.lab.disable_extension("orkas-nb")
    try:
        _prepare(nb, "fallback.ipynb", STREAMING_MODEL)
        assert not nb.page.evaluate("() => window.jupyterapp.hasPlugin('orkas-nb:widgets')")
        nb.run_cell(2)
        out = nb.output(2)
        out.locator(".jupyter-widgets").first.wait_for()  # the built-in widgets took the run
        nb.wait_cell_done(2)
        out.locator(".jp-RenderedMarkdown").filter(has_text="any order this week").first.wait_for()
        assert out.locator(".orkas-run").count() == 0
        nb.assert_no_console_errors()
    finally:
        nb.lab.disable_extension("orkas-nb", False)
