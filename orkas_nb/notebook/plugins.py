"""What other parts of the notebook adapter plug into the magic: views, approvers, tools.

The magic never names a concrete view. It asks this registry for a renderer factory (by the
``Agent.renderer`` setting, or the best available one for ``auto``), for an interactive
approver (optional), and for extra tools (e.g. the kernel tools). The text renderer is
registered here as the fallback; the live widget view registers itself (``views/widgets/register.py``)::

    from orkas_nb.notebook.plugins import register_renderer
    register_renderer("widgets", lambda ctx: LiveRenderer(ctx.controls, transcript=ctx.transcript),
                      available=lambda shell: in_kernel(shell), priority=10)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the render protocol imports the engine's event types: keep loading light
    from IPython.core.interactiveshell import InteractiveShell

    from ..core.events import RunResult
    from ..harness.approval import ApproverLike
    from ..harness.tool_protocol import Tool
    from .views.renderer import Controls, Renderer, RunInfo
    from .views.slots import Slot

#: ``result -> (data, metadata)``: the static transcript bundle for the cell, or None when the
#: user turned transcripts off. A live view calls it at ``finish`` and draws it in its place.
TranscriptSource = Callable[["RunResult | None"], "tuple[dict[str, Any], dict[str, Any]] | None"]
#: Whether a view can draw in this shell (e.g. widgets need a kernel): None outside IPython.
Availability = Callable[["InteractiveShell | None"], bool]


@dataclass
class RenderContext:
    """What a renderer factory may use to build the view of one run."""

    shell: InteractiveShell | None
    info: RunInfo
    slot: Slot  # the cell's display slot (shown on first use)
    controls: Controls
    transcript: TranscriptSource
    background: bool = False
    refresh_interval: float = 0.1
    extra: dict[str, Any] = field(default_factory=dict)


#: A factory's renderer follows the Renderer protocol; it may also define ``async drain()``,
#: which the magic awaits (bounded) after ``finish`` so buffered output reaches the cell before
#: the cell ends (nbclient drops display updates that come later).
RendererFactory = Callable[[RenderContext], "Renderer"]
# (context, the renderer built for the run) -> an approver (harness.approval protocol) or None.
ApproverFactory = Callable[[RenderContext, "Renderer"], "ApproverLike | None"]
# (shell, services) -> tools to add to a notebook run (skipped with --no-tools).
ToolsFactory = Callable[["InteractiveShell | None", dict[str, Any]], "list[Tool]"]


@dataclass
class _RendererEntry:
    factory: RendererFactory
    available: Availability
    priority: int


# Views shipped with the package. They register themselves on first use, not at %load_ext, so
# loading stays light (ipywidgets and the labextension bridge load only when a run needs a view).
BUILTIN = ("orkas_nb.notebook.views.widgets.register:register",
           "orkas_nb.notebook.views.lab.register:register")
_builtin: dict[str, str] = {}  # spec -> "ok", or why it could not register

_renderers: dict[str, _RendererEntry] = {}
_approvers: dict[str, ApproverFactory] = {}
_tools: dict[str, ToolsFactory] = {}


def register_renderer(
    name: str,
    factory: RendererFactory,
    *,
    available: Availability | None = None,
    priority: int = 0,
) -> None:
    """Make a view selectable as ``Agent.renderer = name``; ``auto`` picks the available
    one with the highest priority. Registering a name again replaces it."""
    _renderers[name] = _RendererEntry(factory, available or (lambda shell: True), priority)


def register_approver(name: str, factory: ApproverFactory) -> None:
    """An interactive approver for ``Agent.approval = 'ask'`` (e.g. buttons in the live view)."""
    _approvers[name] = factory


def register_tools(name: str, factory: ToolsFactory) -> None:
    """Tools every notebook run gets (unless ``--no-tools``)."""
    _tools[name] = factory


def load_builtin() -> dict[str, str]:
    """Register the package's own views once; a view that fails to load is skipped (and the
    reason kept for ``%agent config``), so a broken optional view never breaks a run."""
    for spec in BUILTIN:
        if spec in _builtin:
            continue
        module, function = spec.split(":")
        try:
            getattr(importlib.import_module(module), function)()
            _builtin[spec] = "ok"
        except Exception as exc:  # noqa: BLE001 - a broken optional view is skipped, not fatal
            _builtin[spec] = f"{type(exc).__name__}: {exc}"
    return dict(_builtin)


def renderer_names() -> list[str]:
    load_builtin()
    return sorted(_renderers)


def choose_renderer(name: str, shell: InteractiveShell | None) -> tuple[str, RendererFactory]:
    """The factory for ``name`` (``auto``: the best available one)."""
    load_builtin()
    if name and name != "auto":
        if name not in _renderers:
            from ..core.errors import ConfigError  # loaded at %load_ext: pydantic comes later

            raise ConfigError(f"no renderer named {name!r}; known: {', '.join(renderer_names())}")
        return name, _renderers[name].factory
    candidates = []
    for key, entry in _renderers.items():
        try:
            ok = entry.available(shell)
        except Exception:  # noqa: BLE001 - an availability check that fails means unavailable
            ok = False
        if ok:
            candidates.append((entry.priority, key, entry.factory))
    _, key, factory = max(candidates, key=lambda c: (c[0], c[1] == "text"))
    return key, factory


def interactive_approver(ctx: RenderContext, renderer: Renderer) -> ApproverLike | None:
    load_builtin()
    for factory in _approvers.values():
        approver = factory(ctx, renderer)
        if approver is not None:
            return approver
    return None


def extra_tools(shell: InteractiveShell | None, services: dict[str, Any]) -> list[Tool]:
    load_builtin()
    tools: list[Tool] = []
    for factory in _tools.values():
        tools.extend(factory(shell, services))
    return tools


def _text_factory(ctx: RenderContext) -> Renderer:
    from .views.text import TextRenderer

    return TextRenderer(ctx.slot, transcript=ctx.transcript, interval=ctx.refresh_interval,
                        background=ctx.background, cost=ctx.extra.get("cost"))


register_renderer("text", _text_factory, priority=0)
