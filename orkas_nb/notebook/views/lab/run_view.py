"""The kernel side of the labextension's run view, and the renderer that feeds it.

:class:`RunWidget` is an ipywidgets model whose view lives in the labextension (``RunView``).
Its traits carry the status bar (state, model, tokens, cost, times); the body of the run (text,
tool cards, notices, approval prompts) travels as batches of items (:func:`~.protocol.wire_item`)
in custom messages, because syncing an ever-growing text trait would resend the whole text on
every update. Items are coalesced and flushed at most every ``flush_interval`` seconds (~20 a
second), consecutive text deltas merged, and the full log is kept so a late view asks for a
replay.

:class:`LabRenderer` is a :class:`~orkas_nb.notebook.views.renderer.Renderer`: it consumes the same run
event stream as the text and built-in widget renderers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.display import display
from pydantic import ValidationError
from traitlets import Float, Int, Unicode

from ....core.events import Done, MemberEvent, RunEvent, RunResult, UsageUpdate
from ....core.messages import Usage
from ..lanes import LaneTracker
from ..renderer import Controls, RunInfo
from .extension_widget import ExtensionWidget
from .protocol import (
    VIEW_REQUEST,
    ApprovalAnswer,
    ApprovalDoneItem,
    ApprovalItem,
    ApprovalOption,
    ReplayRequest,
    SteerRequest,
    StopRequest,
    WireItem,
    lane_event_item,
    lane_item,
    wire_item,
)

if TYPE_CHECKING:
    from ..slots import Slot

log = logging.getLogger(__name__)

#: What the cell keeps when the run ends: ``result -> (data, metadata)`` MIME bundle, or None
#: (the same callable the built-in ``LiveRenderer`` takes).
TranscriptSource = Callable[[RunResult], "tuple[dict[str, Any], dict[str, Any]] | None"]
#: ``(model, usage) -> cost in USD``, or None when the price is unknown.
CostSource = Callable[[str, Usage], "float | None"]

DEFAULT_APPROVAL_OPTIONS = (
    ApprovalOption(id="once", label="Allow this time"),
    ApprovalOption(id="run", label="Allow for this run"),
    ApprovalOption(id="deny", label="Deny"),
)


class RunWidget(ExtensionWidget):
    """One live run, drawn by the labextension's ``RunView``."""

    _model_name = Unicode("RunModel").tag(sync=True)
    _view_name = Unicode("RunView").tag(sync=True)

    agent = Unicode("agent").tag(sync=True)
    model_name = Unicode("").tag(sync=True)
    session_name = Unicode("").tag(sync=True)
    prompt = Unicode("").tag(sync=True)
    # starting | running | waiting (on an approval) | done | error | cancelled
    status = Unicode("starting").tag(sync=True)
    started = Float(0.0).tag(sync=True)  # epoch seconds: the view runs its own clock from it
    elapsed = Float(0.0).tag(sync=True)  # set when the run ends
    tokens_in = Int(0).tag(sync=True)
    tokens_out = Int(0).tag(sync=True)
    cost = Float(None, allow_none=True).tag(sync=True)
    stop_reason = Unicode("").tag(sync=True)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"orkas run ({self.status}): drawn by the orkas-nb JupyterLab extension"
        return bundle

    def __init__(self, controls: Controls | None = None, *, flush_interval: float = 0.05,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.controls = controls
        self.flush_interval = flush_interval
        self.items: list[dict[str, Any]] = []
        self.open_approvals: set[str] = set()
        # The approver that asked (LabApprover) takes the answers itself when set, so a wrapper
        # around it (recording answers beside a cassette) need not pass them through Controls.
        self.approval_handler: Callable[[str, str], None] | None = None
        self.views_ready = 0
        self.messages_sent = 0
        self._pending: list[dict[str, Any]] = []
        self._timer: asyncio.TimerHandle | None = None
        self.on_msg(self._on_view_message)

    # kernel -> view ---------------------------------------------------------------------
    def push(self, item: WireItem) -> None:
        data = dict(item)  # the log owns its copy: text items are merged in place
        last = self._pending[-1] if self._pending else None
        if (last is not None and data["k"] in ("text", "thinking") and last["k"] == data["k"]
                and last.get("lane") == data.get("lane")):  # parallel lanes interleave
            last["text"] += data["text"]
        else:
            self._pending.append(data)
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._timer = loop.call_later(self.flush_interval, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        start = len(self.items)
        batch, self._pending = self._pending, []
        self.items.extend(batch)
        self.send({"type": "items", "start": start, "items": batch})
        self.messages_sent += 1

    # view -> kernel ---------------------------------------------------------------------
    def _on_view_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ready":
            self.views_ready += 1
            return
        try:
            request = VIEW_REQUEST.validate_python(content)
        except ValidationError as exc:
            self._reply_error(f"ignored a malformed request from the view: {exc.errors()[0]['msg']}")
            return
        if isinstance(request, ReplayRequest):
            self.flush()
            self.send({"type": "items", "start": request.start, "items": self.items[request.start:]})
        elif isinstance(request, StopRequest):
            self._control("stop")
        elif isinstance(request, SteerRequest):
            self._control("steer", request.text)
        elif isinstance(request, ApprovalAnswer):
            self._answer(request)
        else:
            self._reply_error(f"the run view does not take {request.type!r} requests")

    def _answer(self, request: ApprovalAnswer) -> None:
        if request.id not in self.open_approvals:
            self._reply_error(f"no open approval {request.id!r} (already answered or unknown)")
            return
        if self.approval_handler is None:
            ok = self._control("answer_approval", request.id, request.answer)
        else:
            try:
                self.approval_handler(request.id, request.answer)
                ok = True
            except Exception as exc:  # noqa: BLE001 - shown in the view, not raised into the comm
                self._reply_error(f"answer approval failed: {exc}")
                ok = False
        if ok:
            self.resolve_approval(request.id, request.answer, by="user")

    def resolve_approval(self, request_id: str, answer: str, by: str = "user") -> None:
        if request_id not in self.open_approvals:
            return
        self.open_approvals.discard(request_id)
        done = ApprovalDoneItem(id=request_id, answer=answer, by=by)  # type: ignore[arg-type]
        self.push(done.model_dump())
        if not self.open_approvals and self.status == "waiting":
            self.status = "running"
        self.flush()

    def _control(self, name: str, *args: str) -> bool:
        if self.controls is None:
            self._reply_error(f"this run cannot {name.replace('_', ' ')} (no controls attached)")
            return False
        try:
            getattr(self.controls, name)(*args)
        except Exception as exc:  # noqa: BLE001 - a control's failure is shown, not raised into the comm
            log.warning("orkas_nb: %s failed: %s", name, exc)
            self._reply_error(f"{name.replace('_', ' ')} failed: {exc}")
            return False
        return True

    def _reply_error(self, message: str) -> None:
        log.warning("orkas_nb run view: %s", message)
        self.send({"type": "error", "message": message})


class LabRenderer:
    """A :class:`~orkas_nb.notebook.views.renderer.Renderer` drawing into the labextension's run view.

    It takes the same options as the built-in :class:`~orkas_nb.notebook.views.widgets.live.LiveRenderer`, so
    the magic builds either one the same way: at ``finish`` the cell's display slot is replaced
    by ``transcript(result)`` (the static transcript, which the extension's MIME renderer draws
    with the same cards) and the widget is closed, so a saved notebook needs no widget state.
    """

    def __init__(self, controls: Controls | None = None, *,
                 transcript: TranscriptSource | None = None, cost: CostSource | None = None,
                 slot: Slot | None = None, interval_s: float = 0.05, show: bool = True) -> None:
        self.widget = RunWidget(controls, flush_interval=interval_s)
        self.transcript = transcript
        self.cost = cost
        self.slot = slot  # the cell's output slot (orkas_nb.notebook.views.slots); None: own handle
        self.handle: Any = None
        self.result: RunResult | None = None
        self._show = show
        self._t0 = time.monotonic()
        self._usage_model: str | None = None  # the model that answered, from "usage" events
        self.lanes = LaneTracker(cost)  # a team's member runs, each at its own price

    def start(self, info: RunInfo) -> None:
        w = self.widget
        w.agent, w.model_name, w.session_name, w.prompt = (
            info.agent, info.model, info.session, info.prompt)
        w.started = time.time()
        self.lanes.configure(model=info.model, members=info.members)
        w.status = "running"
        self._t0 = time.monotonic()
        if not self._show:
            return
        if self.slot is not None:
            self.slot.update(w._repr_mimebundle_())
        else:
            self.handle = display(w, display_id=True)

    def render(self, event: RunEvent) -> None:
        if isinstance(event, UsageUpdate):  # live tokens and cost: traits, not body items
            self.lanes.on_commander_usage(event)
            self._show_usage(event.usage, event.model)
            return
        if isinstance(event, MemberEvent):
            self._member(event)
            return
        if isinstance(event, Done):
            return  # finish() receives the result after the record is saved
        item = wire_item(event)
        if item is not None:
            self.widget.push(item)

    def _member(self, event: MemberEvent) -> None:
        lane, new, shown = self.lanes.on(event)
        if not lane.visible:
            return  # an anonymous worker: counted in the cost, never drawn
        if new:
            self.widget.push(lane_item(lane))
        for inner in shown:
            if inner.type in ("usage", "done"):
                self.widget.push(lane_item(lane))
            elif (item := lane_event_item(lane, inner)) is not None:
                self.widget.push(item)

    def ask_approval(self, request_id: str, title: str, *, detail: str = "", category: str = "",
                     options: tuple[ApprovalOption, ...] | list[ApprovalOption] = DEFAULT_APPROVAL_OPTIONS) -> None:
        """Show an inline approval prompt; the answer reaches ``controls.answer_approval``."""
        self.widget.open_approvals.add(request_id)
        self.widget.push(ApprovalItem(id=request_id, title=title, detail=detail,
                                      category=category, options=list(options)).model_dump())
        self.widget.status = "waiting"
        self.widget.flush()

    def resolve_approval(self, request_id: str, answer: str, by: str = "policy") -> None:
        """Close a prompt answered elsewhere (a timeout, a policy, a replayed cassette)."""
        self.widget.resolve_approval(request_id, answer, by=by)

    def finish(self, result: RunResult) -> None:
        if self.result is not None:
            return
        self.result = result
        w = self.widget
        for request_id in list(w.open_approvals):
            w.resolve_approval(request_id, "deny", by="policy")  # withdrawn: the run is over
        w.push(wire_item(Done(agent=w.agent, result=result)))  # type: ignore[arg-type] # never None
        w.flush()
        self._show_usage(result.usage, None, final=True)
        w.elapsed = result.duration_s or (time.monotonic() - self._t0)
        w.stop_reason = result.stop_reason
        w.status = {"error": "error", "cancelled": "cancelled"}.get(result.stop_reason, "done")
        bundle = self.transcript(result) if self.transcript is not None else None
        if bundle is None:
            return
        data, metadata = bundle
        if self.slot is not None and self._show:
            self.slot.final(data)
            self.close()
        elif self.handle is not None:
            self.handle.update(data, metadata=metadata, raw=True)
            self.close()

    def _show_usage(self, usage: Usage, model: str | None, final: bool = False) -> None:
        w = self.widget
        self._usage_model = model or self._usage_model
        with w.hold_sync():  # one state message for tokens and cost
            w.tokens_in, w.tokens_out = usage.input_tokens, usage.output_tokens
            if self.cost is not None and final and self.lanes.lanes:  # a team: members' prices
                w.cost = self.lanes.total_cost()
            elif self.cost is not None:
                w.cost = self.cost(self._usage_model or w.model_name, usage)

    def close(self) -> None:
        """Close the widget (its state leaves the kernel and the front end)."""
        self.widget.close()


__all__ = ["DEFAULT_APPROVAL_OPTIONS", "LabRenderer", "RunWidget"]
