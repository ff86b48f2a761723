"""The kernel side of the labextension's plan view.

The plan is small (tens of steps), so it travels as one synced trait: every update is a whole,
validated :class:`~orkas_nb.team.plan.Plan`. The view's controls come back as :class:`~.protocol.PlanAction`
messages; an action the plan does not allow now (answering a step that is not blocked, a
missing required field, retrying a step that did not fail) is answered with an error shown in
the view, and the handler never sees it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ipywidgets import DOMWidget
from pydantic import ValidationError
from traitlets import Dict, Unicode

from ....team.plan import Plan, check_action
from .protocol import MODULE_NAME, MODULE_VERSION, VIEW_REQUEST, PlanAction

log = logging.getLogger(__name__)

ActionHandler = Callable[[PlanAction], None]


class PlanWidget(DOMWidget):
    """A plan drawn as a dependency graph by the labextension's ``PlanView``."""

    _model_name = Unicode("PlanModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("PlanView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    plan = Dict().tag(sync=True)

    def __init__(self, plan: Plan | dict[str, Any], on_action: ActionHandler | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._plan = Plan.model_validate(plan)
        self.plan = self._plan.model_dump(mode="json")
        self._handlers: list[ActionHandler] = [on_action] if on_action else []
        self.on_msg(self._on_view_message)

    @property
    def current(self) -> Plan:
        return self._plan

    def on_action(self, handler: ActionHandler) -> None:
        self._handlers.append(handler)

    def update(self, plan: Plan | dict[str, Any]) -> None:
        self._plan = Plan.model_validate(plan)
        self.plan = self._plan.model_dump(mode="json")

    def set_step(self, index: int, **changes: Any) -> None:
        """Change one step's fields (validated with the whole plan) and redraw."""
        data = self._plan.model_dump()
        for step in data["steps"]:
            if step["index"] == index:
                step.update(changes)
                break
        else:
            raise KeyError(f"plan has no step {index}")
        self.update(data)

    def set_state(self, state: str) -> None:
        self.update({**self._plan.model_dump(), "state": state})

    def _on_view_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            request = VIEW_REQUEST.validate_python(content)
        except ValidationError as exc:
            self._reply_error(f"ignored a malformed request: {exc.errors()[0]['msg']}")
            return
        if not isinstance(request, PlanAction):
            self._reply_error(f"the plan view does not take {request.type!r} requests")
            return
        why_not = check_action(self._plan, request.action, request.step, request.values)
        if why_not is not None:
            self._reply_error(why_not)
            return
        if not self._handlers:
            self._reply_error("no plan executor is listening to this view")
            return
        for handler in self._handlers:
            try:
                handler(request)
            except Exception as exc:
                log.exception("orkas_nb: plan action handler failed")
                self._reply_error(f"{request.action} failed: {exc}")

    def _reply_error(self, message: str) -> None:
        log.warning("orkas_nb plan view: %s", message)
        self.send({"type": "error", "message": message})


__all__ = ["ActionHandler", "PlanWidget"]
