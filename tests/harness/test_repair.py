"""Property tests: repair is idempotent and always yields a paired history."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_nb.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from orkas_nb.harness.repair import pairing_problems, repair
from orkas_nb.harness.session import decode_lines, encode_line

IDS = st.sampled_from(["a", "b", "c", "d", ""])


@st.composite
def messages(draw):  # type: ignore[no-untyped-def]
    kind = draw(st.sampled_from(["user", "assistant", "tool", "tool", "assistant"]))
    n = draw(st.integers(0, 10_000))
    if kind == "user":
        return UserMessage(id=f"u{n}", created_at=0, content=[TextBlock(text="u")])
    if kind == "assistant":
        ids = draw(st.lists(IDS, max_size=4))
        calls = [ToolCallBlock(id=i, name="t") for i in ids]
        return AssistantMessage(id=f"a{n}", created_at=0, content=[TextBlock(text="a"), *calls])
    return ToolResultMessage(
        id=f"r{n}", created_at=0, tool_call_id=draw(IDS), name="t", content=[TextBlock(text="r")]
    )


histories = st.lists(messages(), max_size=25)


@settings(max_examples=400, deadline=None)
@given(histories)
def test_repair_is_idempotent_and_pairs_every_call(history) -> None:  # type: ignore[no-untyped-def]
    once = repair(history)
    assert repair(once) == once
    assert pairing_problems(once) == []


@settings(max_examples=200, deadline=None)
@given(histories)
def test_repair_keeps_every_non_result_message_in_order(history) -> None:  # type: ignore[no-untyped-def]
    kept = [m.id for m in repair(history) if not isinstance(m, ToolResultMessage)]
    assert kept == [m.id for m in history if not isinstance(m, ToolResultMessage)]


@settings(max_examples=200, deadline=None)
@given(histories)
def test_repair_keeps_a_real_result_over_a_synthetic_one(history) -> None:  # type: ignore[no-untyped-def]
    out = repair(history)
    real = {m.id for m in history if isinstance(m, ToolResultMessage)}
    for m in out:
        if isinstance(m, ToolResultMessage) and m.status == "interrupted":
            assert m.id.startswith("synth_")
    # A result that sat right after its own call is never replaced.
    for i, m in enumerate(history[:-1]):
        ids = [c.id for c in m.tool_calls] if isinstance(m, AssistantMessage) else []
        if ids and "" not in ids and len(set(ids)) == len(ids):
            nxt = history[i + 1]
            if m.tool_calls and isinstance(nxt, ToolResultMessage) and nxt.tool_call_id == m.tool_calls[0].id:
                assert nxt.id in {x.id for x in out} and nxt.id in real


@settings(max_examples=200, deadline=None)
@given(histories, st.integers(0, 200), st.binary(max_size=40))
def test_torn_bytes_always_load_and_repair_to_a_paired_history(history, cut, junk) -> None:  # type: ignore[no-untyped-def]
    data = b"".join(encode_line(m) for m in history)
    torn = data[: max(0, len(data) - cut)] + junk.replace(b"\n", b"")
    loaded, _notes = decode_lines(torn)
    repaired = repair(loaded)
    assert pairing_problems(repaired) == []
    assert repair(repaired) == repaired
    # Every line that was complete (newline included) before the cut survives.
    kept = data[: max(0, len(data) - cut)]
    complete_lines = kept.count(b"\n")
    assert [m.id for m in loaded] == [m.id for m in history[:complete_lines]]
