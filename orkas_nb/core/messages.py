"""Messages and content blocks: the one vocabulary shared by providers, sessions and UIs.

A conversation is a list of messages. Each message is a frozen pydantic model tagged by
``role``; its content is a list of blocks tagged by ``type``. Tool results are messages of
their own (``role="tool"``), one per call, so a session line records exactly one result and
the pairing invariant (SPEC §3.1) can be checked and repaired line by line.

Messages are immutable, which lets a provider cache a message's wire encoding on the object
(``wire_cache``) and never re-encode history (STYLE: serialise history once).
"""

from __future__ import annotations

import operator
import os
import time
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr


def shared_prefix(known: Sequence[Any], items: Sequence[Any]) -> int:
    """How many leading items are the very same objects in both (an append-only history is
    compared with its last state this way; checked at C speed in the usual all-shared case)."""
    n = min(len(known), len(items))
    if all(map(operator.is_, known, items)):
        return n
    return next(i for i in range(n) if known[i] is not items[i])


def new_id(prefix: str) -> str:
    # 80 random bits, as 20 hex digits; os.urandom directly is ~4x cheaper than uuid4().hex.
    return f"{prefix}_{os.urandom(10).hex()}"


class _Block(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str


class ImageBlock(_Block):
    """An image, base64-encoded. ``width``/``height`` feed token estimation when known."""

    type: Literal["image"] = "image"
    media_type: str = "image/png"
    data: str
    width: int | None = None
    height: int | None = None


class ToolCallBlock(_Block):
    """A call proposed by the model. ``raw_arguments`` keeps unparseable JSON verbatim."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None


class ThinkingBlock(_Block):
    """Model reasoning. ``signature`` makes it replayable to the same model only."""

    type: Literal["thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    redacted: bool = False


class SummaryBlock(_Block):
    """Stands for the part of the conversation that compaction replaced."""

    type: Literal["summary"] = "summary"
    text: str
    replaced_messages: int = 0
    tokens_before: int | None = None


ContentBlock = Annotated[
    Union[TextBlock, ImageBlock, ToolCallBlock, ThinkingBlock, SummaryBlock],
    Field(discriminator="type"),
]
ResultBlock = Annotated[Union[TextBlock, ImageBlock], Field(discriminator="type")]


class Usage(BaseModel):
    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


class WireCached(BaseModel):
    """An immutable model with a private cache of its encodings (wire formats, session lines,
    token estimates), filled by whoever encodes it and never serialised. A copy starts empty,
    and equality ignores the cache."""

    # Created on first use: a private default_factory makes pydantic inspect the factory's
    # signature on every instantiation (~30 us a message, more than validating it).
    _cache: dict[str, Any] | None = PrivateAttr(default=None)

    @property
    def wire_cache(self) -> dict[str, Any]:
        # Straight to the private dict: pydantic's attribute hook costs ~30x on this hot path.
        private = self.__pydantic_private__
        cache = private["_cache"]  # type: ignore[index]
        if cache is None:
            cache = private["_cache"] = {}  # type: ignore[index]
        return cache

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Any:
        # A copy is a different object: it must not inherit (possibly stale) encodings.
        copy = super().model_copy(update=update, deep=deep)
        object.__setattr__(copy, "__pydantic_private__", {"_cache": None})
        return copy

    def __eq__(self, other: object) -> bool:
        # Equality is by content: a filled encoding cache must not make equal objects differ.
        if not isinstance(other, BaseModel):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__



class _Message(WireCached):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(default_factory=lambda: new_id("msg"))
    created_at: float = Field(default_factory=time.time)


class UserMessage(_Message):
    role: Literal["user"] = "user"
    content: list[ContentBlock]
    # "prompt" for the user's turn, "steer" for a message folded in mid-run,
    # "tool_images" for images moved out of tool results, "summary" for compaction output.
    origin: Literal["prompt", "steer", "tool_images", "summary"] = "prompt"

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, (TextBlock, SummaryBlock)))


class AssistantMessage(_Message):
    role: Literal["assistant"] = "assistant"
    content: list[ContentBlock]
    provider: str | None = None
    model: str | None = None
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str | None = None

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> list[ToolCallBlock]:
        return [b for b in self.content if isinstance(b, ToolCallBlock)]


#: How a tool call ended: the one spelling, imported by the events, the dispatcher and the views.
ToolStatus = Literal["ok", "error", "rejected", "interrupted", "denied"]

# How a tool result's last line starts when it states what this machine offers (a sandbox, a
# network). The tool that writes it (``tools.bash``) and the replay that ignores it
# (``providers.cassette``) sit in layers that do not import each other, so the marker lives here.
HOST_NOTE = "[host: "


class ToolResultMessage(_Message):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    name: str
    content: list[ResultBlock]
    status: ToolStatus = "ok"
    # Set on a placeholder holding the place of a result still to come from outside the run
    # (``"user"``: an ``ask_user`` call). Such a call stays open: repair keeps it in the last
    # segment, no model request may carry it, and the answer takes its place
    # (``harness.awaiting``). Absent from the session line when unset.
    awaiting: str | None = Field(default=None, exclude_if=lambda v: v is None)

    @property
    def is_error(self) -> bool:
        return self.status != "ok"

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


Message = Annotated[
    Union[UserMessage, AssistantMessage, ToolResultMessage], Field(discriminator="role")
]


def user_message(text: str, images: list[ImageBlock] | None = None, **kw: Any) -> UserMessage:
    return UserMessage(content=[TextBlock(text=text), *(images or [])], **kw)


def tool_result(
    call: ToolCallBlock, text: str, status: ToolStatus = "ok", images: list[ImageBlock] | None = None
) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id,
        name=call.name,
        content=[TextBlock(text=text), *(images or [])],
        status=status,
    )
