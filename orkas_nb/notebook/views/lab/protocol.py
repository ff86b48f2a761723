"""The wire contract between the kernel-side models and the labextension's views.

Everything that crosses the comm boundary is defined here, and the TypeScript side
(``labextension/src/protocol.ts``) mirrors this one file. What a browser sends is a pydantic
model, so the kernel validates it before it touches a run (rule 4: bad input gets a clear error
and loses nothing).

Kernel -> view: items, batched in ``{"type": "items", "start": n, "items": [...]}`` custom
messages; ``start`` is the index of the first item so a view that missed some (a late view, a
reloaded page) asks for a replay instead of showing a hole. The run's items are not a vocabulary
of their own: :func:`wire_item` derives each from a core run event. Only the approval prompts,
which are not run events, are models here. A team member's run is a lane: :func:`lane_item`
opens and updates it, and its own events carry ``lane`` (its task id), so parallel lanes
interleave on the wire and each view box holds only its own.

View -> kernel: :data:`ViewRequest` (stop, steer, an approval answer, a replay request, and the
plan view's controls).
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ....core.events import (
    AgentEvent,
    Compaction,
    Done,
    Retry,
    RunEvent,
    Steer,
    TextDelta,
    ThinkingDelta,
    ToolEnd,
    ToolStart,
    Warning,
)
from ..lanes import Lane

MODULE_NAME = "orkas-nb"
MODULE_VERSION = "^0.1.0"
HANDSHAKE_TARGET = "orkas_nb.lab"
PROBE_PREFIX = "orkas-nb-probe-"
RESULT_EXCERPT_CHARS = 4000


class ApprovalOption(BaseModel):
    id: str
    label: str


class _Item(BaseModel):
    model_config = ConfigDict(frozen=True)


class ApprovalItem(_Item):
    """A question the run is waiting on; the view shows it inline with one button per option."""

    k: Literal["approval"] = "approval"
    id: str
    title: str
    detail: str = ""
    category: str = ""
    options: list[ApprovalOption]


class ApprovalDoneItem(_Item):
    k: Literal["approval_done"] = "approval_done"
    id: str
    answer: str
    by: Literal["user", "timeout", "policy"] = "user"


#: One item of the run's body as the view reads it (``labextension/src/protocol.ts``).
WireItem = dict[str, Any]


def wire_item(event: RunEvent) -> WireItem | None:
    """The item the view draws for a run event: the one mapping from core's vocabulary to the
    wire. Fields are renamed to what the view reads (``call_id`` -> ``id``, ``arguments`` ->
    ``args``) and only those travel (``agent``, ``seq``, ``ts`` and ``output_files`` stay in the
    kernel). None for an event the body does not show (``usage`` updates set the widget's traits).
    """
    if isinstance(event, TextDelta):
        return {"k": "text", "text": event.text}
    if isinstance(event, ThinkingDelta):
        return {"k": "thinking", "text": event.text}
    if isinstance(event, ToolStart):
        # A copy: the item log is replayed later and must not follow the caller's dict.
        return {"k": "tool_start", "id": event.call_id, "name": event.name,
                "args": copy.deepcopy(event.arguments)}
    if isinstance(event, ToolEnd):
        truncated = len(event.result) > RESULT_EXCERPT_CHARS
        return {"k": "tool_end", "id": event.call_id, "name": event.name, "status": event.status,
                "result": event.result[:RESULT_EXCERPT_CHARS], "truncated": truncated,
                "duration_s": event.duration_s}
    if isinstance(event, Compaction):
        return _notice("info", "compaction",
                       f"Context compacted: {event.tokens_before:,} → {event.tokens_after:,} "
                       f"tokens ({event.messages_replaced} messages summarised)")
    if isinstance(event, Retry):
        rotated = f", switching to {event.rotated_to}" if event.rotated_to else ""
        return _notice("warn", "retry",
                       f"Retry {event.attempt} in {event.delay_s:.1f}s: {event.reason}{rotated}")
    if isinstance(event, Steer):
        return _notice("info", "steer", f"Steered: {event.text}")
    if isinstance(event, Warning):
        return _notice("warn", event.code, event.message)
    if isinstance(event, Done):
        error = event.result.error
        return {"k": "done", "stop_reason": event.result.stop_reason,
                "error": error.message if error else ""}
    return None


def lane_item(lane: Lane) -> WireItem:
    """A team member's lane as it is now: the view opens the lane on its first such item (where
    it comes in the body) and redraws its header on each later one."""
    return {"k": "lane", "lane": lane.task_id, "member": lane.member, "kind": lane.kind,
            "status": lane.status, "requests": lane.requests,
            "tokens_in": lane.usage.input_tokens, "tokens_out": lane.usage.output_tokens,
            "cost": lane.cost, "handed_back": lane.handed_back, "error": lane.error}


def lane_event_item(lane: Lane, event: AgentEvent) -> WireItem | None:
    """An event of a member's run, drawn inside its lane (``lane`` names it); its ``done`` and
    usage travel as :func:`lane_item` instead (the run itself has not ended)."""
    if isinstance(event, Done):
        return None
    item = wire_item(event)
    return None if item is None else {**item, "lane": lane.task_id}


def _notice(level: Literal["info", "warn", "error"], kind: str, text: str) -> WireItem:
    return {"k": "notice", "level": level, "kind": kind, "text": text}


class StopRequest(BaseModel):
    type: Literal["stop"]


class SteerRequest(BaseModel):
    type: Literal["steer"]
    text: str = Field(min_length=1, max_length=20_000)


class ApprovalAnswer(BaseModel):
    type: Literal["approval"]
    id: str
    answer: str


class ReplayRequest(BaseModel):
    type: Literal["replay"]
    start: int = Field(0, ge=0)


class PlanAction(BaseModel):
    """A control of a plan: answer a blocked step's form, approve, retry or skip a step (1-based
    index), or resume / stop the whole plan (no step)."""

    type: Literal["plan_action"]
    action: Literal["answer", "approve", "retry", "skip", "resume", "stop"]
    step: int | None = Field(None, ge=1)
    values: dict[str, Any] = Field(default_factory=dict)


ViewRequest = Annotated[
    StopRequest | SteerRequest | ApprovalAnswer | ReplayRequest | PlanAction,
    Field(discriminator="type"),
]
VIEW_REQUEST: TypeAdapter[Any] = TypeAdapter(ViewRequest)


class FrontendHello(BaseModel):
    """What the labextension answers to a probe."""

    nonce: str
    version: str
    views: list[str] = Field(default_factory=list)


__all__ = [
    "HANDSHAKE_TARGET",
    "MODULE_NAME",
    "MODULE_VERSION",
    "PROBE_PREFIX",
    "VIEW_REQUEST",
    "ApprovalAnswer",
    "ApprovalDoneItem",
    "ApprovalItem",
    "ApprovalOption",
    "FrontendHello",
    "PlanAction",
    "ReplayRequest",
    "SteerRequest",
    "StopRequest",
    "ViewRequest",
    "WireItem",
    "lane_event_item",
    "lane_item",
    "wire_item",
]
