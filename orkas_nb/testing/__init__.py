"""Test doubles that are product features: run and test an agent with no network and no key.

``ScriptedModel`` is an :class:`~orkas_nb.providers.base.LLMProvider` that plays a script of
responses, streaming them as a real provider would (text in chunks, then tool calls, then the
final message), and records every request it receives::

    from orkas_nb.testing import ScriptedModel, reply, call

    model = ScriptedModel([
        reply("Let me look.", call("read_file", path="README.md")),
        reply("It is a README."),
    ])

A script entry may also be an exception (raised instead of answering, to test error paths),
or the script may be a function ``request -> Reply`` for answers that depend on the request.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Sequence, Union

from ..core.errors import OrkasError
from ..core.messages import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
    new_id,
)
from ..providers.base import (
    ModelRequest,
    ProviderCapabilities,
    StreamDone,
    StreamEvent,
    StreamingProvider,
    StreamText,
    StreamThinking,
    StreamToolCall,
)

__all__ = ["ScriptedModel", "Reply", "reply", "call", "ScriptExhausted"]


class ScriptExhausted(OrkasError):
    """The model was asked more often than its script has answers."""


@dataclass
class Reply:
    """One scripted model answer."""

    text: str = ""
    tool_calls: list[ToolCallBlock] = field(default_factory=list)
    thinking: str = ""
    thinking_signature: str | None = None
    stop_reason: str | None = None
    usage: Usage | None = None
    chunk_chars: int = 8
    delay_s: float = 0.0  # between streamed chunks, to test Stop mid-stream
    fail_after_chunks: BaseException | None = None  # raise mid-stream, after some text
    # held until this event is set: orders concurrent members without relying on the clock
    wait: asyncio.Event | None = None


def call(name: str, /, _id: str | None = None, _raw: str | None = None, **arguments: Any) -> ToolCallBlock:
    """A scripted tool call. ``_raw`` gives unparseable argument text instead of ``arguments``."""
    return ToolCallBlock(
        id=_id if _id is not None else new_id("call"),
        name=name,
        arguments={} if _raw is not None else arguments,
        raw_arguments=_raw,
    )


def reply(text: str = "", *calls: ToolCallBlock, **options: Any) -> Reply:
    return Reply(text=text, tool_calls=list(calls), **options)


ScriptEntry = Union[Reply, str, BaseException]


def _estimate(request: ModelRequest) -> int:
    chars = len(request.system) + sum(
        len(json.dumps(m.model_dump(mode="json"), ensure_ascii=False)) for m in request.messages
    )
    return max(1, chars // 4)


class ScriptedModel(StreamingProvider):
    """A deterministic provider that plays a script; see the module docstring."""

    def __init__(
        self,
        script: Sequence[ScriptEntry] | Callable[[ModelRequest], ScriptEntry],
        *,
        id: str = "scripted",
        context_window: int = 128_000,
        images_in_tool_results: bool = True,
        count_usage: bool = False,
    ) -> None:
        self.id = id
        self._script = script if callable(script) else list(script)
        self._position = 0
        self.requests: list[ModelRequest] = []
        self.context_window = context_window
        self.images_in_tool_results = images_in_tool_results
        self.count_usage = count_usage

    @property
    def remaining(self) -> int:
        return 0 if callable(self._script) else len(self._script) - self._position

    def capabilities(self, model: str) -> ProviderCapabilities:
        return ProviderCapabilities(
            images_in_tool_results=self.images_in_tool_results, context_window=self.context_window
        )

    async def validate_auth(self) -> None:
        return None

    def _next(self, request: ModelRequest) -> ScriptEntry:
        if callable(self._script):
            return self._script(request)
        if self._position >= len(self._script):
            raise ScriptExhausted(
                f"ScriptedModel was asked a {self._position + 1}th time; "
                f"its script has {len(self._script)} answers"
            )
        entry = self._script[self._position]
        self._position += 1
        return entry

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        entry = self._next(request)
        if isinstance(entry, BaseException):
            raise entry
        r = Reply(text=entry) if isinstance(entry, str) else entry
        await asyncio.sleep(0)
        if r.wait is not None:
            await r.wait.wait()
        if r.thinking:
            yield StreamThinking(text=r.thinking)
        size = max(1, r.chunk_chars)
        for n, start in enumerate(range(0, len(r.text), size)):
            if r.fail_after_chunks is not None and n == 2:
                raise r.fail_after_chunks
            if r.delay_s:
                await asyncio.sleep(r.delay_s)
            yield StreamText(text=r.text[start : start + size])
        if r.fail_after_chunks is not None:
            raise r.fail_after_chunks
        blocks: list[Any] = []
        if r.thinking:
            blocks.append(ThinkingBlock(text=r.thinking, signature=r.thinking_signature))
        if r.text:
            blocks.append(TextBlock(text=r.text))
        for c in r.tool_calls:
            yield StreamToolCall(id=c.id, name=c.name)
            blocks.append(c)
        usage = r.usage
        if usage is None:
            usage = (
                Usage(input_tokens=_estimate(request), output_tokens=max(1, len(r.text) // 4))
                if self.count_usage
                else Usage()
            )
        stop = r.stop_reason or ("tool_use" if r.tool_calls else "end_turn")
        message = AssistantMessage(
            content=blocks, provider=self.id, model=request.model, usage=usage, stop_reason=stop
        )
        yield StreamDone(message=message, usage=usage, stop_reason=stop)
