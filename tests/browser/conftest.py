"""Fixtures for the browser tests: one JupyterLab and one chromium per session, a page per test.

A test that fails leaves a screenshot in ``test-output/browser/<test>.png`` and the page's
console errors in the failure message. Without chromium/playwright the tests skip locally and
fail under CI (``CI`` set), so a missing install step cannot pass unnoticed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .lab import CHROMIUM, CHROMIUM_ARGS, LabServer, have_browser_stack, start_lab
from .notebook import NotebookPage

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "browser"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A whole JupyterLab and chromium on a shared 2-core machine: once in CI, a tutorial run
    # stalled past its timeout and passed on every rerun here. One rerun, which pytest reports
    # as a rerun ("R", "1 rerun") with this failure's dump, so a flake stays visible; a real
    # failure fails twice.
    for item in items:
        if item.get_closest_marker("browser") and not item.get_closest_marker("flaky"):
            item.add_marker(pytest.mark.flaky(reruns=1))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    why = have_browser_stack()
    if why is not None:
        if os.environ.get("CI") or os.environ.get("ORKAS_CI"):
            pytest.fail(f"browser tests cannot run: {why}")
        pytest.skip(why)
    home = tmp_path_factory.mktemp("lab-home")
    root = tmp_path_factory.mktemp("lab-root")
    server = start_lab(root, home)
    try:
        yield server
    finally:
        server.stop()


# Module scope, not session: Playwright's sync API keeps an asyncio loop running in this
# thread while it is open, which would break every async test that runs after the browser tests.
@pytest.fixture(scope="module")
def browser(lab: LabServer) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def nb(request: pytest.FixtureRequest, lab: LabServer, browser: Any) -> Iterator[NotebookPage]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    notebook = NotebookPage(page, lab)
    try:
        yield notebook
    finally:
        failed = getattr(request.node, "rep_call", None)
        if failed is not None and failed.failed:
            OUTPUT.mkdir(parents=True, exist_ok=True)
            try:
                page.screenshot(path=str(OUTPUT / f"{request.node.name}.png"), full_page=True)
            except Exception as exc:  # noqa: BLE001 - the screenshot is a courtesy
                print(f"no failure screenshot: {exc}")
            try:
                print("cells at failure:", notebook.describe(), sep="\n")
            except Exception as exc:  # noqa: BLE001 - a courtesy as well
                print(f"no cell dump: {exc}")
            print("jupyterlab log tail:", lab.log_path.read_text(errors="replace")[-4000:], sep="\n")
            if notebook.console_errors:
                print("console errors:", *notebook.console_errors, sep="\n  ")
        context.close()
        lab.shutdown_kernels()
