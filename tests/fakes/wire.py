"""The two wire formats the fake model server speaks, rendered byte for byte.

The script vocabulary (:class:`Reply`, :class:`ToolCall`, :class:`Fault`) and the renderers:
OpenAI ``chat.completion.chunk`` events ending in ``data: [DONE]`` (with ``include_usage``),
Anthropic named events ``message_start`` … ``message_stop`` with a ``ping``, the whole
``chat.completion`` / ``message`` objects a request without ``stream`` gets, and each service's
error bodies. :mod:`tests.fakes.model_server` serves them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["REASONS", "Fault", "Reply", "Step", "ToolCall", "anthropic_events", "anthropic_message", "error_body",
           "error_json", "loop_script", "openai_completion", "openai_events"]


@dataclass
class ToolCall:
    name: str
    arguments: str = "{}"  # JSON text, streamed in ``fragments`` pieces
    id: str | None = None
    fragments: int = 4


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    thinking: str = ""
    signature: str = "sig-EqQBCkYIARgCIkA"
    redacted: str | None = None  # Anthropic redacted_thinking data
    text_chunks: int = 4  # number of text deltas
    input_tokens: int = 25
    output_tokens: int = 12
    cache_read: int = 0
    cache_write: int = 0
    stop_reason: str | None = None  # default from content
    framing: str = "chunked"  # or "close": no chunked framing, the body ends at close


@dataclass
class Fault:
    kind: str
    code: int = 0  # the HTTP status of a ``status`` fault
    retry_after: str | None = None
    body: str | None = None
    text: str = ""
    seconds: float = 0.0
    data: bytes = b""
    framing: str = "chunked"

    @staticmethod
    def status(code: int, *, retry_after: float | str | None = None, body: str | None = None) -> Fault:
        ra = None if retry_after is None else str(retry_after)
        return Fault("status", code=code, retry_after=ra, body=body)

    @staticmethod
    def reset() -> Fault:
        return Fault("reset")

    @staticmethod
    def cut(text: str = "partial answer", framing: str = "chunked") -> Fault:
        return Fault("cut", text=text, framing=framing)

    @staticmethod
    def malformed(after_text: str = "") -> Fault:
        return Fault("malformed", text=after_text)

    @staticmethod
    def stall(seconds: float) -> Fault:
        return Fault("stall", seconds=seconds)

    @staticmethod
    def raw(data: bytes) -> Fault:
        return Fault("raw", data=data)


Step = Reply | Fault


def loop_script(steps: int | None = None, *, tool: str = "lookup", text_deltas: int = 20) -> Callable[[dict], Step]:
    """The benchmark's model: ``steps`` tool calls (arguments in 4 fragments), then text.

    Stateless: the step is the number of tool results already in the request, so any client
    (orkas_nb, another framework, a bare loop) gets the same conversation. With ``steps=None``
    the count comes from the model name: ``loop-50`` plays 50 tool steps.
    """
    def script(body: dict) -> Step:
        wanted = steps
        if wanted is None:
            name = str(body.get("model", ""))
            wanted = int(name.rsplit("-", 1)[1]) if name.startswith("loop-") else 0
        messages = body.get("messages", [])
        done = sum(1 for m in messages if m.get("role") == "tool")
        done += sum(1 for m in messages if m.get("role") == "user" and isinstance(m.get("content"), list)
                    and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"]))
        if done < wanted:
            return Reply(tool_calls=[ToolCall(tool, json.dumps({"path": f"notes/file_{done}.txt"}),
                                              id=f"call_step{done:04d}")])
        words = " ".join(f"word{i}" for i in range(text_deltas))
        return Reply(text=words, text_chunks=text_deltas)
    return script


# -- error bodies as each service sends them -----------------------------------------------------

_OPENAI_ERRORS = {
    400: ("invalid_request_error", "context_length_exceeded", "messages",
          ("This model's maximum context length is 128000 tokens. However, your messages resulted "
           "in 130517 tokens. Please reduce the length of the messages.")),
    401: ("invalid_request_error", "invalid_api_key", None,
          "Incorrect API key provided: sk-test***. You can find your API key at the dashboard."),
    403: ("invalid_request_error", "unsupported_country_region_territory", None,
          "Country, region, or territory not supported"),
    404: ("invalid_request_error", "model_not_found", None, "The model `nope` does not exist"),
    429: ("requests", "rate_limit_exceeded", None,
          ("Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): "
           "Limit 3, Used 3, Requested 1. Please try again in 20s.")),
    500: ("server_error", None, None,
          "The server had an error while processing your request. Sorry about that!"),
    503: ("server_error", None, None, "The engine is currently overloaded, please try again later."),
}
_ANTHROPIC_ERRORS = {
    400: ("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "model: nope"),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}
REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable",
            529: "Overloaded"}


def error_body(wire: str, status: int) -> bytes:
    if wire == "anthropic":
        etype, message = _ANTHROPIC_ERRORS.get(status, ("api_error", f"status {status}"))
        return json.dumps({"type": "error", "error": {"type": etype, "message": message},
                           "request_id": "req_011CTest"}).encode()
    etype, code, param, message = _OPENAI_ERRORS.get(status, ("server_error", None, None, f"status {status}"))
    return json.dumps({"error": {"message": message, "type": etype, "param": param, "code": code}},
                      indent=4).encode() + b"\n"


def error_json(wire: str, message: str, *, etype: str = "invalid_request_error", param: str | None = None,
               code: str | None = None) -> bytes:
    """An error body with its own message, in the wire's shape (a rejected request, a 401, a 404)."""
    if wire == "anthropic":
        return json.dumps({"type": "error", "error": {"type": etype, "message": message},
                           "request_id": "req_011CTest"}).encode()
    return json.dumps({"error": {"message": message, "type": etype, "param": param, "code": code}},
                      indent=4).encode() + b"\n"


# -- stream bodies --------------------------------------------------------------------------------

def _split(text: str, n: int) -> list[str]:
    if not text:
        return []
    n = max(1, min(n, len(text)))
    size = -(-len(text) // n)
    return [text[i:i + size] for i in range(0, len(text), size)]


def openai_events(reply: Reply, model: str, counter: int) -> list[bytes]:
    """The ``data:`` events of one Chat Completions stream (with ``include_usage``)."""
    base = {"id": f"chatcmpl-AZ{counter:06d}", "object": "chat.completion.chunk",
            "created": 1_764_000_000 + counter, "model": model, "system_fingerprint": "fp_0fake0"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                     "finish_reason": finish}], "usage": None}
        return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    for piece in _split(reply.text, reply.text_chunks):
        out.append(chunk({"content": piece}))
    for i, call in enumerate(reply.tool_calls):
        cid = call.id or f"call_{counter:04d}{i:02d}xYz"
        out.append(chunk({"tool_calls": [{"index": i, "id": cid, "type": "function",
                                          "function": {"name": call.name, "arguments": ""}}]}))
        for piece in _split(call.arguments, call.fragments):
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    finish = reply.stop_reason or ("tool_calls" if reply.tool_calls else "stop")
    out.append(chunk({}, finish))
    usage = {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
             "total_tokens": reply.input_tokens + reply.output_tokens,
             "prompt_tokens_details": {"cached_tokens": reply.cache_read, "audio_tokens": 0,
                                       **({"cache_write_tokens": reply.cache_write}
                                          if reply.cache_write else {})},
             "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                           "accepted_prediction_tokens": 0,
                                           "rejected_prediction_tokens": 0}}
    out.append(b"data: " + json.dumps({**base, "choices": [], "usage": usage},
                                      separators=(",", ":")).encode() + b"\n\n")
    out.append(b"data: [DONE]\n\n")
    return out


def _named(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: ".encode() + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


def anthropic_events(reply: Reply, model: str, counter: int) -> list[bytes]:
    """The named events of one Messages stream, ``message_start`` … ``message_stop``."""
    usage = {"input_tokens": reply.input_tokens, "cache_creation_input_tokens": reply.cache_write,
             "cache_read_input_tokens": reply.cache_read, "output_tokens": 1,
             "service_tier": "standard"}
    out = [_named("message_start", {"type": "message_start", "message": {
        "id": f"msg_01Fake{counter:06d}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        out.append(_named("content_block_start", {"type": "content_block_start", "index": index,
                                                  "content_block": start}))
        if index == 0:
            out.append(b'event: ping\ndata: {"type": "ping"}\n\n')
        for d in deltas:
            out.append(_named("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}))
        out.append(_named("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if reply.thinking:
        block({"type": "thinking", "thinking": "", "signature": ""},
              [{"type": "thinking_delta", "thinking": p} for p in _split(reply.thinking, 2)]
              + [{"type": "signature_delta", "signature": reply.signature}])
    if reply.redacted:
        block({"type": "redacted_thinking", "data": reply.redacted}, [])
    if reply.text:
        block({"type": "text", "text": ""},
              [{"type": "text_delta", "text": p} for p in _split(reply.text, reply.text_chunks)])
    for i, call in enumerate(reply.tool_calls):
        cid = call.id or f"toolu_01Fake{counter:04d}{i:02d}"
        block({"type": "tool_use", "id": cid, "name": call.name, "input": {}},
              [{"type": "input_json_delta", "partial_json": ""}]
              + [{"type": "input_json_delta", "partial_json": p} for p in _split(call.arguments, call.fragments)])
    stop = reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
    out.append(_named("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": stop, "stop_sequence": None},
                                        "usage": {"output_tokens": reply.output_tokens}}))
    out.append(_named("message_stop", {"type": "message_stop"}))
    return out


# -- whole bodies, for requests that did not ask for a stream ------------------------------------

def _openai_usage(reply: Reply) -> dict[str, Any]:
    return {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cache_read, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}


def openai_completion(reply: Reply, model: str, counter: int) -> bytes:
    """One ``chat.completion`` object, as the API answers a request without ``stream: true``."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None,
                               "annotations": []}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call.id or f"call_{counter:04d}{i:02d}xYz", "type": "function",
             "function": {"name": call.name, "arguments": call.arguments}}
            for i, call in enumerate(reply.tool_calls)]
    finish = reply.stop_reason or ("tool_calls" if reply.tool_calls else "stop")
    body = {"id": f"chatcmpl-AZ{counter:06d}", "object": "chat.completion", "created": 1_764_000_000 + counter,
            "model": model, "choices": [{"index": 0, "message": message, "logprobs": None,
                                         "finish_reason": finish}],
            "usage": _openai_usage(reply), "service_tier": "default", "system_fingerprint": "fp_0fake0"}
    return json.dumps(body, indent=2).encode()


def anthropic_message(reply: Reply, model: str, counter: int) -> bytes:
    """One ``message`` object, as the API answers a request without ``stream: true``."""
    content: list[dict[str, Any]] = []
    if reply.thinking:
        content.append({"type": "thinking", "thinking": reply.thinking, "signature": reply.signature})
    if reply.redacted:
        content.append({"type": "redacted_thinking", "data": reply.redacted})
    if reply.text:
        content.append({"type": "text", "text": reply.text, "citations": None})
    for i, call in enumerate(reply.tool_calls):
        content.append({"type": "tool_use", "id": call.id or f"toolu_01Fake{counter:04d}{i:02d}",
                        "name": call.name, "input": json.loads(call.arguments or "{}")})
    body = {"id": f"msg_01Fake{counter:06d}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn"),
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "cache_creation_input_tokens": reply.cache_write,
                      "cache_read_input_tokens": reply.cache_read, "output_tokens": reply.output_tokens,
                      "service_tier": "standard"}}
    return json.dumps(body).encode()
