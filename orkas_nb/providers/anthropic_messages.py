"""Anthropic Messages over httpx with SSE: text, tool_use, thinking with signatures, cache usage.

Encoding. Each message's content blocks are encoded once into ``message.wire_cache``;
consecutive same-role messages (tool results, then a steer or the images the runner moved out
of tool results) are joined into one wire turn, as the API expects after a ``tool_use``.

Prompt caching. Three ``cache_control`` breakpoints mark the stable prefix: the last tool, the
system prompt, and the last block of the last message (a breakpoint that moves forward each
request, so the next request reads the previous one's prefix from the cache). Only that last
block differs from its cached encoding; everything before it is byte-identical across turns.

Thinking degrade rule. A thinking block (or redacted thinking) is sent back verbatim, with its
signature, only to the provider id and model that produced it (``AssistantMessage.provider``
and ``.model`` equal this provider's id and the request's model). Anywhere else it is dropped:
signatures do not verify across models, and another model's reasoning is not this one's
context. Its text stays in the session and the transcript. Unsigned thinking (from an
OpenAI-compatible server) is always dropped on this wire.

"No cap" means the catalog's output limit: this API requires ``max_tokens`` on every request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, ClassVar, Unpack

import httpx

from ..core.messages import (
    AssistantMessage,
    ImageBlock,
    SummaryBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
)
from .auth import StaticKey
from .base import StreamDone, StreamText, StreamThinking, StreamToolCall
from .sse import iter_sse
from .http_errors import error_from_stream
from .transport import HttpOptions, HttpProvider, dumps, tool_call_block

if TYPE_CHECKING:  # only in annotations
    from ..core.messages import Message
    from .base import ModelRequest, StreamEvent, ToolSpec

__all__ = ["API_VERSION", "AnthropicProvider"]

API_VERSION = "2023-06-01"
_EPHEMERAL = ',"cache_control":{"type":"ephemeral"}}'


def _image(b: ImageBlock) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": b.media_type, "data": b.data}}


def _blocks(message: Message, keep_thinking: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if isinstance(message, ToolResultMessage):
        content = [
            {"type": "text", "text": b.text} if isinstance(b, TextBlock) else _image(b)
            for b in message.content
            if not (isinstance(b, TextBlock) and not b.text.strip())  # the API refuses blank text blocks
        ]
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        if content:
            block["content"] = content
        if message.status != "ok":
            block["is_error"] = True
        return [block]
    for b in message.content:
        if isinstance(b, (TextBlock, SummaryBlock)):
            if b.text.strip():  # a model's "\n\n" before a tool call: the API refuses blank text blocks
                out.append({"type": "text", "text": b.text})
        elif isinstance(b, ImageBlock):
            out.append(_image(b))
        elif isinstance(b, ToolCallBlock):
            args: Any = b.arguments if b.raw_arguments is None else {"_unparsed": b.raw_arguments}
            out.append({"type": "tool_use", "id": b.id, "name": b.name, "input": args})
        elif isinstance(b, ThinkingBlock) and keep_thinking and b.signature:
            if b.redacted:
                out.append({"type": "redacted_thinking", "data": b.signature})
            else:
                out.append({"type": "thinking", "thinking": b.text, "signature": b.signature})
    if not out:  # the API refuses empty turns; this keeps user/assistant alternation intact
        out.append({"type": "text", "text": "(no content)"})
    return out


class AnthropicProvider(HttpProvider):
    """Messages streaming client (``POST {base_url}/v1/messages``)."""

    id = "anthropic"
    default_base_url = "https://api.anthropic.com"
    stream_path = "/v1/messages"
    models_path = "/v1/models"
    base_headers: ClassVar[dict[str, str]] = {"anthropic-version": API_VERSION}
    images_in_tool_results = True

    def __init__(self, *, cache_breakpoints: bool = True, **options: Unpack[HttpOptions]) -> None:
        super().__init__(**options)
        self.cache_breakpoints = cache_breakpoints

    def _auth(self, token: str | None) -> dict[str, str]:
        if not token:
            return {}
        if isinstance(self.token_source, StaticKey):
            return {"x-api-key": token}
        return {"authorization": f"Bearer {token}"}  # OAuth-style tokens travel as bearer

    # -- request ------------------------------------------------------------------------------

    def encode_blocks(self, message: Message, model: str) -> str:
        """The message's content blocks as comma-joined JSON, cached per message (and per
        thinking verdict, which depends on whether ``model`` produced the message)."""
        key = "anthropic"
        if isinstance(message, AssistantMessage) and any(isinstance(b, ThinkingBlock) for b in message.content):
            same = message.provider == self.id and message.model == model
            key = "anthropic.thinking" if same else "anthropic.dropped-thinking"
        cache = message.wire_cache
        encoded = cache.get(key)
        if encoded is None:
            keep = key == "anthropic.thinking"
            encoded = cache[key] = ",".join(dumps(b) for b in _blocks(message, keep))
        return encoded

    def _encode_tools(self, tools: list[ToolSpec]) -> str:
        encoded = [dumps({"name": t.name, "description": t.description, "input_schema": t.input_schema})
                   for t in tools]
        if self.cache_breakpoints and encoded:
            encoded[-1] = encoded[-1][:-1] + _EPHEMERAL
        return "[" + ",".join(encoded) + "]"

    def _turns(self, request: ModelRequest) -> str:
        turns: list[tuple[str, list[str]]] = []
        for m in request.messages:
            role = "assistant" if isinstance(m, AssistantMessage) else "user"
            encoded = self.encode_blocks(m, request.model)
            if turns and turns[-1][0] == role:
                turns[-1][1].append(encoded)
            else:
                turns.append((role, [encoded]))
        if self.cache_breakpoints and turns:
            last = turns[-1][1]
            tail = last[-1]
            # Mark the final block unless it is thinking (which cannot carry cache_control).
            final_start = tail.rfind(',{"type":')
            final = tail[final_start + 1:] if final_start >= 0 else tail
            if not final.startswith(('{"type":"thinking"', '{"type":"redacted_thinking"')):
                last[-1] = tail[:-1] + _EPHEMERAL
        return ",".join(
            '{"role":"' + role + '","content":[' + ",".join(parts) + "]}" for role, parts in turns
        )

    def body(self, request: ModelRequest) -> bytes:
        max_tokens = request.max_tokens or self.catalog.get(request.model).max_output
        head: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens, "stream": True}
        if request.temperature is not None:
            head["temperature"] = request.temperature
        if request.system:
            system: dict[str, Any] = {"type": "text", "text": request.system}
            if self.cache_breakpoints:
                system["cache_control"] = {"type": "ephemeral"}
            head["system"] = [system]
        head.update(self.extra_body)
        head.update(request.extra.get("anthropic", {}))
        parts = [dumps(head)[:-1]]
        if request.tools:
            parts += [',"tools":', self._tools(request.tools)]
        parts += [',"messages":[', self._turns(request), "]}"]
        return "".join(parts).encode("utf-8")

    # -- response -----------------------------------------------------------------------------

    async def _parse(self, response: httpx.Response, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        blocks: dict[int, dict[str, Any]] = {}
        usage: dict[str, int] = {}
        stop: str | None = None
        finished = False
        produced = False
        try:
            async for name, data in iter_sse(response):
                if finished:  # read on to the end of the body so the connection can be reused
                    continue
                try:
                    ev = json.loads(data)
                except ValueError:
                    raise self._malformed(data) from None
                kind = ev.get("type", name) if isinstance(ev, dict) else None
                if kind == "content_block_delta":
                    block = blocks.get(ev.get("index", -1))
                    delta = ev.get("delta") or {}
                    dtype = delta.get("type")
                    if block is None:
                        raise self._malformed(data)
                    if dtype == "text_delta":
                        block["text"].append(delta.get("text", ""))
                        produced = True
                        yield StreamText(text=delta.get("text", ""))
                    elif dtype == "input_json_delta":
                        block["json"].append(delta.get("partial_json", ""))
                    elif dtype == "thinking_delta":
                        block["text"].append(delta.get("thinking", ""))
                        produced = True
                        yield StreamThinking(text=delta.get("thinking", ""))
                    elif dtype == "signature_delta":
                        block["signature"] = (block.get("signature") or "") + delta.get("signature", "")
                elif kind == "content_block_start":
                    cb = ev.get("content_block") or {}
                    block = {"type": cb.get("type"), "text": [], "json": [], "id": cb.get("id"),
                             "name": cb.get("name"), "signature": cb.get("signature") or cb.get("data")}
                    if cb.get("text"):
                        block["text"].append(cb["text"])
                    if cb.get("thinking"):
                        block["text"].append(cb["thinking"])
                    blocks[ev.get("index", len(blocks))] = block
                    if block["type"] == "tool_use":
                        produced = True
                        yield StreamToolCall(id=block["id"] or "", name=block["name"] or "")
                elif kind == "message_start":
                    usage.update((ev.get("message") or {}).get("usage") or {})
                elif kind == "message_delta":
                    stop = (ev.get("delta") or {}).get("stop_reason") or stop
                    usage.update({k: v for k, v in (ev.get("usage") or {}).items() if v is not None})
                elif kind == "message_stop":
                    finished = True
                elif kind == "error":
                    raise error_from_stream(ev, self.id)
                elif kind is None:
                    raise self._malformed(data)
        except httpx.HTTPError as exc:
            raise self._cut(exc, produced, "message_stop") from exc
        if not finished:
            raise self._truncated("a message_stop event")
        message = _message(self.id, request.model, blocks, _usage(usage), stop or "end_turn")
        yield StreamDone(message=message, usage=message.usage, stop_reason=message.stop_reason or "end_turn")


def _usage(raw: dict[str, Any]) -> Usage:
    read = raw.get("cache_read_input_tokens") or 0
    write = raw.get("cache_creation_input_tokens") or 0
    # input_tokens here counts the whole prompt (cached parts included), as for OpenAI, so the
    # runner's context estimate is right whichever provider answered.
    return Usage(
        input_tokens=(raw.get("input_tokens") or 0) + read + write,
        output_tokens=raw.get("output_tokens") or 0,
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def _message(provider: str, model: str, blocks: dict[int, dict[str, Any]], usage: Usage, stop: str) -> AssistantMessage:
    content: list[Any] = []
    for index in sorted(blocks):
        b = blocks[index]
        if b["type"] == "text":
            content.append(TextBlock(text="".join(b["text"])))
        elif b["type"] == "thinking":
            content.append(ThinkingBlock(text="".join(b["text"]), signature=b.get("signature")))
        elif b["type"] == "redacted_thinking":
            content.append(ThinkingBlock(text="", signature=b.get("signature"), redacted=True))
        elif b["type"] == "tool_use":
            content.append(tool_call_block(b["id"], b["name"], "".join(b["json"])))
    return AssistantMessage(content=content, provider=provider, model=model, usage=usage, stop_reason=stop)
