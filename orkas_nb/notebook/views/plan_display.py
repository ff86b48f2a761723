"""Showing a plan executor's plan in a cell, live, and leaving a static picture behind.

:func:`show_plan` picks the view the front end can draw: the labextension's plan view when the
handshake said so (a layered DAG with status colours and assignee badges), the built-in
widgets otherwise, plain text without a kernel. The view lives in one display slot, updated as
the executor reports changes, whichever cell, click or task changed it: a display id update
and a widget's state both reach the front end through iopub at any time, so the output of a
cell that returned long ago follows the plan too (while the kernel lives).
When the plan ends (done, failed or aborted), the slot is replaced by :func:`plan_bundle` and
the widget closed, so the saved notebook keeps a picture that renders with no kernel and no
widget state. The output goes on following its plan: if it moves again (a failed step retried,
a finished plan revised, from any cell or view), the live view comes back and the picture is
replaced by the new final one when it ends again. Only when the conversation writes another
plan does an ended output let go, keeping the picture of the plan it showed.
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
        self.widget: Any = None  # the live widget (None: text, or the static picture is shown)
        self.final: PlanPicture | None = None  # the static picture in the slot (None: live)
        self.plan_id: str | None = None  # the plan this output follows
        self._open()
        control.add_view(self._draw)

    def _open(self) -> None:
        """Put the live view in the slot (the text kind's is written by :meth:`_draw`)."""
        if self.kind == "lab":
            from .lab.plan_view import PlanWidget

            self.widget = PlanWidget(self.control)
        elif self.kind == "widgets":
            from .plan_widgets import PlanBox

            self.widget = PlanBox(self.control)
        if self.widget is not None:
            self.slot.update(self.widget._repr_mimebundle_())

    def _close_widget(self) -> None:
        if self.widget is not None:
            self.control.remove_view(self.widget.draw)
            self.widget.close()
            self.widget = None

    def _draw(self, p: PlanPicture) -> None:
        if p.steps and p.id != self.plan_id:
            if self.final is not None and self.plan_id is not None:
                self.control.close()  # another plan: this output keeps its own plan's picture
                return
            self.plan_id = p.id
        if p.state in TERMINAL and p.steps:
            if p != self.final:
                self.final = p
                self.slot.final(plan_bundle(p))
            self._close_widget()
            return
        if self.final is not None:
            if not p.steps:
                return
            self.final = None  # the ended plan moves again (a retry, a revision): live again
            self._open()
        if self.kind == "text":
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
