"""The kernel side of the labextension's plan view.

The plan is small (tens of steps), so it travels as one synced trait: every update is a whole
:class:`~orkas_nb.notebook.views.plan_picture.PlanPicture` of the executor's state, set by the
:class:`~orkas_nb.notebook.views.plan_control.PlanControl` the widget is bound to, never by
hand. The view's controls come back as :class:`~.protocol.PlanAction` messages and become calls
of the executor's API; an action that is not allowed now is answered with an error shown in the
view, and the executor never sees it.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from traitlets import Dict, Unicode

from ..plan_control import PlanControl
from ..plan_picture import PlanPicture, plan_text
from .extension_widget import ExtensionWidget
from .protocol import VIEW_REQUEST, PlanAction

log = logging.getLogger(__name__)


class PlanWidget(ExtensionWidget):
    """An executor's plan drawn as a dependency graph by the labextension's ``PlanView``."""

    _model_name = Unicode("PlanModel").tag(sync=True)
    _view_name = Unicode("PlanView").tag(sync=True)

    plan = Dict().tag(sync=True)

    def __init__(self, control: PlanControl, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.control = control
        self.on_msg(self._on_view_message)
        control.add_view(self.draw)

    @property
    def current(self) -> PlanPicture:
        return self.control.current

    def draw(self, p: PlanPicture) -> None:
        self.plan = p.model_dump(mode="json")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = plan_text(self.control.current)
        return bundle

    def _on_view_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            request = VIEW_REQUEST.validate_python(content)
        except ValidationError as exc:
            self._reply_error(f"ignored a malformed request: {exc.errors()[0]['msg']}")
            return
        if not isinstance(request, PlanAction):
            self._reply_error(f"the plan view does not take {request.type!r} requests")
            return
        self.control.act(request.action, request.step, request.values, on_error=self._reply_error)

    def _reply_error(self, message: str) -> None:
        log.warning("orkas_nb plan view: %s", message)
        self.send({"type": "error", "message": message})


__all__ = ["PlanWidget"]
