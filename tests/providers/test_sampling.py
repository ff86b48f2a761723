"""Sampling fields a model refuses: the provider drops them, remembers it, and the call works.

Over real loopback HTTP, against the fake's per-model refusals (``tests/fakes/sampling.py``: the
services' own 400s). A value out of range is the caller's mistake and still fails."""

from __future__ import annotations

import logging

import pytest

from orkas_nb.core.errors import RequestError
from orkas_nb.providers.anthropic_messages import AnthropicProvider
from orkas_nb.providers.openai_chat import OpenAIChatProvider
from tests.fakes.model_server import Reply
from tests.providers.helpers import collect, done, failover, key, request


def anthropic(server) -> AnthropicProvider:
    return AnthropicProvider(base_url=server.anthropic_url, token_source=key("ak-test"))


def openai(server) -> OpenAIChatProvider:
    return OpenAIChatProvider(base_url=server.openai_url, token_source=key())


CASES = [
    pytest.param(anthropic, "claude-opus-4-7", 0.2, id="anthropic-after-opus-4.6"),
    pytest.param(anthropic, "claude-sonnet-5-20260901", 0.0, id="anthropic-generation-5"),
    pytest.param(openai, "o3-mini", 0.0, id="openai-reasoning"),
    pytest.param(openai, "gpt-5", 0.7, id="openai-gpt-5"),
]


@pytest.mark.parametrize(("make", "model", "temperature"), CASES)
async def test_a_refused_temperature_is_dropped_once_and_remembered_for_the_model(
        model_server, caplog, make, model, temperature):
    model_server.push(Reply(text="first"), Reply(text="second"))
    provider = make(model_server)
    with caplog.at_level(logging.WARNING, logger="orkas_nb.providers"):
        first = await collect(provider, request(model, temperature=temperature))
        second = await collect(provider, request(model, temperature=temperature))
    assert done(first).message.content[0].text == "first"
    assert done(second).message.content[0].text == "second"
    sent = [p.json for p in model_server.posts()]
    # One refusal, then the same request without the field; the next request leaves it out at once.
    assert [b.get("temperature") for b in sent] == [temperature, None, None]
    assert len(model_server.rejected) == 1 and "temperature" in model_server.rejected[0].message
    assert sent[0]["messages"] == sent[1]["messages"]
    warnings = [r for r in caplog.records if "refuses temperature" in r.getMessage()]
    assert len(warnings) == 1 and model in warnings[0].getMessage()


async def test_models_that_take_a_temperature_still_get_it(model_server):
    model_server.push(Reply(text="a"), Reply(text="b"))
    await collect(anthropic(model_server), request("claude-opus-4-6", temperature=0.3))
    await collect(openai(model_server), request("gpt-4o-mini", temperature=0.3))
    assert [p.json.get("temperature") for p in model_server.posts()] == [0.3, 0.3]
    assert model_server.rejected == []


async def test_the_default_temperature_is_kept_where_only_the_default_is_allowed(model_server):
    model_server.push(Reply(text="a"))
    await collect(openai(model_server), request("o3-mini", temperature=1))
    assert [p.json.get("temperature") for p in model_server.posts()] == [1]


@pytest.mark.parametrize(("make", "model", "temperature"), [
    pytest.param(anthropic, "claude-sonnet-4-5", 1.5, id="anthropic-over-1"),
    pytest.param(openai, "gpt-4o-mini", 3.0, id="openai-over-2"),
])
async def test_a_temperature_out_of_range_is_the_callers_error_not_dropped(model_server, make, model, temperature):
    with pytest.raises(RequestError, match="temperature"):
        await collect(make(model_server), request(model, temperature=temperature))
    assert len(model_server.posts()) == 1  # not sent again without it


async def test_the_drop_is_no_retry_and_spends_none_of_the_retry_budget(model_server):
    model_server.push(Reply(text="ok"))
    events = await collect(failover(anthropic(model_server), model="claude-opus-4-7"),
                           request("claude-opus-4-7", temperature=0.0))
    assert done(events).message.content[0].text == "ok"
    assert not [e for e in events if type(e).__name__ == "StreamRetry"]
    assert len(model_server.posts()) == 2
