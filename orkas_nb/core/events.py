"""Run events: what ``Runner.run`` yields, a discriminated union on ``type``.

Every event carries the agent's name and a per-run monotonic ``seq`` so a UI can
interleave several agents. A renderer consumes these and nothing else.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from .errors import ErrorInfo
from .messages import ToolResultMessage, ToolStatus, Usage


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    agent: str = "agent"
    seq: int = 0
    ts: float = Field(default_factory=time.time)


class TextDelta(_Event):
    type: Literal["text_delta"] = "text_delta"
    text: str


class ThinkingDelta(_Event):
    type: Literal["thinking_delta"] = "thinking_delta"
    text: str


class ToolStart(_Event):
    type: Literal["tool_start"] = "tool_start"
    call_id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolEnd(_Event):
    type: Literal["tool_end"] = "tool_end"
    call_id: str
    name: str
    status: ToolStatus
    result: str = ""
    duration_s: float = 0.0
    output_files: list[str] = Field(default_factory=list)


class Compaction(_Event):
    type: Literal["compaction"] = "compaction"
    tokens_before: int
    tokens_after: int
    messages_replaced: int


class Retry(_Event):
    type: Literal["retry"] = "retry"
    attempt: int
    delay_s: float
    reason: str
    error_kind: str = ""
    rotated_to: str | None = None


class Steer(_Event):
    type: Literal["steer"] = "steer"
    text: str


class Warning(_Event):  # noqa: A001 - the event's wire name is "warning"
    type: Literal["warning"] = "warning"
    code: str
    message: str


class UsageUpdate(_Event):
    """The turn's usage so far (cumulative), after each model response: live token counts and
    cost before ``done``. A consumer that does not know the type may ignore it."""

    type: Literal["usage"] = "usage"
    usage: Usage
    model_requests: int = 0
    model: str | None = None


StopReason = Literal["end_turn", "loop_guard", "max_steps", "cancelled", "error"]


class RunStats(BaseModel):
    model_requests: int = 0
    tool_calls: int = 0
    tool_failures: int = 0
    rejections: int = 0
    denials: int = 0
    compactions: int = 0
    retries: int = 0


class RunResult(BaseModel):
    """The outcome of one turn. ``error`` is set when ``stop_reason == "error"``."""

    text: str = ""
    stop_reason: StopReason = "end_turn"
    usage: Usage = Field(default_factory=Usage)
    stats: RunStats = Field(default_factory=RunStats)
    duration_s: float = 0.0
    first_token_s: float | None = None
    output_files: list[str] = Field(default_factory=list)
    error: ErrorInfo | None = None
    session: str | None = None
    # Observations of tools that ran but could not be saved (a state-layer error follows).
    unsaved: list[ToolResultMessage] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.stop_reason != "error"


class Done(_Event):
    type: Literal["done"] = "done"
    result: RunResult


AgentEvent = Annotated[
    Union[TextDelta, ThinkingDelta, ToolStart, ToolEnd, Compaction, Retry, Steer, Warning, UsageUpdate,
          Done],
    Field(discriminator="type"),
]

Lane = Literal["dispatch", "worker", "floor"]


class MemberEvent(_Event):
    """An event of a team member's run, forwarded into the commander's stream (SPEC §11).

    Each dispatched task is its own lane: ``member`` ran ``task_id``; ``event`` is what the
    member's own run yielded (its ``done`` ends the lane). ``lane`` says how the work came:
    ``dispatch`` (``dispatch_to``), ``worker`` (``run_worker``), ``floor`` (the member answers
    the user directly). ``visible`` False: an anonymous worker, which the user does not see.
    """

    type: Literal["member"] = "member"
    member: str
    task_id: str
    lane: Lane = "dispatch"
    visible: bool = True
    event: AgentEvent


RunEvent = Annotated[
    Union[TextDelta, ThinkingDelta, ToolStart, ToolEnd, Compaction, Retry, Steer, Warning, UsageUpdate,
          Done, MemberEvent],
    Field(discriminator="type"),
]
