"""Record/replay: a recording replays offline with identical events; mismatches fail loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orkas_nb.core.errors import RateLimitError, ReplayMismatchError
from orkas_nb.core.messages import user_message
from orkas_nb.harness.runner import Runner
from orkas_nb.harness.tool_protocol import tool
from orkas_nb.providers.base import ModelRequest
from orkas_nb.providers.cassette import RecordingProvider, ReplayProvider, normalise_request
from orkas_nb.testing import ScriptedModel, call, reply


@tool
def lookup(path: str) -> str:
    """Return a fixed description of a path."""
    return f"{path} is a file, read at 2026-11-30T06:00:00Z in 0.42 s"


def _script() -> ScriptedModel:
    return ScriptedModel(
        [reply("Looking.", call("lookup", path="README.md")), reply("It is a README.")],
        id="openai",
    )


def _events(events) -> list[dict]:
    """Events without the clocks (durations and timestamps legitimately differ)."""
    out = []
    for e in events:
        d = e.model_dump(mode="json", exclude={"ts", "duration_s"})
        if d["type"] == "done":
            for key in ("duration_s", "first_token_s"):
                d["result"].pop(key)
            d["result"]["stats"] = {k: v for k, v in d["result"]["stats"].items() if not k.endswith("_s")}
        out.append(d)
    return out


async def _run(provider, workspace: Path, prompt: str = "what is README.md?") -> list:
    runner = Runner(provider, "gpt-4o-mini", tools=_registry(), workspace=workspace,
                    system_prompt=f"You work in {workspace}.")
    return [e async for e in runner.run(prompt)]


def _registry():
    from orkas_nb.harness.tool_protocol import ToolRegistry

    reg = ToolRegistry()
    reg.add(lookup)
    return reg


async def test_recording_replays_twice_with_identical_event_streams(tmp_path, monkeypatch):
    cassette = tmp_path / "c.jsonl"
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    recorded = await _run(RecordingProvider(_script(), cassette), ws)
    lines = [json.loads(x) for x in cassette.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["provider"] == "openai"
    assert [x["index"] for x in lines[1:]] == [0, 1]
    # paths under the working folder are normalised, call ids renamed, clocks gone
    second = lines[2]["request"]
    assert second["system"] == "You work in <ROOT>."
    assert second["messages"][1]["content"][1]["id"] == "call_1"
    assert second["messages"][2]["tool_call_id"] == "call_1"
    assert "<TIME>" in second["messages"][2]["content"][0]["text"]
    assert "<DURATION>" in second["messages"][2]["content"][0]["text"]

    replay = ReplayProvider(cassette)
    first = await _run(replay, ws)
    assert replay.remaining == 0
    replay.rewind()
    again = await _run(replay, ws)
    assert _events(first) == _events(again)
    assert [e.type for e in first] == [e.type for e in recorded]
    assert first[-1].result.text == "It is a README."


async def test_replay_matches_across_workspaces(tmp_path):
    """A cassette recorded in one folder replays in another (the tutorial case)."""
    cassette = tmp_path / "c.jsonl"
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    await _run(RecordingProvider(_script(), cassette, roots=[a]), a)
    events = await _run(ReplayProvider(cassette, roots=[b]), b)
    assert events[-1].result.stop_reason == "end_turn"


async def test_mismatch_fails_loudly_with_a_diff(tmp_path):
    cassette = tmp_path / "c.jsonl"
    await _run(RecordingProvider(_script(), cassette), tmp_path)
    replay = ReplayProvider(cassette)
    request = ModelRequest(model="gpt-4o-mini", system=f"You work in {tmp_path}.",
                           messages=[user_message("what is setup.py?")], tools=_registry().specs())
    with pytest.raises(ReplayMismatchError) as info:
        await replay.complete(request)
    text = str(info.value)
    assert "call 1 of 2 does not match" in text
    assert '-     "text": "what is README.md?"' in text.replace("\n", "\n")
    assert '+     "text": "what is setup.py?"' in text


async def test_more_calls_than_recorded_is_a_mismatch(tmp_path):
    cassette = tmp_path / "c.jsonl"
    rec = RecordingProvider(ScriptedModel(["hi"], id="openai"), cassette)
    req = ModelRequest(model="m", messages=[user_message("hello")])
    await rec.complete(req)
    replay = ReplayProvider(cassette)
    await replay.complete(req)
    with pytest.raises(ReplayMismatchError, match="has 1 recorded calls"):
        await replay.complete(req)


async def test_errors_are_recorded_and_replayed(tmp_path):
    cassette = tmp_path / "c.jsonl"
    rec = RecordingProvider(ScriptedModel([RateLimitError("slow down", status=429, retry_after=2.0)]), cassette)
    req = ModelRequest(model="m", messages=[user_message("hello")])
    with pytest.raises(RateLimitError):
        await rec.complete(req)
    with pytest.raises(RateLimitError) as info:
        await ReplayProvider(cassette).complete(req)
    assert info.value.status == 429 and info.value.retry_after == 2.0


async def test_secrets_are_stripped(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k-live-123456789")
    cassette = tmp_path / "c.jsonl"
    rec = RecordingProvider(ScriptedModel(["your key is k-live-123456789 and sk-abcdefghijklmnopqrstu"]), cassette)
    await rec.complete(ModelRequest(model="m", messages=[user_message("Bearer abcdefghijkl")]))
    text = cassette.read_text()
    assert "k-live-123456789" not in text and "sk-abcdefghijklmnopqrstu" not in text
    assert "abcdefghijkl" not in text
    assert text.count("<SECRET>") == 3


def test_bad_cassettes_are_config_errors(tmp_path):
    from orkas_nb.core.errors import ConfigError

    with pytest.raises(ConfigError, match="no cassette"):
        ReplayProvider(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(ConfigError, match="not JSONL"):
        ReplayProvider(bad)
    bad.write_text('{"type": "interaction"}\n')
    with pytest.raises(ConfigError, match="no header"):
        ReplayProvider(bad)
    bad.write_text('{"type": "header", "version": 99}\n')
    with pytest.raises(ConfigError, match="version 99"):
        ReplayProvider(bad)


def test_normalise_is_stable_for_equal_conversations():
    a = ModelRequest(model="m", messages=[user_message("x")], session_id="s1")
    b = ModelRequest(model="m", messages=[user_message("x")], session_id="s2")
    assert normalise_request(a) == normalise_request(b)


async def test_agents_that_ran_concurrently_replay_in_any_order(tmp_path):
    """A team's agents share one cassette; their calls interleave differently on replay."""
    import asyncio

    cassette = tmp_path / "team.jsonl"
    rec = RecordingProvider(ScriptedModel(lambda r: reply(f"answer to {r.messages[-1].text}")), cassette)
    asks = [ModelRequest(model="m", messages=[user_message(f"question {i}")]) for i in range(3)]
    for req in asks:
        await rec.complete(req)
    replay = ReplayProvider(cassette)
    answers = await asyncio.gather(*(replay.complete(req) for req in reversed(asks)))
    assert [a.message.text for a in answers] == [f"answer to question {i}" for i in (2, 1, 0)]
    assert replay.remaining == 0
    with pytest.raises(ReplayMismatchError, match="has 3 recorded calls"):
        await replay.complete(asks[0])


def test_ids_the_runtime_draws_are_renumbered_in_order_and_other_text_still_counts():
    """A team's task ids are random per run ("Task task_<20 hex> from commander:"); two runs of
    the same conversation match, a changed task text or a different pairing of ids does not."""
    from orkas_nb.core.messages import new_id

    def ask(first: str, second: str, text: str = "count the rows") -> ModelRequest:
        return ModelRequest(model="m", messages=[
            user_message(f"Task {first} from commander:\n{text}"),
            user_message(f"Done: {first}; still open: {second}, {first}")])

    run_1, run_2 = (new_id("task"), new_id("task")), (new_id("task"), new_id("task"))
    seen = normalise_request(ask(*run_1))
    assert normalise_request(ask(*run_2)) == seen
    assert "Task task_1 from" in seen["messages"][0]["content"][0]["text"]
    assert seen["messages"][1]["content"][0]["text"] == "Done: task_1; still open: task_2, task_1"
    assert normalise_request(ask(*run_2, text="count the columns")) != seen
    assert normalise_request(ask(run_2[0], run_2[0])) != seen  # one task where there were two
