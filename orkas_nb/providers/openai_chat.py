"""OpenAI Chat Completions over httpx with SSE: OpenAI itself and any compatible server.

Encoding. Each message's wire JSON is computed once and kept in ``message.wire_cache`` (messages
are immutable), and the request body is spliced from those cached strings with ``messages``
last, so a long run never re-encodes its history and turn N+1's body starts with turn N's
bytes (the provider's prompt cache sees a stable prefix).

Thinking. Chat Completions takes no reasoning input, so a thinking block is never sent back
here (the degrade rule for this wire: dropped; its text stays in the session). Reasoning that
compatible servers stream as ``reasoning_content`` is received as thinking.

Images go in user messages as ``image_url`` data URLs. Tool messages take text only, so this
provider reports ``images_in_tool_results=False`` and the runner moves tool images into a
user message.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Unpack

import httpx

from ..core.messages import (
    AssistantMessage,
    ImageBlock,
    SummaryBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    Usage,
    new_id,
    shared_prefix,
)
from .base import StreamDone, StreamText, StreamThinking, StreamToolCall
from .sse import iter_sse
from .http_errors import error_from_stream
from .transport import HttpOptions, HttpProvider, dumps, tool_call_block

if TYPE_CHECKING:  # only in annotations
    from ..core.messages import Message, ToolCallBlock
    from .base import ModelRequest, StreamEvent, ToolSpec

__all__ = ["OpenAIChatProvider", "cache_key", "encode_message"]

_CACHE = "openai.chat"
_FINISH = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens"}
MAX_CACHE_KEY = 64


def cache_key(session_id: str, limit: int = MAX_CACHE_KEY) -> str:
    """The session id as a prompt-cache key; hashed (stable) when longer than ``limit``."""
    if len(session_id) <= limit:
        return session_id
    return "s-" + hashlib.sha256(session_id.encode()).hexdigest()[: limit - 2]


def _data_url(block: ImageBlock) -> str:
    return f"data:{block.media_type};base64,{block.data}"


def _user_content(blocks: list[Any]) -> str | list[dict[str, Any]]:
    if all(isinstance(b, (TextBlock, SummaryBlock)) for b in blocks) and len(blocks) == 1:
        return blocks[0].text
    parts: list[dict[str, Any]] = []
    for b in blocks:
        if isinstance(b, (TextBlock, SummaryBlock)):
            parts.append({"type": "text", "text": b.text})
        elif isinstance(b, ImageBlock):
            parts.append({"type": "image_url", "image_url": {"url": _data_url(b)}})
    return parts


def _arguments(call: ToolCallBlock) -> str:
    return call.raw_arguments if call.raw_arguments is not None else dumps(call.arguments)


def _wire(message: Message) -> dict[str, Any]:
    if isinstance(message, AssistantMessage):
        text = "".join(b.text for b in message.content if isinstance(b, (TextBlock, SummaryBlock)))
        out: dict[str, Any] = {"role": "assistant", "content": text or None}
        calls = message.tool_calls
        if calls:
            out["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": _arguments(c)}}
                for c in calls
            ]
        elif not text:
            out["content"] = ""
        return out
    if isinstance(message, ToolResultMessage):
        text = message.text
        images = sum(isinstance(b, ImageBlock) for b in message.content)
        if images:  # the runner moves images out for this provider; say so if one slipped through
            text += f"\n[{images} image(s) not sent: tool messages take text only]"
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": text}
    return {"role": "user", "content": _user_content(message.content)}


def _tool_json(spec: ToolSpec) -> str:
    """A tool's wire JSON, cached on the spec (shared by the agents built from that tool)."""
    cache = spec.wire_cache
    hit = cache.get("openai")
    if hit is None:
        hit = cache["openai"] = dumps(
            {"type": "function",
             "function": {"name": spec.name, "description": spec.description, "parameters": spec.input_schema}})
    return hit


def encode_message(message: Message) -> str:
    """The message's wire JSON, computed once per (immutable) message."""
    cache = message.wire_cache
    encoded = cache.get(_CACHE)
    if encoded is None:
        encoded = cache[_CACHE] = dumps(_wire(message))
    return encoded


class OpenAIChatProvider(HttpProvider):
    """Chat Completions streaming client (``POST {base_url}/chat/completions``).

    ``send_cache_key`` sends the session id as ``prompt_cache_key`` (OpenAI's own endpoint
    does; compatible servers may reject unknown fields, so named endpoints default to off).
    ``max_tokens_field`` is ``max_completion_tokens`` for OpenAI, ``max_tokens`` elsewhere.
    ``request.extra["openai"]`` adds wire fields to one request; ``request.extra["assistant_prefix"]``
    ends the messages with a partial assistant turn for servers that continue it (llama.cpp).
    """

    id = "openai"
    default_base_url = "https://api.openai.com/v1"
    stream_path = "/chat/completions"
    images_in_tool_results = False

    def __init__(
        self,
        *,
        send_cache_key: bool = True,
        max_tokens_field: str = "max_completion_tokens",
        parallel_tool_calls: bool | None = True,
        **options: Unpack[HttpOptions],
    ) -> None:
        super().__init__(**options)
        self.send_cache_key = send_cache_key
        self.max_tokens_field = max_tokens_field
        self.parallel_tool_calls = parallel_tool_calls
        self._system_text: str | None = None
        self._system_json = ""
        self._prev_messages: list[Message] = []
        self._prev_joined = ""

    # -- request ------------------------------------------------------------------------------

    def _encode_tools(self, tools: list[ToolSpec]) -> str:
        return "[" + ",".join(map(_tool_json, tools)) + "]"

    def _system(self, text: str) -> str:
        if text != self._system_text:
            self._system_text = text
            self._system_json = dumps({"role": "system", "content": text})
        return self._system_json

    def body(self, request: ModelRequest) -> bytes:
        """The request body: scalars, then tools, then ``messages`` (cached parts) last."""
        head: dict[str, Any] = {"model": request.model, "stream": True,
                                "stream_options": {"include_usage": True}}
        if request.max_tokens is not None:
            head[self.max_tokens_field] = request.max_tokens
        if request.temperature is not None:
            head["temperature"] = request.temperature
        if self.send_cache_key and request.session_id:
            head["prompt_cache_key"] = cache_key(request.session_id)
        if request.tools and self.parallel_tool_calls is not None:
            head["parallel_tool_calls"] = self.parallel_tool_calls
        head.update(self.extra_body)
        head.update(request.extra.get("openai", {}))  # per-request wire fields (seed, stop…)
        parts = [dumps(head)[:-1]]
        if request.tools:
            parts.append(',"tools":')
            parts.append(self._tools(request.tools))
        parts.append(',"messages":[')
        messages: list[str] = []
        if request.system:
            messages.append(self._system(request.system))
        history = self._history(request.messages)
        if history:
            messages.append(history)
        prefix = request.extra.get("assistant_prefix")
        if prefix:  # a partial assistant turn the server continues (local servers' prefill)
            messages.append(dumps({"role": "assistant", "content": prefix}))
        parts.append(",".join(messages))
        parts.append("]}")
        return "".join(parts).encode("utf-8")

    def _history(self, messages: list[Message]) -> str:
        """The comma-joined history, extending the previous request's when it is a prefix.

        A run's requests share their history object by object, so only the messages added
        since the last request are looked up (each one's encoding is cached on it anyway).
        """
        prev = self._prev_messages
        k = shared_prefix(prev, messages)
        if k == len(prev) and k:
            joined = self._prev_joined
        else:
            joined = ",".join(encode_message(m) for m in messages[:k])
        tail = [encode_message(m) for m in messages[k:]]
        if tail:
            joined = ",".join([joined, *tail]) if joined else ",".join(tail)
        self._prev_messages = list(messages)
        self._prev_joined = joined
        return joined

    # -- response -----------------------------------------------------------------------------

    async def _parse(self, response: httpx.Response, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        text: list[str] = []
        thinking: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        usage = Usage()
        finish: str | None = None
        done = False
        try:
            async for _, data in iter_sse(response):
                if done:  # read on to the end of the body so the connection can be reused
                    continue
                if data == "[DONE]":
                    done = True
                    continue
                try:
                    chunk = json.loads(data)
                except ValueError:
                    raise self._malformed(data) from None
                if not isinstance(chunk, dict):
                    raise self._malformed(data)
                if "error" in chunk:
                    raise error_from_stream(chunk, self.id)
                if chunk.get("usage"):
                    usage = _usage(chunk["usage"])
                for choice in chunk.get("choices") or ():
                    delta = choice.get("delta") or {}
                    piece = delta.get("content")
                    if piece:
                        text.append(piece)
                        yield StreamText(text=piece)
                    reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                    if reasoning:
                        thinking.append(reasoning)
                        yield StreamThinking(text=reasoning)
                    for tc in delta.get("tool_calls") or ():
                        started = _tool_delta(calls, tc)
                        if started is not None:
                            yield started
                    if choice.get("finish_reason"):
                        finish = choice["finish_reason"]
        except httpx.HTTPError as exc:
            raise self._cut(exc, bool(text or calls), "its end") from exc
        if not done or finish is None:
            raise self._truncated("a finish_reason and data: [DONE]")
        message = _message(self.id, request.model, text, thinking, calls, usage, finish)
        yield StreamDone(message=message, usage=usage, stop_reason=message.stop_reason or "end_turn")


def _tool_delta(calls: dict[int, dict[str, Any]], tc: dict[str, Any]) -> StreamToolCall | None:
    """Fold one streamed tool-call fragment; returns the start event when a call first appears."""
    index = tc.get("index", len(calls))
    fn = tc.get("function") or {}
    entry = calls.get(index)
    if entry is None:
        entry = calls[index] = {"id": tc.get("id") or new_id("call"), "name": fn.get("name") or "",
                                "args": [], "announced": False}
    elif fn.get("name") and not entry["name"]:
        entry["name"] = fn["name"]
    if fn.get("arguments"):
        entry["args"].append(fn["arguments"])
    if not entry["announced"] and entry["name"]:
        entry["announced"] = True
        return StreamToolCall(id=entry["id"], name=entry["name"])
    return None


def _usage(raw: dict[str, Any]) -> Usage:
    details = raw.get("prompt_tokens_details") or {}
    return Usage(
        input_tokens=raw.get("prompt_tokens") or 0,
        output_tokens=raw.get("completion_tokens") or 0,
        cache_read_tokens=details.get("cached_tokens") or 0,
        # Billed (1.25x input) from GPT-5.6 on; absent before, and on other servers.
        cache_write_tokens=details.get("cache_write_tokens") or 0,
    )


def _message(
    provider: str, model: str, text: list[str], thinking: list[str],
    calls: dict[int, dict[str, Any]], usage: Usage, finish: str,
) -> AssistantMessage:
    blocks: list[Any] = []
    if thinking:
        blocks.append(ThinkingBlock(text="".join(thinking)))
    if text:
        blocks.append(TextBlock(text="".join(text)))
    for index in sorted(calls):
        call = calls[index]
        blocks.append(tool_call_block(call["id"], call["name"], "".join(call["args"])))
    stop = _FINISH.get(finish, finish)
    if calls and stop == "end_turn":
        stop = "tool_use"
    return AssistantMessage(content=blocks, provider=provider, model=model, usage=usage, stop_reason=stop)

