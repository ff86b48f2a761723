"""The input transformer that turns a ``%%agent`` cell into an awaited call (SPEC §14.1).

A cell whose code is a top-level ``await`` keeps the cell busy (busy indicator, kernel
interrupt) while the kernel's loop keeps handling widget messages, which a synchronous magic
cannot do. The transformer runs first among IPython's cleanup transforms, so the cell body
reaches the magic exactly as typed. It leaves the cell alone (IPython's ordinary cell magic then
runs, as a task on the loop) when top-level await is off: ``Agent.top_level_await = False`` or
``%autoawait off``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

MAGIC = "%%agent"
#: An IPython cleanup transform: the cell's lines in, the lines to run out.
Transformer = Callable[[list[str]], list[str]]
_CALL = "await __import__('orkas_nb.notebook.cell.run', fromlist=['run_cell']).run_cell({line!r}, {body!r})\n"


def make_transformer(enabled: Callable[[], bool]) -> Transformer:
    def agent_cell(lines: list[str]) -> list[str]:
        start = 0
        while start < len(lines) and not lines[start].strip():
            start += 1
        if start == len(lines):
            return lines
        first = lines[start]
        if not first.startswith(MAGIC):
            return lines
        rest = first[len(MAGIC):]
        if rest and not rest[0].isspace():
            return lines  # %%agents, %%agent? ...: not ours
        if not enabled():
            return lines
        return [_CALL.format(line=rest.strip(), body="".join(lines[start + 1:]))]

    agent_cell.has_side_effects = False  # type: ignore[attr-defined]
    return agent_cell


def install(shell: InteractiveShell, transformer: Transformer) -> None:
    cleanup = shell.input_transformers_cleanup
    if transformer not in cleanup:
        cleanup.insert(0, transformer)


def uninstall(shell: InteractiveShell, transformer: Transformer) -> None:
    cleanup = shell.input_transformers_cleanup
    while transformer in cleanup:
        cleanup.remove(transformer)
