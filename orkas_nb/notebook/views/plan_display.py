"""Showing a plan executor's plan in a cell, live, and leaving a static picture behind.

:func:`show_plan` picks the view the front end can draw: the labextension's plan view when the
handshake said so (a layered DAG with status colours and assignee badges), the built-in
widgets otherwise, plain text without a kernel. The view lives in one display slot, updated as
the executor reports changes (a click on an idle kernel still redraws it: display ids route).
When the plan ends (done, failed or aborted), the slot is replaced by :func:`plan_bundle` and
the widget closed, so the saved notebook keeps a picture that renders with no kernel and no
widget state.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Literal

from .plan_control import PlanControl, PlanExecutorLike
from .plan_picture import PlanPicture, plan_bundle, plan_text
from .slots import Slot, in_kernel, new_slot

ViewKind = Literal["lab", "widgets", "text"]
TERMINAL = ("done", "failed", "aborted")


def lab_has_plan_view() -> bool:
    """Whether this front end answered the handshake with the plan view (asked before)."""
    from .lab.handshake import cached_answer

    hello = cached_answer()
    return hello not in (None, False) and "plan" in getattr(hello, "views", [])


def view_kind(shell: Any) -> ViewKind:
    if not in_kernel(shell) or importlib.util.find_spec("ipywidgets") is None:
        return "text"
    return "lab" if lab_has_plan_view() else "widgets"


class PlanDisplay:
    """One plan's output in a cell; see the module docs."""

    def __init__(self, control: PlanControl, slot: Slot, kind: ViewKind) -> None:
        self.control = control
        self.slot = slot
        self.kind = kind
        self.widget: Any = None
        self.final: PlanPicture | None = None
        if kind == "lab":
            from .lab.plan_view import PlanWidget

            self.widget = PlanWidget(control)
        elif kind == "widgets":
            from .plan_widgets import PlanBox

            self.widget = PlanBox(control)
        if self.widget is not None:
            slot.update(self.widget._repr_mimebundle_())
        control.add_view(self._draw)

    def _draw(self, p: PlanPicture) -> None:
        if self.final is not None:
            return
        if p.state in TERMINAL and p.steps:
            self.final = p
            self.slot.final(plan_bundle(p))
            if self.widget is not None:
                self.widget.close()
            self.control.close()
            return
        if self.widget is None:
            self.slot.update({"text/plain": plan_text(p)})

    @property
    def current(self) -> PlanPicture:
        return self.control.current


def show_plan(executor: PlanExecutorLike, *, shell: Any = None, kind: ViewKind | None = None,
              slot: Slot | None = None) -> PlanDisplay:
    """Draw ``executor``'s plan in the running cell and keep it live until the plan ends."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    control = PlanControl(executor)
    return PlanDisplay(control, slot or new_slot(shell), kind or view_kind(shell))


def show_picture(plan: Any, *, shell: Any = None) -> None:
    """A static picture of a plan (no executor: nothing to control), as a saved one is."""
    from .plan_picture import picture

    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    new_slot(shell).update(plan_bundle(picture(plan)))


__all__ = ["PlanDisplay", "ViewKind", "lab_has_plan_view", "show_picture", "show_plan", "view_kind"]
