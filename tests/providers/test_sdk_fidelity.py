"""The loopback server is faithful: the official SDKs parse its streams and errors as they
would the real services' (test dependencies only; orkas_nb itself never imports them)."""

from __future__ import annotations

import json

import pytest

from tests.fakes.model_server import Fault, Reply, ToolCall

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

# The SDK warns about model end-of-life dates; the names here are only wire labels.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _openai(server):
    return openai.OpenAI(base_url=server.openai_url, api_key="sk-test", max_retries=0)


def _anthropic(server):
    return anthropic.Anthropic(base_url=server.anthropic_url, api_key="k-test", max_retries=0)


def test_openai_sdk_streams_text_tool_calls_and_usage(model_server):
    model_server.push(Reply(text="Hello world", tool_calls=[
        ToolCall("lookup", json.dumps({"path": "a.txt"})), ToolCall("stat", json.dumps({"path": "b"}))],
        input_tokens=30, output_tokens=9, cache_read=16))
    stream = _openai(model_server).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], stream=True,
        stream_options={"include_usage": True})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Hello world"
    args: dict[int, str] = {}
    names: dict[int, str] = {}
    for c in chunks:
        for choice in c.choices:
            for tc in choice.delta.tool_calls or []:
                args[tc.index] = args.get(tc.index, "") + (tc.function.arguments or "")
                if tc.function.name:
                    names[tc.index] = tc.function.name
    assert names == {0: "lookup", 1: "stat"}
    assert json.loads(args[0]) == {"path": "a.txt"}
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].usage.prompt_tokens == 30
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens == 16


def test_openai_sdk_stream_helper_accumulates_the_final_message(model_server):
    model_server.push(Reply(tool_calls=[ToolCall("lookup", json.dumps({"path": "x"}))]))
    client = _openai(model_server)
    with client.chat.completions.stream(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}],
        tools=[{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}],
    ) as stream:
        final = stream.get_final_completion()
    call = final.choices[0].message.tool_calls[0]
    assert call.function.name == "lookup" and json.loads(call.function.arguments) == {"path": "x"}


@pytest.mark.parametrize("status, error", [
    (429, "RateLimitError"), (401, "AuthenticationError"), (400, "BadRequestError"),
    (500, "InternalServerError"), (503, "InternalServerError"),
])
def test_openai_sdk_maps_the_error_bodies(model_server, status, error):
    model_server.push(Fault.status(status, retry_after=3 if status == 429 else None))
    with pytest.raises(getattr(openai, error)) as info:
        _openai(model_server).chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert info.value.status_code == status
    if status == 400:
        assert info.value.code == "context_length_exceeded"
    if status == 429:
        assert info.value.response.headers["retry-after"] == "3"
        assert info.value.code == "rate_limit_exceeded"


def test_anthropic_sdk_streams_thinking_text_and_tool_use(model_server):
    model_server.push(Reply(thinking="Let me think.", signature="sig-abc", text="Hello",
                            tool_calls=[ToolCall("lookup", json.dumps({"path": "a.txt"}))],
                            input_tokens=40, cache_read=100, cache_write=7, output_tokens=22))
    client = _anthropic(model_server)
    with client.messages.stream(model="claude-sonnet-4-5", max_tokens=100,
                                messages=[{"role": "user", "content": "hi"}]) as stream:
        texts = list(stream.text_stream)
        final = stream.get_final_message()
    assert "".join(texts) == "Hello"
    kinds = [b.type for b in final.content]
    assert kinds == ["thinking", "text", "tool_use"]
    assert final.content[0].thinking == "Let me think." and final.content[0].signature == "sig-abc"
    assert final.content[2].input == {"path": "a.txt"}
    assert final.stop_reason == "tool_use"
    assert final.usage.cache_read_input_tokens == 100 and final.usage.cache_creation_input_tokens == 7
    assert final.usage.output_tokens == 22


def test_anthropic_sdk_sees_redacted_thinking(model_server):
    model_server.push(Reply(redacted="EmwKAhgBEgy3va3pzix", text="ok"))
    with _anthropic(model_server).messages.stream(model="claude-sonnet-4-5", max_tokens=100,
                                                  messages=[{"role": "user", "content": "hi"}]) as s:
        final = s.get_final_message()
    assert final.content[0].type == "redacted_thinking" and final.content[0].data == "EmwKAhgBEgy3va3pzix"


@pytest.mark.parametrize("status, error", [
    (429, "RateLimitError"), (401, "AuthenticationError"), (400, "BadRequestError"),
    (500, "InternalServerError"), (529, "OverloadedError"),
])
def test_anthropic_sdk_maps_the_error_bodies(model_server, status, error):
    model_server.push(Fault.status(status))
    with pytest.raises(getattr(anthropic, error)) as info:
        _anthropic(model_server).messages.create(model="claude-sonnet-4-5", max_tokens=10, stream=True,
                                                 messages=[{"role": "user", "content": "hi"}])
    assert info.value.status_code == status
    assert info.value.body["type"] == "error"
    if status == 400:
        assert "prompt is too long" in info.value.message
    if status == 529:
        assert info.value.body["error"]["type"] == "overloaded_error"


def test_sdks_list_models(model_server):
    assert _openai(model_server).models.list().data[0].id == "gpt-4o-mini"
    assert _anthropic(model_server).models.list().data[0].id == "claude-sonnet-4-5"


def test_anthropic_sdk_rejects_a_stream_cut_before_message_stop(model_server):
    """What the SDK does with our cut fault: it raises, as it would on a real dropped stream."""
    model_server.push(Fault.cut("partial"))
    client = _anthropic(model_server)
    with pytest.raises(Exception) as info, client.messages.stream(
            model="claude-sonnet-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}]) as s:
        s.get_final_message()
    assert "anthropic" in type(info.value).__module__ or "http" in type(info.value).__module__


def test_sdks_parse_the_whole_answer_to_a_request_without_stream(model_server):
    call = ToolCall("lookup", json.dumps({"path": "a.txt"}), id="call_1")
    model_server.push(Reply(text="Hi", tool_calls=[call], input_tokens=7, output_tokens=3),
                      Reply(text="Hi", thinking="Hmm.", tool_calls=[ToolCall("lookup", "{}", id="toolu_1")]))
    completion = _openai(model_server).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    assert completion.choices[0].message.content == "Hi" and completion.usage.prompt_tokens == 7
    assert completion.choices[0].message.tool_calls[0].function.name == "lookup"
    assert completion.choices[0].finish_reason == "tool_calls"
    message = _anthropic(model_server).messages.create(model="claude-sonnet-4-5", max_tokens=10,
                                                       messages=[{"role": "user", "content": "hi"}])
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert message.stop_reason == "tool_use"


def test_sdks_map_the_servers_refusals(model_server):
    """A request the real API refuses reaches each SDK as its BadRequestError, with the fields."""
    with pytest.raises(openai.BadRequestError) as info:
        _openai(model_server).chat.completions.create(
            model="gpt-4o-mini", stream=True,
            messages=[{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "c9", "content": "x"}])
    assert info.value.param == "messages.[1].role" and "preceeding message with 'tool_calls'" in info.value.message
    with pytest.raises(anthropic.BadRequestError) as info:
        _anthropic(model_server).messages.create(
            model="claude-sonnet-4-5", max_tokens=10,
            messages=[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9"}]}])
    assert info.value.body["error"]["type"] == "invalid_request_error"
    assert "toolu_9" in info.value.message
    model_server.api_keys = {"k-test"}
    with pytest.raises(anthropic.AuthenticationError) as info:
        anthropic.Anthropic(base_url=model_server.anthropic_url, api_key="k-wrong", max_retries=0).messages.create(
            model="claude-sonnet-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert info.value.body["error"] == {"type": "authentication_error", "message": "invalid x-api-key"}
