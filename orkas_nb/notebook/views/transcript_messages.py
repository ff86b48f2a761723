"""The messages of a saved transcript (schema version 1; see :mod:`.transcript`).

The run's own types are core's (Usage, ErrorInfo, ToolCallBlock); where the saved shape differs
from core's, a subclass says how, so the JSON of schema version 1 stays as it is.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...core.messages import ToolCallBlock, ToolStatus, Usage

__all__ = ["TAssistant", "TMessage", "TToolCall", "TToolResult", "TUser"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class TToolCall(ToolCallBlock):
    """A call as saved: no ``type`` tag (a transcript's calls are all calls), and unknown fields
    ignored on reading, where core's blocks forbid them."""

    model_config = ConfigDict(extra="ignore")

    type: Literal["tool_call"] = Field("tool_call", exclude=True)


class TUser(_Model):
    role: Literal["user"] = "user"
    text: str
    origin: str = "prompt"  # prompt | steer | tool_images | summary
    images: int = 0


class TAssistant(_Model):
    role: Literal["assistant"] = "assistant"
    text: str = ""
    thinking: str = ""
    tool_calls: list[TToolCall] = Field(default_factory=list)
    provider: str | None = None
    model: str | None = None
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str | None = None


class TToolResult(_Model):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    name: str
    status: ToolStatus = "ok"
    text: str = ""
    truncated: bool = False
    images: int = 0
    duration_s: float | None = None
    output_files: list[str] = Field(default_factory=list)


TMessage = Annotated[TUser | TAssistant | TToolResult, Field(discriminator="role")]
