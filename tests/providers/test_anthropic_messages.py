"""Anthropic Messages over real loopback HTTP: thinking with signatures and the degrade rule,
tool_use with streamed input, cache usage and breakpoints, and the service's own errors."""

from __future__ import annotations

import json

import pytest

from orkas_nb.core.errors import AccountError, ContextOverflowError, StreamTruncatedError
from orkas_nb.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    user_message,
)
from orkas_nb.providers.anthropic_messages import AnthropicProvider
from orkas_nb.providers.auth import RefreshingToken, Token
from orkas_nb.providers.base import ModelRequest, StreamText, StreamThinking, StreamToolCall
from tests.fakes.model_server import Fault, Reply, ToolCall
from tests.providers.helpers import collect, done, failover, key, request, retries

MESSAGES = "/v1/messages"
MODEL = "claude-sonnet-4-5"


def provider(server, **kw) -> AnthropicProvider:
    kw.setdefault("token_source", key("ak-test"))
    return AnthropicProvider(base_url=server.anthropic_url, **kw)


async def test_streams_thinking_text_and_tool_use_with_cache_usage(model_server):
    model_server.push(Reply(thinking="Consider it.", signature="sig-1", text="Looking now.",
                            tool_calls=[ToolCall("lookup", json.dumps({"path": "a.txt"}), fragments=5)],
                            input_tokens=10, cache_read=900, cache_write=40, output_tokens=31))
    events = await collect(provider(model_server), request(MODEL))
    assert "".join(e.text for e in events if isinstance(e, StreamThinking)) == "Consider it."
    assert "".join(e.text for e in events if isinstance(e, StreamText)) == "Looking now."
    assert [e.name for e in events if isinstance(e, StreamToolCall)] == ["lookup"]
    final = done(events)
    thinking, _, call = final.message.content
    assert thinking == ThinkingBlock(text="Consider it.", signature="sig-1")
    assert call.arguments == {"path": "a.txt"} and final.stop_reason == "tool_use"
    assert final.usage.cache_read_tokens == 900 and final.usage.cache_write_tokens == 40
    assert final.usage.input_tokens == 950 and final.usage.output_tokens == 31
    sent = model_server.posts()[0]
    assert sent.headers["x-api-key"] == "ak-test" and sent.headers["anthropic-version"] == "2023-06-01"
    body = sent.json
    assert body["max_tokens"] == 64000  # no cap: the catalog's output limit, required by the API
    assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def _history(provider_id: str, model: str) -> list:
    calls = [ToolCallBlock(id="toolu_1", name="lookup", arguments={"path": "a"}),
             ToolCallBlock(id="toolu_2", name="lookup", arguments={"path": "b"})]
    return [
        user_message("look", images=[ImageBlock(media_type="image/png", data="iVBO")]),
        AssistantMessage(content=[ThinkingBlock(text="hmm", signature="sig-1"),
                                  ThinkingBlock(signature="REDACTED", redacted=True),
                                  TextBlock(text="Sure."), *calls], provider=provider_id, model=model),
        ToolResultMessage(tool_call_id="toolu_1", name="lookup",
                          content=[TextBlock(text="a file"), ImageBlock(data="iVBO")]),
        ToolResultMessage(tool_call_id="toolu_2", name="lookup", content=[TextBlock(text="no")], status="error"),
        user_message("also this"),
    ]


async def test_thinking_goes_back_verbatim_to_the_same_model(model_server):
    model_server.push(Reply(text="ok"))
    await collect(provider(model_server), ModelRequest(model=MODEL, messages=_history("anthropic", MODEL)))
    messages = model_server.posts()[0].json["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"][:2] == [
        {"type": "thinking", "thinking": "hmm", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "REDACTED"},
    ]
    # Tool results and the next user text share one turn, results first (the API's rule).
    assert [b["type"] for b in messages[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert messages[2]["content"][0]["content"][1]["type"] == "image"
    assert messages[2]["content"][1]["is_error"] is True
    assert messages[0]["content"][1]["source"] == {"type": "base64", "media_type": "image/png", "data": "iVBO"}


@pytest.mark.parametrize("producer", [("anthropic", "claude-opus-4-1"), ("openai", MODEL)])
async def test_thinking_from_another_model_is_dropped(model_server, producer):
    model_server.push(Reply(text="ok"))
    await collect(provider(model_server), ModelRequest(model=MODEL, messages=_history(*producer)))
    assistant = model_server.posts()[0].json["messages"][1]
    assert [b["type"] for b in assistant["content"]] == ["text", "tool_use", "tool_use"]
    assert "sig-1" not in model_server.posts()[0].body.decode()


async def test_redacted_thinking_is_received(model_server):
    model_server.push(Reply(redacted="EmwKAhgB", text="fine"))
    final = done(await collect(provider(model_server), request(MODEL)))
    assert final.message.content[0] == ThinkingBlock(signature="EmwKAhgB", redacted=True)


async def test_overflow_and_auth_errors_in_the_services_shape(model_server):
    model_server.push(Fault.status(400), Fault.status(401))
    with pytest.raises(ContextOverflowError, match="prompt is too long"):
        await collect(failover(provider(model_server), model=MODEL), request(MODEL))
    with pytest.raises(AccountError, match="invalid x-api-key"):
        await collect(failover(provider(model_server), model=MODEL), request(MODEL))
    assert model_server.count(MESSAGES) == 2


@pytest.mark.parametrize("fault", [Fault.status(529), Fault.status(500), Fault.status(429), Fault.reset(),
                                   Fault.malformed()],
                         ids=["529-overloaded", "500", "429-no-retry-after", "reset", "malformed"])
async def test_transient_faults_are_retried(model_server, fault):
    model_server.push(fault, Reply(text="back"))
    events = await collect(failover(provider(model_server), model=MODEL), request(MODEL))
    assert len(retries(events)) == 1 and done(events).message.text == "back"
    assert model_server.count(MESSAGES) == 2


async def test_overloaded_error_event_inside_the_stream_is_retried(model_server):
    model_server.push(Fault.raw(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        b'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3}}}\n\n'
        b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'),
        Reply(text="second try"))
    events = await collect(failover(provider(model_server), model=MODEL), request(MODEL))
    assert retries(events)[0].error_kind == "TransientError"
    assert done(events).message.text == "second try"
    assert model_server.count(MESSAGES) == 2


@pytest.mark.parametrize("framing", ["chunked", "close"])
async def test_cut_after_text_is_truncation_without_retry(model_server, framing):
    model_server.push(Fault.cut("partial", framing=framing), Reply(text="never"))
    with pytest.raises(StreamTruncatedError, match="message_stop"):
        await collect(failover(provider(model_server), model=MODEL), request(MODEL))
    assert model_server.count(MESSAGES) == 1


async def test_oauth_token_is_sent_as_bearer_and_refreshed(model_server):
    model_server.api_keys = {"t2"}
    tokens = iter([Token(value="t1"), Token(value="t2")])

    async def fetch() -> Token:
        return next(tokens)

    model_server.push(Reply(text="ok"))
    events = await collect(provider(model_server, token_source=RefreshingToken(fetch)), request(MODEL))
    assert done(events).message.text == "ok"
    assert [r.headers.get("authorization") for r in model_server.posts()] == ["Bearer t1", "Bearer t2"]
    assert "x-api-key" not in model_server.posts()[1].headers


async def test_validate_auth(model_server):
    model_server.api_keys = {"ak-test"}
    await provider(model_server).validate_auth()
    with pytest.raises(AccountError):
        await provider(model_server, token_source=key("wrong")).validate_auth()
    assert model_server.count("/v1/models") == 2


async def test_explicit_max_tokens_and_unknown_model_fallback(model_server):
    model_server.push(Reply(text="a"), Reply(text="b"))
    p = provider(model_server)
    await collect(p, request(MODEL, max_tokens=123))
    await collect(p, request("local-model-x"))
    assert [r.json["max_tokens"] for r in model_server.posts()] == [123, 8192]


async def test_whitespace_only_text_is_not_sent_back(model_server):
    # Models often stream "\n\n" before a tool call; the API refuses a text block without
    # non-whitespace text, so sending that turn back verbatim would fail the next request.
    model_server.push(Reply(text="ok"))
    history = [user_message("look"),
               AssistantMessage(content=[TextBlock(text="\n\n"),
                                         ToolCallBlock(id="toolu_1", name="lookup", arguments={"path": "a"})],
                                provider="anthropic", model=MODEL),
               ToolResultMessage(tool_call_id="toolu_1", name="lookup", content=[TextBlock(text=" ")]),
               user_message("  ")]
    events = await collect(provider(model_server), ModelRequest(model=MODEL, messages=history))
    assert done(events).message.text == "ok"
    messages = model_server.posts()[0].json["messages"]
    assert [b["type"] for b in messages[1]["content"]] == ["tool_use"]
    assert [b["type"] for b in messages[2]["content"]] == ["tool_result", "text"]
    assert "content" not in messages[2]["content"][0]
