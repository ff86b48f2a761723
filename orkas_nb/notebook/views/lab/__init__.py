"""JupyterLab views for a run: the kernel side of the labextension (``labextension/``).

- :class:`LabRenderer` draws a run in the extension's run view (a custom ipywidgets view);
- :func:`choose_renderer` asks the front end, by a handshake, whether it has that view, and
  falls back to the built-in widgets when no answer comes;
- :class:`PlanWidget` draws a plan executor's plan (SPEC §11) as a dependency graph, live,
  through a :class:`~orkas_nb.notebook.views.plan_control.PlanControl`;
- the transcript MIME type the extension renders is written by
  :mod:`orkas_nb.notebook.views.transcript`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..plan_control import PlanControl
from ..renderer import Controls, Renderer
from .handshake import probe_frontend
from .plan_view import PlanWidget
from .protocol import PlanAction
from .run_view import LabRenderer, RunWidget


async def has_run_view(timeout: float | None = None) -> bool:
    """Whether the front end that sent the running cell draws the run view (a handshake).

    Await it from the cell, before the run starts: the renderer chosen then displays into
    the running cell. Only the first run of a front-end connection waits (up to ``timeout``).
    """
    hello = await probe_frontend(timeout)
    return hello is not None and "run" in hello.views


async def choose_renderer(controls: Controls | None, fallback: Callable[[], Renderer], *,
                          timeout: float | None = None, **options: Any) -> Renderer:
    """``LabRenderer(controls, **options)`` when the front end has the run view, else ``fallback()``."""
    if await has_run_view(timeout):
        return LabRenderer(controls, **options)
    return fallback()


__all__ = [
    "LabRenderer",
    "PlanAction",
    "PlanControl",
    "PlanWidget",
    "RunWidget",
    "choose_renderer",
    "has_run_view",
    "probe_frontend",
]
