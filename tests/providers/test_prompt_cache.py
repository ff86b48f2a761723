"""Prompt caching: turn N+1's request begins with turn N's messages unchanged (prefix
stability), the session id is the cache key, and Anthropic's breakpoints sit on the stable prefix."""

from __future__ import annotations

import json
from itertools import pairwise

from orkas_nb.harness.runner import Runner
from orkas_nb.harness.session import JsonlSession
from orkas_nb.harness.tool_protocol import ToolRegistry, tool
from orkas_nb.providers.anthropic_messages import AnthropicProvider
from orkas_nb.providers.openai_chat import OpenAIChatProvider
from tests.fakes.model_server import Reply, ToolCall
from tests.providers.helpers import key


@tool
def lookup(path: str) -> str:
    """Describe a path."""
    return f"{path}: a text file of 3 lines"


def _script(server) -> None:
    server.push(
        Reply(text="First look.", tool_calls=[ToolCall("lookup", json.dumps({"path": "a.txt"}))]),
        Reply(tool_calls=[ToolCall("lookup", json.dumps({"path": "b.txt"})),
                          ToolCall("lookup", json.dumps({"path": "c.txt"}))]),
        Reply(text="Both are small."),
        Reply(text="Second turn answer."),
    )


async def _two_turns(provider, tmp_path, model: str) -> None:
    tools = ToolRegistry()
    tools.add(lookup)
    session = JsonlSession(tmp_path / "s.jsonl")
    runner = Runner(provider, model, tools=tools, session=session, system_prompt="Be brief.",
                    workspace=tmp_path)
    first = await runner.run_to_end("look at a, b and c")
    second = await runner.run_to_end("thanks; anything else?")
    assert first.stop_reason == second.stop_reason == "end_turn"
    session.close()


async def test_openai_bodies_are_byte_prefixes_of_each_other(model_server, tmp_path):
    _script(model_server)
    provider = OpenAIChatProvider(base_url=model_server.openai_url, token_source=key())
    await _two_turns(provider, tmp_path, "gpt-4o-mini")
    bodies = [r.body for r in model_server.posts()]
    assert len(bodies) == 4
    for before, after in pairwise(bodies):
        # messages come last in the body: all but the closing "]}" is a byte prefix
        assert after.startswith(before[:-2]), (before[-300:], after[:300])
    keys = {json.loads(b)["prompt_cache_key"] for b in bodies}
    assert keys == {"s"}  # the session's name is the cache key


def _without_cache_control(value):
    if isinstance(value, dict):
        return {k: _without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_control(v) for v in value]
    return value


async def test_anthropic_prefix_is_stable_and_breakpoint_moves_forward(model_server, tmp_path):
    _script(model_server)
    provider = AnthropicProvider(base_url=model_server.anthropic_url, token_source=key())
    await _two_turns(provider, tmp_path, "claude-sonnet-4-5")
    bodies = [r.body for r in model_server.posts()]
    parsed = [json.loads(b) for b in bodies]
    for before, after in pairwise(parsed):
        old, new = _without_cache_control(before["messages"]), _without_cache_control(after["messages"])
        assert new[: len(old) - 1] == old[:-1]
        # the last turn of the older request may have grown (tool results + steer share a turn)
        assert new[len(old) - 1]["content"][: len(old[-1]["content"])] == old[-1]["content"]
        assert before["system"] == after["system"] and before["tools"] == after["tools"]
    for body, data in zip(bodies, parsed):
        marks = body.count(b'"cache_control"')
        assert marks == 3, body  # tools, system, and the last block of the last message
        assert "cache_control" in data["messages"][-1]["content"][-1]
    # Byte level: everything up to the previous request's last message is unchanged.
    for before, after in pairwise(bodies):
        cut = before.rfind(b'{"role":')
        assert after[:cut] == before[:cut]
