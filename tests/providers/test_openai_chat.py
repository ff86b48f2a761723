"""OpenAI Chat Completions over real loopback HTTP: streaming, tool calls, usage, encoding,
and every fault of SPEC §6 ending as the table says, with the requests the server saw counted."""

from __future__ import annotations

import json

import httpx
import pytest

from orkas_nb.core.errors import (
    AccountError,
    ContextOverflowError,
    RateLimitError,
    RequestError,
    StreamTruncatedError,
    TransientError,
)
from orkas_nb.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    user_message,
)
from orkas_nb.providers.auth import RefreshingToken, Token
from orkas_nb.providers.base import ModelRequest, StreamText, StreamThinking, StreamToolCall
from orkas_nb.providers.openai_chat import OpenAIChatProvider, cache_key, encode_message
from tests.fakes.model_server import Fault, Reply, ToolCall
from tests.providers.helpers import collect, done, failover, key, request, retries

CHAT = "/v1/chat/completions"


def provider(server, **kw) -> OpenAIChatProvider:
    kw.setdefault("token_source", key())
    return OpenAIChatProvider(base_url=server.openai_url, **kw)


async def test_streams_text_then_done_with_usage(model_server):
    model_server.push(Reply(text="Hello, world", text_chunks=3, input_tokens=50, output_tokens=4, cache_read=32))
    events = await collect(provider(model_server), request(session_id="nb-1"))
    assert [e.text for e in events if isinstance(e, StreamText)] == ["Hell", "o, w", "orld"]
    final = done(events)
    assert final.message.text == "Hello, world"
    assert final.message.provider == "openai" and final.message.model == "gpt-4o-mini"
    assert final.usage.input_tokens == 50 and final.usage.cache_read_tokens == 32
    assert final.usage.cache_write_tokens == 0  # not reported by models before GPT-5.6
    assert final.stop_reason == "end_turn"
    sent = model_server.posts()[0]
    assert sent.headers["authorization"] == "Bearer sk-test-key"
    body = sent.json
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["prompt_cache_key"] == "nb-1"
    assert body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert body["tools"][0]["function"]["name"] == "lookup"
    assert "max_completion_tokens" not in body  # no cap: the model's own maximum


async def test_cache_writes_are_read_from_the_usage_details(model_server):
    # GPT-5.6 and later report (and bill) cache writes beside the cached reads.
    model_server.push(Reply(text="ok", input_tokens=5_000, output_tokens=2, cache_read=1_000,
                            cache_write=3_000))
    final = done(await collect(provider(model_server), request()))
    assert (final.usage.cache_read_tokens, final.usage.cache_write_tokens) == (1_000, 3_000)



async def test_several_tool_calls_with_fragmented_arguments(model_server):
    model_server.push(Reply(text="Two looks.", tool_calls=[
        ToolCall("lookup", json.dumps({"path": "a.txt"}), fragments=4),
        ToolCall("lookup", json.dumps({"path": "b.txt", "deep": True}), fragments=6),
        ToolCall("lookup", "{not json", fragments=2)]))
    events = await collect(provider(model_server), request())
    starts = [e for e in events if isinstance(e, StreamToolCall)]
    assert [s.name for s in starts] == ["lookup"] * 3
    message = done(events).message
    calls = message.tool_calls
    assert [c.arguments for c in calls[:2]] == [{"path": "a.txt"}, {"path": "b.txt", "deep": True}]
    assert calls[2].raw_arguments == "{not json" and calls[2].arguments == {}
    assert [c.id for c in calls] == [s.id for s in starts]
    assert done(events).stop_reason == "tool_use"
    assert model_server.posts()[0].json["parallel_tool_calls"] is True


async def test_history_encoding_images_tools_and_thinking_dropped(model_server):
    model_server.push(Reply(text="ok"))
    call = ToolCallBlock(id="call_1", name="lookup", arguments={"path": "a"})
    messages = [
        user_message("look", images=[ImageBlock(media_type="image/jpeg", data="AAAA")]),
        AssistantMessage(content=[ThinkingBlock(text="secret", signature="s"), TextBlock(text="Sure."), call],
                         provider="openai", model="gpt-4o-mini"),
        ToolResultMessage(tool_call_id="call_1", name="lookup", content=[TextBlock(text="a file")]),
    ]
    await collect(provider(model_server), ModelRequest(model="gpt-4o-mini", messages=messages, max_tokens=99))
    body = model_server.posts()[0].json
    assert body["max_completion_tokens"] == 99
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                     {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}}]},
        {"role": "assistant", "content": "Sure.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"path":"a"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a file"},
    ]
    assert "secret" not in model_server.posts()[0].body.decode()


async def test_reasoning_content_arrives_as_thinking(model_server):
    model_server.push(Fault.raw(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        b'data: {"choices":[{"index":0,"delta":{"reasoning_content":"Pondering."},"finish_reason":null}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":null}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        b"data: [DONE]\n\n"))
    events = await collect(provider(model_server), request())
    assert [e.text for e in events if isinstance(e, StreamThinking)] == ["Pondering."]
    assert [type(b).__name__ for b in done(events).message.content] == ["ThinkingBlock", "TextBlock"]


async def test_wire_encoding_is_cached_per_message_and_reused(model_server):
    model_server.push(Reply(text="a"), Reply(text="b"))
    p = provider(model_server)
    first = user_message("hello")
    await collect(p, ModelRequest(model="m", messages=[first]))
    assert first.wire_cache["openai.chat"] == '{"role":"user","content":"hello"}'
    # Poison the cache. The same provider extends its previous request's joined history
    # (it does not even look the message up again); a new provider splices the cached text.
    first.wire_cache["openai.chat"] = '{"role":"user","content":"FROM-CACHE"}'
    await collect(p, ModelRequest(model="m", messages=[first, user_message("again")]))
    assert model_server.posts()[1].json["messages"][0]["content"] == "hello"
    model_server.push(Reply(text="c"))
    await collect(provider(model_server), ModelRequest(model="m", messages=[first]))
    assert model_server.posts()[2].json["messages"][0]["content"] == "FROM-CACHE"
    assert encode_message(first) == '{"role":"user","content":"FROM-CACHE"}'


async def test_history_that_is_not_an_extension_is_rebuilt(model_server):
    model_server.push(Reply(text="a"), Reply(text="b"))
    p = provider(model_server)
    a, b, c = user_message("a"), user_message("b"), user_message("c")
    await collect(p, ModelRequest(model="m", messages=[a, b]))
    await collect(p, ModelRequest(model="m", messages=[a, c]))  # e.g. after compaction
    assert [m["content"] for m in model_server.posts()[1].json["messages"]] == ["a", "c"]


def test_cache_key_is_hashed_when_long_and_stable():
    assert cache_key("short") == "short"
    long = "workspace/" * 20
    assert len(cache_key(long)) == 64 and cache_key(long) == cache_key(long) != cache_key(long + "x")


# -- faults: each ends as SPEC §6 says, with the requests counted -------------------------------

async def test_429_with_retry_after_is_honoured_then_succeeds(model_server):
    model_server.push(Fault.status(429, retry_after="0.2"), Reply(text="ok"))
    events = await collect(failover(provider(model_server)), request())
    [notice] = retries(events)
    assert notice.delay_s == 0.2 and notice.error_kind == "RateLimitError"
    assert done(events).message.text == "ok"
    assert model_server.count(CHAT) == 2


async def test_429_without_retry_after_backs_off(model_server):
    model_server.push(Fault.status(429), Fault.status(429), Reply(text="ok"))
    events = await collect(failover(provider(model_server)), request())
    assert [r.delay_s for r in retries(events)] == [0.01, 0.02]  # base·2^n (jitter pinned to 1)
    assert model_server.count(CHAT) == 3


async def test_401_is_not_retried(model_server):
    model_server.push(Fault.status(401), Reply(text="never"))
    with pytest.raises(AccountError, match="Incorrect API key"):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 1


async def test_400_context_overflow_is_raised_for_compaction(model_server):
    model_server.push(Fault.status(400))
    with pytest.raises(ContextOverflowError) as info:
        await collect(failover(provider(model_server)), request())
    assert info.value.action == "compact" and info.value.status == 400
    assert model_server.count(CHAT) == 1


async def test_other_400_is_surfaced_at_once(model_server):
    model_server.push(Fault.status(400, body=json.dumps({"error": {
        "message": "Invalid value for 'temperature'", "type": "invalid_request_error",
        "param": "temperature", "code": "invalid_value"}})))
    with pytest.raises(RequestError, match="temperature"):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 1


async def test_insufficient_quota_429_is_an_account_error(model_server):
    model_server.push(Fault.status(429, body=json.dumps({"error": {
        "message": "You exceeded your current quota", "type": "insufficient_quota",
        "param": None, "code": "insufficient_quota"}})))
    with pytest.raises(AccountError):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 1


@pytest.mark.parametrize("fault", [Fault.status(500), Fault.status(503), Fault.reset(), Fault.malformed()],
                         ids=["500", "503-overloaded", "reset-before-first-byte", "malformed-sse"])
async def test_transient_faults_before_content_are_retried(model_server, fault):
    model_server.push(fault, Reply(text="recovered"))
    events = await collect(failover(provider(model_server)), request())
    assert len(retries(events)) == 1 and retries(events)[0].attempt == 1
    assert done(events).message.text == "recovered"
    assert model_server.count(CHAT) == 2


async def test_retries_are_bounded(model_server):
    model_server.push(*[Fault.status(500)] * 5)
    with pytest.raises(TransientError, match="HTTP 500"):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 4  # 1 + max_retries (3)


@pytest.mark.parametrize("framing", ["chunked", "close"])
async def test_disconnect_mid_stream_after_text_is_an_error_without_retry(model_server, framing):
    model_server.push(Fault.cut("partial answer", framing=framing), Reply(text="never"))
    seen = []
    with pytest.raises(StreamTruncatedError):
        async for event in failover(provider(model_server)).stream(request()):
            seen.append(event)
    assert [e.text for e in seen if isinstance(e, StreamText)] == ["partial"]
    assert not retries(seen)
    assert model_server.count(CHAT) == 1


async def test_malformed_event_after_text_is_surfaced(model_server):
    model_server.push(Fault.malformed(after_text="some text"), Reply(text="never"))
    with pytest.raises(TransientError, match="malformed"):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 1


async def test_stream_without_done_is_truncated_even_on_clean_close(model_server):
    model_server.push(Fault.raw(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'))
    with pytest.raises(StreamTruncatedError, match="DONE"):
        await collect(provider(model_server), request())


async def test_stall_past_read_timeout_is_retried(model_server):
    model_server.push(Fault.stall(1.5), Reply(text="ok"))
    timeout = httpx.Timeout(5.0, read=0.3)
    events = await collect(failover(provider(model_server, timeout=timeout)), request())
    assert "timed out (ReadTimeout)" in retries(events)[0].reason
    assert done(events).message.text == "ok"
    assert model_server.count(CHAT) == 2


async def test_connection_refused_is_transient():
    p = OpenAIChatProvider(base_url="http://127.0.0.1:9/v1", token_source=key())
    with pytest.raises(TransientError, match="cannot connect"):
        await collect(p, request())


async def test_non_stream_response_is_an_error_and_not_retried(model_server):
    model_server.push(Fault.raw(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 5\r\n\r\nhello"),
                      Reply(text="never reached"))
    with pytest.raises(RequestError, match="expected an event stream, got text/html with HTTP 200: hello"):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 1


async def test_error_object_sent_with_200_keeps_its_meaning(model_server):
    body = b'{"error": {"type": "invalid_request_error", "message": "model gpt-x does not exist"}}'
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body)
    model_server.push(Fault.raw(head + body), Reply(text="never reached"))
    with pytest.raises(RequestError, match="model gpt-x does not exist"):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 1


# -- rotation, tokens, auth ------------------------------------------------------------------

async def test_rotation_on_account_error_with_cooldown(model_server):
    model_server.api_keys = {"good"}
    bad, good = provider(model_server, token_source=key("bad")), provider(model_server, token_source=key("good"))
    model_server.push(Reply(text="from good"), Reply(text="again good"))
    wrapped = failover(bad, good)
    events = await collect(wrapped, request())
    [notice] = retries(events)
    assert notice.rotated_to == "openai#1" and notice.error_kind == "AccountError"
    assert done(events).message.text == "from good"
    # The bad key rests for 10 minutes: the next request goes straight to the good one.
    assert wrapped.cooldowns.remaining("openai#0") > 590
    events = await collect(wrapped, request())
    assert not retries(events)
    keys = [r.headers["authorization"] for r in model_server.posts()]
    assert keys == ["Bearer bad", "Bearer good", "Bearer good"]


async def test_rate_limit_rotates_to_the_next_candidate(model_server):
    model_server.push(Fault.status(429, retry_after="30"), Reply(text="second"))
    wrapped = failover(provider(model_server, token_source=key("a")), provider(model_server, token_source=key("b")))
    events = await collect(wrapped, request())
    assert retries(events)[0].rotated_to == "openai#1" and retries(events)[0].delay_s == 0
    assert wrapped.cooldowns.remaining("openai#0") > 29
    assert model_server.count(CHAT) == 2


async def test_refreshing_token_source_recovers_from_401(model_server):
    model_server.api_keys = {"fresh"}
    tokens = iter([Token(value="stale"), Token(value="fresh")])

    async def fetch() -> Token:
        return next(tokens)

    source = RefreshingToken(fetch)
    model_server.push(Reply(text="ok"))
    events = await collect(provider(model_server, token_source=source), request())
    assert done(events).message.text == "ok" and source.fetches == 2
    assert [r.headers["authorization"] for r in model_server.posts()] == ["Bearer stale", "Bearer fresh"]


async def test_validate_auth(model_server):
    model_server.api_keys = {"good"}
    await provider(model_server, token_source=key("good")).validate_auth()
    with pytest.raises(AccountError):
        await provider(model_server, token_source=key("bad")).validate_auth()
    assert model_server.count("/v1/models") == 2


async def test_no_rotation_after_first_content_event(model_server):
    model_server.push(Fault.cut("half"))
    wrapped = failover(provider(model_server, token_source=key("a")), provider(model_server, token_source=key("b")))
    with pytest.raises(StreamTruncatedError):
        await collect(wrapped, request())
    assert model_server.count(CHAT) == 1


async def test_rate_limit_asking_too_long_is_surfaced(model_server):
    model_server.push(Fault.status(429, retry_after="3600"))
    with pytest.raises(RateLimitError):
        await collect(failover(provider(model_server)), request())
    assert model_server.count(CHAT) == 1
