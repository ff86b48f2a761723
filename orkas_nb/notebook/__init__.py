"""The notebook adapter: ``%load_ext orkas_nb``, the ``%%agent`` magic, its views and config.

Loading is light (traitlets and IPython are already there); the engine is imported at the first
run. Public surface: :func:`load_ipython_extension`, :func:`wait` (await a background run),
:func:`current_state`, and the registration functions of :mod:`.plugins` for other views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .plugins import register_approver, register_renderer, register_tools
from .state import _states, current_state

if TYPE_CHECKING:  # the engine loads at the first run, not at %load_ext
    from IPython.core.interactiveshell import InteractiveShell

    from ..core.events import RunResult
    from .cell.config import Agent as AgentConfig
    from .cell.transform import Transformer

__all__ = [
    "current_state",
    "load_ipython_extension",
    "register_approver",
    "register_renderer",
    "register_tools",
    "unload_ipython_extension",
    "wait",
]

_installed: dict[int, tuple[Transformer, AgentConfig]] = {}


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """Register ``%%agent``/``%agent``, the ``Agent`` configurable and the input transformer."""
    if id(ipython) in _states:
        return
    # Imported here, not above: importing any submodule runs this file, and a script that
    # uses one (the kernel tools, a view) should not pay for IPython's magics or the engine.
    from .cell.config import Agent as AgentConfig
    from .cell.magics import AgentMagics
    from .cell.transform import install, make_transformer
    from .state import NotebookState

    config = AgentConfig(parent=ipython)
    if config not in ipython.configurables:
        ipython.configurables.append(config)
    state = NotebookState(ipython, config)
    _states[id(ipython)] = state
    ipython.register_magics(AgentMagics(ipython, state))

    def awaited() -> bool:
        return bool(config.top_level_await and getattr(ipython, "autoawait", False))

    transformer = make_transformer(awaited)
    install(ipython, transformer)
    _installed[id(ipython)] = (transformer, config)


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    from .cell.transform import uninstall

    state = _states.pop(id(ipython), None)
    entry = _installed.pop(id(ipython), None)
    if entry is not None:
        transformer, config = entry
        uninstall(ipython, transformer)
        if config in ipython.configurables:
            ipython.configurables.remove(config)
    if state is not None:
        state.close()


async def wait(timeout: float | None = None, session: str | None = None) -> RunResult | None:
    """``await orkas_nb.notebook.wait()``: the RunResult of the last background run (or of the
    latest one in ``session``; None when there is none)."""
    from .cell.run import wait as _wait

    return await _wait(timeout, session)
