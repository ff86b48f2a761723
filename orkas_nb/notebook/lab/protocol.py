"""The wire contract between the kernel-side models and the labextension's views.

Everything that crosses the comm boundary is a pydantic model here, so the kernel validates
what a browser sends before it touches a run (rule 4: bad input gets a clear error and loses
nothing) and the TypeScript side (``labextension/src/protocol.ts``) mirrors one file.

Kernel -> view: :class:`RunItem` values, batched in ``{"type": "items", "start": n, "items": [...]}``
custom messages; ``start`` is the index of the first item so a view that missed some (a late
view, a reloaded page) asks for a replay instead of showing a hole.

View -> kernel: :data:`ViewRequest` (stop, steer, an approval answer, a replay request, and the
plan view's controls).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

MODULE_NAME = "orkas-nb"
MODULE_VERSION = "^0.1.0"
HANDSHAKE_TARGET = "orkas_nb.lab"
PROBE_PREFIX = "orkas-nb-probe-"
RESULT_EXCERPT_CHARS = 4000


class _Item(BaseModel):
    model_config = ConfigDict(frozen=True)


class TextItem(_Item):
    k: Literal["text"] = "text"
    text: str


class ThinkingItem(_Item):
    k: Literal["thinking"] = "thinking"
    text: str


class ToolStartItem(_Item):
    k: Literal["tool_start"] = "tool_start"
    id: str
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolEndItem(_Item):
    k: Literal["tool_end"] = "tool_end"
    id: str
    name: str
    status: str
    result: str = ""
    truncated: bool = False
    duration_s: float = 0.0


class NoticeItem(_Item):
    k: Literal["notice"] = "notice"
    level: Literal["info", "warn", "error"] = "info"
    kind: str
    text: str


class ApprovalOption(BaseModel):
    id: str
    label: str


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


class DoneItem(_Item):
    k: Literal["done"] = "done"
    stop_reason: str
    error: str = ""


RunItem = Annotated[
    TextItem | ThinkingItem | ToolStartItem | ToolEndItem | NoticeItem | ApprovalItem | ApprovalDoneItem | DoneItem,
    Field(discriminator="k"),
]


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
    """A control on a paused plan: answer a blocked step's form, approve, retry or skip."""

    type: Literal["plan_action"]
    action: Literal["answer", "approve", "retry", "skip"]
    step: int
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
    "DoneItem",
    "FrontendHello",
    "NoticeItem",
    "PlanAction",
    "ReplayRequest",
    "RunItem",
    "SteerRequest",
    "StopRequest",
    "TextItem",
    "ThinkingItem",
    "ToolEndItem",
    "ToolStartItem",
    "ViewRequest",
]
