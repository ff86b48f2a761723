"""The provider contract: what the harness may ask of a model, and what comes back.

A provider turns a :class:`ModelRequest` into a stream of :class:`StreamEvent`; the last
event of a successful stream is always :class:`StreamDone` carrying the assembled
:class:`~orkas_nb.core.messages.AssistantMessage`. ``complete`` drains ``stream`` (one
execution path, SPEC §3.3): the providers here inherit it from :class:`StreamingProvider`.
Retry waits are announced in the stream as :class:`StreamRetry`.
"""

from __future__ import annotations

from typing import Annotated, Any, AsyncIterator, Literal, Protocol, Union, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..core.messages import AssistantMessage, Message, Usage, WireCached


class ToolSpec(WireCached):
    """A tool as the model sees it. Agents built from the same tools share their spec objects
    (``ToolRegistry.specs``), so what is cached in ``wire_cache`` (a provider's JSON, the token
    estimate) is computed once per tool, not once per agent."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    input_schema: dict[str, Any]


class ModelRequest(BaseModel):
    """One model call. ``max_tokens=None`` means the model's own maximum (no cap)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str
    system: str = ""
    messages: list[Message] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    max_tokens: int | None = None
    temperature: float | None = None
    session_id: str | None = None
    purpose: Literal["main", "auxiliary"] = "main"
    extra: dict[str, Any] = Field(default_factory=dict)


class _StreamEvent(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)


class StreamText(_StreamEvent):
    type: Literal["text"] = "text"
    text: str


class StreamThinking(_StreamEvent):
    type: Literal["thinking"] = "thinking"
    text: str


class StreamToolCall(_StreamEvent):
    """A tool call began streaming (its arguments arrive later, assembled in StreamDone)."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str


class StreamRetry(_StreamEvent):
    """The provider layer is about to wait and try again (or rotate)."""

    type: Literal["retry"] = "retry"
    attempt: int
    delay_s: float
    reason: str
    error_kind: str = ""
    rotated_to: str | None = None


class StreamDone(_StreamEvent):
    type: Literal["done"] = "done"
    message: AssistantMessage
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str = "end_turn"


StreamEvent = Annotated[
    Union[StreamText, StreamThinking, StreamToolCall, StreamRetry, StreamDone],
    Field(discriminator="type"),
]


class ProviderCapabilities(BaseModel):
    images_in_tool_results: bool = True
    context_window: int | None = None


@runtime_checkable
class LLMProvider(Protocol):
    """Anything that can stream a model response."""

    id: str

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    async def complete(self, request: ModelRequest) -> StreamDone: ...

    async def validate_auth(self) -> None: ...


async def drain(stream: AsyncIterator[StreamEvent]) -> StreamDone:
    """The non-streaming entry of every provider: consume the stream, return its end."""
    done: StreamDone | None = None
    async for event in stream:
        if isinstance(event, StreamDone):
            done = event
    if done is None:
        from ..core.errors import StreamTruncatedError

        raise StreamTruncatedError("the stream ended without a final message")
    return done


class StreamingProvider:
    """The base of the providers here: a subclass writes ``stream``; ``complete`` drains it.

    Not a layer on the stream: ``complete`` is the one call to :func:`drain` every provider
    made itself, and ``stream`` is the subclass's own generator, unwrapped.
    """

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    async def complete(self, request: ModelRequest) -> StreamDone:
        return await drain(self.stream(request))


def capabilities_of(provider: Any, model: str) -> ProviderCapabilities:
    fn = getattr(provider, "capabilities", None)
    if callable(fn):
        return fn(model)
    return ProviderCapabilities()
