"""Plugging the live view (:mod:`.live`) into ``%%agent`` (:mod:`orkas_nb.notebook.plugins`):
the renderer, its approval buttons and the kernel tools."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from ...approvals.widgets import WidgetApprover, for_cassette
from ...kernel_tools import kernel_tools
from ...plugins import register_approver, register_renderer, register_tools
from ..slots import in_kernel
from .live import LiveRenderer

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ....harness.approval import ApproverLike
    from ....harness.tool_protocol import Tool
    from ...plugins import RenderContext
    from ..renderer import Renderer


def _widgets_available(shell: InteractiveShell | None) -> bool:
    """Widgets need a kernel (display ids and comms reach a front end) and ipywidgets."""
    return in_kernel(shell) and importlib.util.find_spec("ipywidgets") is not None


def _make_renderer(ctx: RenderContext) -> LiveRenderer:
    return LiveRenderer(ctx.controls, transcript=ctx.transcript, slot=ctx.slot,
                        cost=ctx.extra.get("cost"), interval_s=max(0.05, float(ctx.refresh_interval)))


def _make_approver(ctx: RenderContext, renderer: Renderer) -> ApproverLike | None:
    provider = getattr(getattr(ctx.controls, "agent", None), "provider", None)
    buttons = None
    if isinstance(renderer, LiveRenderer):
        buttons = WidgetApprover(renderer, timeout_s=ctx.extra.get("approval_timeout_s", 300.0))
    # None with another view: the approval policy's text prompt asks instead
    return for_cassette(provider, buttons)


def _make_kernel_tools(shell: InteractiveShell | None, services: dict[str, Any]) -> list[Tool]:
    return kernel_tools(shell)  # consent through services["approver"] at call time


def register() -> None:
    """Make the live view (``Agent.renderer = "widgets"``, the default in a kernel), its
    approval buttons and the kernel tools available to ``%%agent``. Idempotent and light."""
    register_renderer("widgets", _make_renderer, available=_widgets_available, priority=10)
    register_approver("widgets", _make_approver)
    register_tools("kernel", _make_kernel_tools)


__all__ = ["register"]
