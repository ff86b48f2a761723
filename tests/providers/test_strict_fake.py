"""The loopback server refuses what the real services refuse, so a provider bug fails a test.

Each case is a request the real API answers with an error (a dropped ``stream``, an orphan tool
result, a wrong key, an unknown field, a wrong path), sent through the real providers and the
retry layer, and ends as the error the runner acts on; a compatible-mode server takes what
llama.cpp or vLLM take.
"""

from __future__ import annotations

import json

import httpx
import pytest

from orkas_nb.core.errors import AccountError, RequestError
from orkas_nb.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, user_message
from orkas_nb.providers.anthropic_messages import AnthropicProvider
from orkas_nb.providers.auth import StaticKey
from orkas_nb.providers.base import ModelRequest, ToolSpec
from orkas_nb.providers.openai_chat import OpenAIChatProvider
from orkas_nb.providers.registry import resolve_model
from tests.fakes.checks import Rejected, check_anthropic, check_openai
from tests.fakes.model_server import ModelServer, Reply
from tests.providers.helpers import LOOKUP, collect, done, failover, key, request

CLAUDE = "claude-sonnet-4-5"


def openai(server, **kw) -> OpenAIChatProvider:
    kw.setdefault("token_source", key())
    return OpenAIChatProvider(base_url=server.openai_url, **kw)


def anthropic(server, **kw) -> AnthropicProvider:
    kw.setdefault("token_source", key("ak-test"))
    return AnthropicProvider(base_url=server.anthropic_url, **kw)


def _without_stream(provider, monkeypatch) -> None:
    """The provider's body as it would be had ``"stream": True`` been deleted from it."""
    original = provider.body

    def body(req):
        data = json.loads(original(req))
        del data["stream"]
        return json.dumps(data).encode()

    monkeypatch.setattr(provider, "body", body)


# -- a provider that forgot to ask for a stream ----------------------------------------------------

async def test_anthropic_without_stream_gets_json_and_fails(model_server, monkeypatch):
    p = anthropic(model_server)
    _without_stream(p, monkeypatch)
    model_server.push(Reply(text="whole"))
    with pytest.raises(RequestError, match="expected an event stream, got application/json"):
        await collect(failover(p), request(CLAUDE))
    assert model_server.posts()[0].json.get("stream") is None
    assert model_server.count("/v1/messages") == 1  # the same request gets the same reply: not retried


async def test_openai_without_stream_is_refused_for_its_stream_options(model_server, monkeypatch):
    p = openai(model_server)
    _without_stream(p, monkeypatch)
    model_server.push(Reply(text="never"))
    with pytest.raises(RequestError, match="'stream_options' parameter is only allowed when 'stream'"):
        await collect(failover(p), request())
    assert model_server.count("/v1/chat/completions") == 1  # a 400 is not retried


# -- pairing ---------------------------------------------------------------------------------------

def _orphan_result(tool_id: str = "call_9") -> list:
    return [user_message("look"), AssistantMessage(content=[TextBlock(text="Nothing to call.")]),
            ToolResultMessage(tool_call_id=tool_id, name="lookup", content=[TextBlock(text="a file")])]


async def test_anthropic_orphan_tool_result_is_a_request_error(model_server):
    model_server.push(Reply(text="never"))
    with pytest.raises(RequestError, match="unexpected `tool_use_id` found in `tool_result` blocks: toolu_9"):
        await collect(failover(anthropic(model_server), model=CLAUDE),
                      ModelRequest(model=CLAUDE, messages=_orphan_result("toolu_9")))
    assert model_server.count("/v1/messages") == 1
    assert len(model_server.rejected) == 1


async def test_openai_orphan_tool_message_is_a_request_error(model_server):
    with pytest.raises(RequestError, match="role 'tool' must be a response to a preceeding message"):
        await collect(failover(openai(model_server)), ModelRequest(model="gpt-4o-mini", messages=_orphan_result()))


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_an_unanswered_tool_call_is_a_request_error(model_server, wire):
    history = [user_message("look"),
               AssistantMessage(content=[ToolCallBlock(id="toolu_1", name="lookup", arguments={})]),
               user_message("never mind")]
    p = openai(model_server) if wire == "openai" else anthropic(model_server)
    with pytest.raises(RequestError, match="toolu_1"):
        await collect(p, ModelRequest(model=CLAUDE, messages=history))
    assert model_server.rejected[0].param == ("messages.[1].role" if wire == "openai" else None)


# -- credentials, paths, fields ----------------------------------------------------------------------

@pytest.mark.parametrize("wire, message", [("openai", "Incorrect API key provided: wro"),
                                           ("anthropic", "invalid x-api-key")])
async def test_a_wrong_key_is_an_account_error(wire, message):
    with ModelServer(api_keys={"right"}) as server:
        p = (openai if wire == "openai" else anthropic)(server, token_source=StaticKey("wrong"))
        with pytest.raises(AccountError, match=message):
            await collect(p, request(CLAUDE))


@pytest.mark.parametrize("wire, message", [("openai", "You didn't provide an API key"),
                                           ("anthropic", "x-api-key header is required")])
async def test_no_key_at_all_is_an_account_error(model_server, wire, message):
    p = (openai if wire == "openai" else anthropic)(model_server, token_source=None)
    with pytest.raises(AccountError, match=message):
        await collect(p, request(CLAUDE))
    assert model_server.rejected[0].status == 401


async def test_a_wrong_path_is_a_404_request_error(model_server):
    p = OpenAIChatProvider(base_url=model_server.url, token_source=key())  # "/v1" forgotten
    with pytest.raises(RequestError, match=r"HTTP 404: Invalid URL \(POST /chat/completions\)"):
        await collect(failover(p), request())
    assert model_server.count() == 1


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_an_unknown_body_field_is_refused(model_server, wire):
    p = (openai if wire == "openai" else anthropic)(model_server, extra_body={"temprature": 0.2})
    with pytest.raises(RequestError, match="temprature"):
        await collect(p, request(CLAUDE))


async def test_anthropic_sampling_parameters_follow_the_api_version(model_server):
    model_server.push(Reply(text="ok"))
    assert done(await collect(anthropic(model_server), request(CLAUDE, temperature=0.3))).message.text == "ok"
    newer = anthropic(model_server, headers={"anthropic-version": "2026-10-21"})
    model_server.push(Reply(text="without it"))
    # That version refuses the field; the provider drops it and sends again (providers/sampling.py).
    assert done(await collect(newer, request(CLAUDE, temperature=0.3))).message.text == "without it"
    assert [r.message for r in model_server.rejected] == ["temperature: Extra inputs are not permitted"]
    assert "temperature" not in model_server.posts()[-1].json


async def test_a_tool_name_the_apis_refuse_is_a_request_error(model_server):
    spaced = ToolSpec(name="read file", description="Read.", input_schema={"type": "object"})
    with pytest.raises(RequestError, match="tools\\[0\\].function.name"):
        await collect(openai(model_server), ModelRequest(model="m", messages=[user_message("hi")], tools=[spaced]))


# -- compatible servers ------------------------------------------------------------------------------

async def test_compatible_mode_takes_local_server_extensions_without_a_key(model_server, compatible_model_server):
    local = compatible_model_server
    history = [user_message("hi"), AssistantMessage(content=[TextBlock(text="Hello.")]), user_message("more")]
    body = {"cache_prompt": True, "top_k": 40, "repeat_penalty": 1.1}
    local.push(Reply(text="local ok"))
    p = OpenAIChatProvider(id="llamacpp", base_url=local.openai_url, token_source=None, send_cache_key=False,
                           max_tokens_field="max_tokens", extra_body=body)
    req = ModelRequest(model="tiny", messages=history, max_tokens=16, extra={"assistant_prefix": "Sure"})
    assert done(await collect(p, req)).message.text == "local ok"
    assert local.posts()[0].json["cache_prompt"] is True and not local.rejected
    # The same request to the official API is refused field by field.
    strict = openai(model_server, extra_body=body)
    with pytest.raises(RequestError, match="Unrecognized request argument supplied"):
        await collect(strict, ModelRequest(model="gpt-4o-mini", messages=history))


@pytest.mark.parametrize("endpoint", ["ollama", "vllm", "llamacpp"])
async def test_named_local_endpoints_work_against_a_compatible_server(compatible_model_server, endpoint):
    compatible_model_server.push(Reply(text="from a local server"))
    provider, model = resolve_model(f"{endpoint}/tiny", base_url=compatible_model_server.openai_url, retry=False)
    events = await collect(provider, ModelRequest(model=model, messages=[user_message("hi")], tools=[LOOKUP],
                                                  max_tokens=8))
    assert done(events).message.text == "from a local server"
    sent = compatible_model_server.posts()[-1]
    assert "authorization" not in sent.headers and "prompt_cache_key" not in sent.json


# -- the checks themselves: what the types alone would have let through -------------------------------

def _openai_body(**kw):
    return {"model": "gpt-4o-mini", "stream": True,
            "messages": [{"role": "user", "content": "hi"}], **kw}


@pytest.mark.parametrize("messages, param", [
    ([{"role": "user", "content": [{"type": "text", "txt": "x"}]}], "messages[0].content[0].text"),
    ([{"role": "user", "content": "hi", "nmae": "x"}], "messages[0].nmae"),
    ([{"role": "usr", "content": "hi"}], "messages[0].role"),
    ([{"role": "assistant", "content": None}], "messages.[0].content"),
    ([], "messages"),
    ([{"role": "user", "content": []}], "messages[0].content"),
], ids=["iterable-parts-are-validated", "unknown-message-key", "unknown-role", "empty-assistant", "no-messages",
        "no-parts"])
def test_openai_checks(messages, param):
    with pytest.raises(Rejected) as info:
        check_openai(_openai_body(messages=messages))
    assert info.value.param == param and info.value.status == 400


def test_openai_checks_accept_what_the_api_accepts():
    check_openai(_openai_body(
        prompt_cache_key="nb-1", max_completion_tokens=5, stream_options={"include_usage": True},
        tools=[{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}],
        parallel_tool_calls=True,
        messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "hi"},
                  {"role": "assistant", "content": None, "tool_calls": [
                      {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
                  {"role": "tool", "tool_call_id": "c1", "content": "ok"}]))
    with pytest.raises(Rejected, match="max_tokens': Input should be a valid integer"):
        check_openai(_openai_body(max_tokens="5"))  # no coercion: JSON has numbers
    with pytest.raises(Rejected, match="must be a response"):  # two answers to one call
        check_openai(_openai_body(messages=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                                  "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "a"},
            {"role": "tool", "tool_call_id": "c1", "content": "b"}]))


def _claude_body(messages, **kw):
    return {"model": CLAUDE, "max_tokens": 10, "stream": True, "messages": messages, **kw}


_USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}
_RESULT = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}


@pytest.mark.parametrize("body, message", [
    ({"model": CLAUDE, "stream": True, "messages": [{"role": "user", "content": "hi"}]}, "max_tokens: Field required"),
    (_claude_body([{"role": "assistant", "content": "hi"}]), 'first message must use the "user" role'),
    (_claude_body([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]), "roles must alternate"),
    (_claude_body([{"role": "user", "content": "a"}, _USE,
                   {"role": "user", "content": [{"type": "text", "text": "b"}, _RESULT]}]),
     "`tool_result` blocks must come first"),
    (_claude_body([{"role": "user", "content": "a"}, _USE, {"role": "user", "content": "b"}]),
     "`tool_use` ids were found without `tool_result` blocks immediately after: t1"),
    (_claude_body([{"role": "user", "content": [{"type": "text", "text": " "}]}]), "non-whitespace text"),
    (_claude_body([{"role": "user", "content": []}]), "non-empty content"),
    (_claude_body([{"role": "user", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}
                                                for _ in range(5)]}]), "A maximum of 4 blocks with cache_control"),
    (_claude_body([{"role": "user", "content": [{"type": "image", "source": {
        "type": "base64", "media_type": "image/bmp", "data": "x"}}]}]), "messages.0.content.0.source.media_type"),
    # The SDK's response models sit in the request unions too; their extra='allow' must not let
    # an unknown key through.
    (_claude_body([{"role": "user", "content": [{"type": "text", "text": "a", "citatons": []}]}]),
     "messages.0.content.0.citatons: Extra inputs are not permitted"),
    (_claude_body([{"role": "user", "content": "a"}, {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hmm"}]}]), "messages.1.content.0.signature: Field required"),
], ids=["max-tokens", "first-user", "alternate", "results-first", "unanswered", "blank-text", "empty",
        "cache-control", "iterable-blocks-are-validated", "unknown-block-key", "thinking-needs-signature"])
def test_anthropic_checks(body, message):
    with pytest.raises(Rejected, match=message):
        check_anthropic(body)


def test_anthropic_checks_accept_a_full_tool_round():
    check_anthropic(_claude_body([{"role": "user", "content": "a"}, _USE,
                                  {"role": "user", "content": [_RESULT, {"type": "text", "text": "and"}]}],
                                 system=[{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}]))


def test_error_bodies_have_each_services_shape(model_server):
    sent = {"model": "m", "stream": True, "messages": [{"role": "tool", "tool_call_id": "x", "content": "r"}]}
    r = httpx.post(f"{model_server.openai_url}/chat/completions", json=sent, headers={"authorization": "Bearer k"})
    assert r.status_code == 400
    assert set(r.json()["error"]) == {"message", "type", "param", "code"}
    assert r.json()["error"]["type"] == "invalid_request_error"
    r = httpx.post(f"{model_server.anthropic_url}/v1/messages", json={"model": "m", "messages": []},
                   headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
    assert r.status_code == 400 and r.json()["type"] == "error"
    assert r.json()["error"] == {"type": "invalid_request_error", "message": "max_tokens: Field required"}
    r = httpx.post(f"{model_server.anthropic_url}/v1/messages", headers={"x-api-key": "k"},
                   json={"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]})
    assert r.status_code == 400 and r.json()["error"]["message"] == "anthropic-version: header is required"
    r = httpx.get(f"{model_server.url}/v1/nope", headers={"x-api-key": "k"})
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found_error"


# -- what every HTTP wire inherits from its base -----------------------------------------------------

@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_each_wire_completes_with_what_its_stream_ends_with(model_server, wire):
    p, model = (openai(model_server), "gpt-4o-mini") if wire == "openai" else (anthropic(model_server), CLAUDE)
    model_server.push(Reply(text="the same"), Reply(text="the same"))
    streamed = done(await collect(p, request(model)))
    completed = await p.complete(request(model))
    assert completed.message.text == streamed.message.text == "the same"
    assert (completed.stop_reason, completed.message.provider) == (streamed.stop_reason, wire)
    assert p.capabilities(model).images_in_tool_results is (wire == "anthropic")
