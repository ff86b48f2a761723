"""Driving a notebook in JupyterLab through Playwright, as a person would (plus the app's
command registry, exposed with ``--LabApp.expose_app_in_browser``, for menu actions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat

from .lab import LabServer

# Cells of the notebook on screen (other notebooks may be open in hidden tabs).
CELLS = ".jp-NotebookPanel:visible .jp-Notebook .jp-Cell"

# Lines the page may log that are not ours and not errors of the feature under test.
BENIGN = ("favicon", "Failed to load resource: the server responded with a status of 404")
# jupyterlab_widgets 3.0.x reads `session.kernel.id` of every notebook it sees, and throws when a
# notebook is opened with no kernel session at all; it happens with or without this extension.
WIDGETS_NO_KERNEL = ("reading 'kernel'", "@jupyter-widgets/jupyterlab-manager")


def write_notebook(path: Path, cells: list[str]) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nbformat.write(nb, str(path))


class NotebookPage:
    def __init__(self, page: Any, lab: LabServer) -> None:
        self.page = page
        self.lab = lab
        self.console_errors: list[str] = []
        page.on("console", self._on_console)
        page.on("pageerror", lambda exc: self.console_errors.append(f"pageerror: {exc} {getattr(exc, 'stack', '')}"))

    def _on_console(self, msg: Any) -> None:
        if msg.type == "error" and not any(b in msg.text for b in BENIGN):
            self.console_errors.append(msg.text)

    def open(self, name: str, cells: list[str] | None = None, *, kernel: bool = True) -> None:
        if cells is not None:
            write_notebook(self.lab.root / name, cells)
        self.page.goto(self.lab.url(f"lab/tree/{name}?reset"))
        self.page.wait_for_selector(CELLS, state="attached", timeout=60_000)
        if kernel:
            self.lab.wait_kernel_ready()
            self.page.wait_for_function(
                "() => { const p = window.jupyterapp.shell.currentWidget;"
                " return p && p.sessionContext && p.sessionContext.session"
                " && p.sessionContext.session.kernel"
                " && p.sessionContext.session.kernel.connectionStatus === 'connected'; }",
                timeout=60_000)

    def command(self, name: str, args: dict[str, Any] | None = None) -> Any:
        return self.page.evaluate(
            "([n, a]) => window.jupyterapp.commands.execute(n, a)", [name, args or {}])

    def run_cell(self, index: int) -> None:
        """Select cell ``index`` and press Shift+Enter, as a user would."""
        cell = self.page.locator(CELLS).nth(index)
        cell.locator(".jp-InputPrompt").click()
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("Shift+Enter")

    def wait_cell_done(self, index: int, timeout: float = 60_000) -> None:
        """Until cell ``index`` shows an execution count (``[n]``, not ``[*]``)."""
        prompt = self.page.locator(CELLS).nth(index).locator(".jp-InputPrompt")
        self.page.wait_for_function(
            "(el) => /\\[\\d+\\]/.test(el.textContent)", arg=prompt.element_handle(), timeout=timeout)

    def output(self, index: int) -> Any:
        return self.page.locator(CELLS).nth(index).locator(".jp-OutputArea")

    def save(self) -> None:
        self.command("docmanager:save")
        self.page.wait_for_function(
            "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=20_000)

    def saved(self, name: str) -> dict[str, Any]:
        return json.loads((self.lab.root / name).read_text())

    def describe(self, limit: int = 400) -> str:
        """Each cell's prompt, source head and output text: what a failure report needs to say
        which cell stopped where (a screenshot shows only what fits on screen)."""
        cells = self.page.locator(CELLS).evaluate_all(
            """(all) => all.map((c) => [
                 (c.querySelector('.jp-InputPrompt') || {}).textContent || '',
                 (c.querySelector('.jp-InputArea-editor') || {}).textContent || '',
                 (c.querySelector('.jp-OutputArea') || {}).innerText || ''])""")
        lines = []
        for n, (prompt, source, output) in enumerate(cells):
            lines.append(f"[{n}] {prompt.strip()} {source.strip()[:80]!r}")
            if output.strip():
                lines.append("    -> " + output.strip()[:limit].replace("\n", "\n       "))
        return "\n".join(lines)

    def assert_no_console_errors(self, allow: tuple[str, ...] = ()) -> None:
        errors = [e for e in self.console_errors if not all(a in e for a in allow) or not allow]
        assert not errors, "console errors:\n" + "\n".join(errors)
