"""Compaction and overflow recovery, driven through the real runner with ScriptedModel.

Every request the model sees is counted with the real o200k tokenizer (bpe-openai), never with
the estimator under test, so "never above the window" is a statement about real tokens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import bpe_openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orkas_nb.core.errors import ContextOverflowError
from orkas_nb.core.events import Compaction, Done, Warning
from orkas_nb.core.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    SummaryBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
    user_message,
)
from orkas_nb.core.tokens import estimate_image, estimate_messages
from orkas_nb.harness import InMemorySession, JsonlSession, RunConfig, Runner, ToolRegistry, tool
from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.harness.compaction import (
    SUMMARY_SYSTEM,
    CompactionConfig,
    Compactor,
    choose_cut,
    minimal_tail_start,
)
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.harness.runner import TurnState
from orkas_nb.harness.tool_protocol import ToolOutput
from orkas_nb.providers.base import ModelRequest
from orkas_nb.testing import ScriptedModel, call, reply
from tests.conftest import normalise

O200K = bpe_openai.get_encoding("o200k_base")
CORPUS = Path(__file__).resolve().parents[1] / "data" / "tokens"
ENGLISH = " ".join(p.read_text(encoding="utf-8") for p in sorted((CORPUS / "english").iterdir()))
CHINESE = "".join(p.read_text(encoding="utf-8") for p in sorted((CORPUS / "chinese").iterdir()))


# -- real token counts of what the model saw ---------------------------------------------------

_COUNTS: dict[tuple[str, str], int] = {}


def real(text: str) -> int:
    return len(O200K.encode_ordinary(text)) if text else 0


def message_tokens(m: Message) -> int:
    """o200k tokens of a message as a provider would send it (text, call JSON, images by size)."""
    key = (m.id, m.role)
    if key not in _COUNTS:
        n = 4
        for b in m.content:
            if isinstance(b, (TextBlock, SummaryBlock)):
                n += real(b.text)
            elif isinstance(b, ToolCallBlock):
                n += 8 + real(b.name) + real(b.id) + real(json.dumps(b.arguments, ensure_ascii=False))
            elif isinstance(b, ImageBlock):
                n += estimate_image(b.width, b.height, b.data)
        if isinstance(m, ToolResultMessage):
            n += real(m.tool_call_id)
        _COUNTS[key] = n
    return _COUNTS[key]


def request_tokens(request: ModelRequest) -> int:
    tools = sum(
        8 + real(t.name) + real(t.description) + real(json.dumps(t.input_schema)) for t in request.tools
    )
    return real(request.system) + tools + sum(message_tokens(m) for m in request.messages)


# -- a scripted long run ----------------------------------------------------------------------


def slice_of(text: str, step: int, chars: int) -> str:
    start = (step * 977) % max(1, len(text) - chars)
    return text[start : start + chars]


def make_tools(source: str, chars: int) -> ToolRegistry:
    @tool(read_only=True)
    def fetch(step: int) -> str:
        """Fetch one page of the document.

        Args:
            step: which page
        """
        return f"page {step}:\n" + slice_of(source, step, chars)

    return ToolRegistry([fetch])


def summariser(request: ModelRequest) -> Any:
    """The model's answer to a summary request: short, within the request's cap."""
    covered = request.messages[-1].text.count("RESULT of fetch")
    text = f"Summary: read {covered} more pages of the document; nothing unusual found so far. " * 3
    return reply(text[: 4 * (request.max_tokens or 400)])


def long_run_model(steps: int, window: int, *, real_usage: bool = False) -> ScriptedModel:
    state = {"main": 0}

    def script(request: ModelRequest) -> Any:
        if request.purpose == "auxiliary":
            answer = summariser(request)
        else:
            state["main"] += 1
            n = state["main"]
            answer = reply(f"step {n}", call("fetch", f"c{n}", step=n)) if n <= steps else reply("All pages read.")
        if real_usage:
            answer.usage = _usage(request)
        return answer

    return ScriptedModel(script, context_window=window)


def _usage(request: ModelRequest) -> Any:
    from orkas_nb.core.messages import Usage

    return Usage(input_tokens=request_tokens(request), output_tokens=10)


async def drive(runner: Runner, prompt: str = "Read the whole document, page by page.") -> list:
    return [e async for e in runner.run(prompt)]


def done(events: list) -> Any:
    assert isinstance(events[-1], Done)
    return events[-1].result


# -- runs past the threshold ------------------------------------------------------------------


@pytest.mark.parametrize("source,chars", [(ENGLISH, 1800), (CHINESE, 500)], ids=["english", "chinese"])
async def test_run_past_the_threshold_compacts_and_stays_inside_the_window(source: str, chars: int) -> None:
    window = 8000
    model = long_run_model(40, window)
    runner = Runner(model, "m", tools=make_tools(source, chars), system_prompt="You are careful.")
    events = await drive(runner)
    result = done(events)
    assert result.stop_reason == "end_turn", result.error
    compactions = [e for e in events if isinstance(e, Compaction)]
    assert len(compactions) >= 2 and result.stats.compactions == len(compactions)
    for c in compactions:
        assert c.tokens_after < 0.5 * window < 0.8 * window <= c.tokens_before
        assert c.messages_replaced > 0
    main = [r for r in model.requests if r.purpose == "main"]
    aux = [r for r in model.requests if r.purpose == "auxiliary"]
    assert len(aux) >= len(compactions)
    assert max(request_tokens(r) for r in model.requests) <= window
    # The main turn is uncapped; the summary call is capped, has no tools and its own prompt.
    assert all(r.max_tokens is None and r.system == "You are careful." and r.tools for r in main)
    assert all(r.max_tokens and r.max_tokens <= 1000 and not r.tools and r.system == SUMMARY_SYSTEM
               for r in aux)
    history = runner.session.messages
    assert pairing_problems(history) == []
    head = history[0]
    assert isinstance(head, UserMessage) and head.origin == "summary"
    assert isinstance(head.content[0], SummaryBlock)
    assert "Read the whole document, page by page." in head.text  # the turn's request, verbatim


async def test_chinese_run_compacts_where_chars_over_four_would_not_have() -> None:
    window = 8000
    model = long_run_model(25, window)
    runner = Runner(model, "m", tools=make_tools(CHINESE, 500))
    events = await drive(runner)
    assert done(events).stop_reason == "end_turn"
    first_aux = next(i for i, r in enumerate(model.requests) if r.purpose == "auxiliary")
    before = model.requests[first_aux - 1]  # the last main request before the first compaction
    chars = len(before.system) + sum(len(m.model_dump_json()) for m in before.messages)
    assert chars / 4 < 0.8 * window  # the naive rule would not have compacted yet...
    assert request_tokens(before) > 0.6 * window  # ...though the real count was close to it


async def test_summary_replaces_the_head_and_keeps_the_tail_verbatim() -> None:
    window = 8000
    model = long_run_model(20, window)
    seen: list[list[Message]] = []

    class Spy(Compactor):
        async def after_tool_batch(self, turn):  # type: ignore[override]
            seen.append(turn.requests.session.messages)
            async for event in super().after_tool_batch(turn):
                yield event

    runner = Runner(model, "m", tools=make_tools(ENGLISH, 1800), context=Spy())
    events = await drive(runner)
    first = next(i for i, e in enumerate(events) if isinstance(e, Compaction))
    compaction = events[first]
    before = seen[sum(1 for e in events[:first] if e.type == "tool_end") - 1]
    after = model.requests[[r.purpose for r in model.requests].index("auxiliary") + 1].messages
    summary = after[0]
    assert isinstance(summary, UserMessage) and summary.origin == "summary"
    block = summary.content[0]
    assert isinstance(block, SummaryBlock) and block.replaced_messages == compaction.messages_replaced
    assert block.tokens_before == compaction.tokens_before
    assert block.text.startswith("[Summary of the earlier part")
    kept = before[compaction.messages_replaced :]
    assert [m.id for m in after[1 : 1 + len(kept)]] == [m.id for m in kept]
    assert not isinstance(kept[0], ToolResultMessage)


async def test_compacted_session_file_reloads_to_the_compacted_history(workspace: Path) -> None:
    path = workspace / "s.jsonl"
    session = JsonlSession(path)
    runner = Runner(long_run_model(20, 8000), "m", tools=make_tools(ENGLISH, 1800), session=session)
    events = await drive(runner)
    assert any(isinstance(e, Compaction) for e in events)
    in_memory = session.messages
    session.close()
    reloaded = JsonlSession(path)
    assert reloaded.repair_notes == []
    assert normalise(reloaded.messages) == normalise(in_memory)
    assert [m.id for m in reloaded.messages] == [m.id for m in in_memory]
    assert reloaded.messages[0].origin == "summary"
    assert not list(workspace.glob(".s.jsonl.*.tmp"))  # the rewrite left no temp file
    reloaded.close()


@pytest.mark.parametrize("real_usage", [False, True], ids=["estimated", "anchored-on-real-usage"])
async def test_200_tool_steps_five_windows_of_history_never_exceed_the_window(real_usage: bool) -> None:
    window = 16_000
    steps = 200
    mixed = ENGLISH[:6000] + CHINESE[:1500] + json.dumps({"rows": list(range(400))})
    model = long_run_model(steps, window, real_usage=real_usage)
    runner = Runner(model, "m", tools=make_tools(mixed, 1200), system_prompt="Long-run agent.")
    events = await drive(runner)
    result = done(events)
    assert result.stop_reason == "end_turn", result.error
    assert result.stats.tool_calls == steps
    compactions = [e for e in events if isinstance(e, Compaction)]
    assert len(compactions) >= 3
    # Raw history: every message the run produced, as if nothing had been compacted.
    produced: dict[str, Message] = {}
    for r in model.requests:
        for m in r.messages:
            if not (isinstance(m, UserMessage) and m.origin == "summary"):
                produced[m.id] = m
    raw = sum(message_tokens(m) for m in produced.values())
    assert raw >= 5 * window
    counts = [request_tokens(r) for r in model.requests]
    assert max(counts) <= window, f"a request reached {max(counts)} real tokens"
    assert pairing_problems(runner.session.messages) == []


# -- the cut: property tests ------------------------------------------------------------------


@st.composite
def histories(draw: Any) -> tuple[list[Message], list[int]]:
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(UserMessage(origin="summary", content=[SummaryBlock(text="earlier")]))
    n = 0
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["prompt", "steer", "assistant", "assistant", "assistant"]))
        if kind in ("prompt", "steer"):
            messages.append(user_message(kind, origin=kind))
            continue
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            n += 1
            calls.append(ToolCallBlock(id=f"c{n}", name="t", arguments={}))
        messages.append(AssistantMessage(content=[TextBlock(text="a"), *calls]))
        for c in calls:
            messages.append(ToolResultMessage(tool_call_id=c.id, name="t", content=[TextBlock(text="r")]))
    sizes = draw(st.lists(st.integers(1, 3000), min_size=len(messages), max_size=len(messages)))
    return messages, sizes


@settings(max_examples=300, deadline=None)
@given(histories(), st.integers(0, 20_000))
def test_the_cut_never_parts_a_result_from_its_call(case: Any, budget: int) -> None:
    messages, sizes = case
    assert pairing_problems(messages) == []
    cut = choose_cut(messages, sizes, budget)
    floor = minimal_tail_start(messages)
    assert 0 <= cut <= floor
    if cut == 0:
        return
    assert not isinstance(messages[cut], ToolResultMessage)
    summary = UserMessage(origin="summary", content=[SummaryBlock(text="s")])
    assert pairing_problems([summary, *messages[cut:]]) == []
    if cut < floor:
        assert sum(sizes[cut:]) <= budget
    # Maximal: no earlier legal cut also fits the budget.
    for j in range(1, cut):
        if not isinstance(messages[j], ToolResultMessage):
            assert sum(sizes[j:]) > budget


def _turn_for(history: list[Message], window: int, threshold: float) -> tuple[TurnState, ScriptedModel]:
    model = ScriptedModel(summariser, context_window=window)
    config = RunConfig(compact_threshold=threshold)
    runner = Runner(model, "m", session=InMemorySession(messages=history), config=config)
    turn = TurnState(requests=runner.requests, abort=AbortSignal())
    _RUNNERS[id(turn)] = runner
    return turn, model


_RUNNERS: dict[int, Runner] = {}  # the runner behind each turn _turn_for made


def runner_of(turn: TurnState) -> Runner:
    return _RUNNERS[id(turn)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories(), st.integers(2_000, 30_000), st.floats(0.3, 1.0))
async def test_compaction_of_any_history_at_any_threshold_keeps_pairing(
    case: Any, window: int, threshold: float
) -> None:
    messages, sizes = case
    # Give each message a body of roughly its drawn size, so the estimate is about real text.
    history: list[Message] = []
    for m, size in zip(messages, sizes):
        body = slice_of(ENGLISH, size, size * 4)
        if isinstance(m, ToolResultMessage):
            m = m.model_copy(update={"content": [TextBlock(text=body)]})
        elif isinstance(m, AssistantMessage):
            m = m.model_copy(update={"content": [TextBlock(text=body), *m.tool_calls]})
        history.append(m)
    turn, model = _turn_for(history, window, min(threshold, 1.0))
    compactor = runner_of(turn).context
    assert isinstance(compactor, Compactor)
    events = [e async for e in compactor.after_tool_batch(turn)]
    after = turn.requests.session.messages
    assert pairing_problems(after) == []
    if any(isinstance(e, Compaction) for e in events):
        assert isinstance(after[0], UserMessage) and after[0].origin == "summary"
        kept = after[1:]
        assert [m.id for m in kept] == [m.id for m in history[len(history) - len(kept) :]]
        assert all(r.max_tokens and r.purpose == "auxiliary" for r in model.requests)
    else:
        assert after == history
        assert all(e.type == "warning" for e in events)


# -- the no-gain guard ------------------------------------------------------------------------


async def test_no_gain_guard_skips_the_summary_call_with_a_warning() -> None:
    window = 8000
    big = ENGLISH * 3  # one result larger than the window
    c = ToolCallBlock(id="big", name="fetch", arguments={"step": 1})
    history: list[Message] = [
        user_message("read it"),
        AssistantMessage(content=[TextBlock(text="reading"), ToolCallBlock(id="a", name="fetch", arguments={})]),
        ToolResultMessage(tool_call_id="a", name="fetch", content=[TextBlock(text="short")]),
        AssistantMessage(content=[c]),
        ToolResultMessage(tool_call_id="big", name="fetch", content=[TextBlock(text=big)]),
    ]
    turn, model = _turn_for(history, window, 0.8)
    events = [e async for e in runner_of(turn).context.after_tool_batch(turn)]
    assert [e.type for e in events] == ["warning"]
    assert events[0].code == "compaction_no_gain"
    assert model.requests == []  # no summary call was made
    assert turn.requests.session.messages == history


async def test_below_the_threshold_nothing_happens() -> None:
    history: list[Message] = [user_message("hello"), AssistantMessage(content=[TextBlock(text="hi")])]
    turn, model = _turn_for(history, 8000, 0.8)
    assert [e async for e in runner_of(turn).context.after_tool_batch(turn)] == []
    assert model.requests == [] and turn.requests.session.messages == history


# -- overflow recovery ------------------------------------------------------------------------


def _previous_turns(n: int) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        c = ToolCallBlock(id=f"old{i}", name="fetch", arguments={"step": i})
        out += [
            user_message(f"question {i}"),
            AssistantMessage(content=[TextBlock(text="looking"), c]),
            ToolResultMessage(tool_call_id=c.id, name="fetch", content=[TextBlock(text=slice_of(ENGLISH, i, 1500))]),
            AssistantMessage(content=[TextBlock(text=f"answer {i}")]),
        ]
    return out


async def test_overflow_compacts_then_retries_once_and_succeeds() -> None:
    overflow = ContextOverflowError("prompt is too long: 9000 tokens > 8000", status=400)
    calls = {"main": 0}

    def script(request: ModelRequest) -> Any:
        if request.purpose == "auxiliary":
            return summariser(request)
        calls["main"] += 1
        return overflow if calls["main"] == 1 else reply("fine now")

    model = ScriptedModel(script, context_window=8000)
    runner = Runner(model, "m", session=InMemorySession(messages=_previous_turns(6)))
    events = await drive(runner, "one more question")
    result = done(events)
    assert result.stop_reason == "end_turn" and result.text == "fine now"
    assert [r.purpose for r in model.requests] == ["main", "auxiliary", "main"]
    assert any(isinstance(e, Compaction) for e in events)
    retried = model.requests[-1].messages
    assert retried[0].origin == "summary" and retried[-1].text == "one more question"
    assert pairing_problems(runner.session.messages) == []


async def test_overflow_twice_fails_clearly_and_leaves_a_valid_session() -> None:
    def script(request: ModelRequest) -> Any:
        if request.purpose == "auxiliary":
            return summariser(request)
        return ContextOverflowError("prompt is too long", status=400)

    model = ScriptedModel(script, context_window=8000)
    runner = Runner(model, "m", session=InMemorySession(messages=_previous_turns(6)))
    result = done(await drive(runner, "again"))
    assert result.stop_reason == "error"
    assert result.error is not None and result.error.kind == "ContextOverflowError"
    assert "even after compaction" in result.error.message
    assert [r.purpose for r in model.requests] == ["main", "auxiliary", "main"]  # one retry only
    assert pairing_problems(runner.session.messages) == []


async def test_overflow_with_nothing_to_compact_retries_once_then_fails() -> None:
    model = ScriptedModel([ContextOverflowError("too long"), ContextOverflowError("too long")],
                          context_window=8000)
    runner = Runner(model, "m")
    events = await drive(runner, "x" * 100)
    result = done(events)
    assert result.stop_reason == "error" and result.error.kind == "ContextOverflowError"
    assert any(isinstance(e, Warning) and e.code == "compaction_no_gain" for e in events)
    assert len(model.requests) == 2


async def test_a_failed_summary_call_leaves_the_history_and_warns() -> None:
    from orkas_nb.core.errors import TransientError

    def script(request: ModelRequest) -> Any:
        if request.purpose == "auxiliary":
            return TransientError("upstream 503")
        return reply("ok")

    history = _previous_turns(8)
    turn, _ = _turn_for(history, 4000, 0.5)
    turn.requests.provider = ScriptedModel(script, context_window=4000)
    events = [e async for e in runner_of(turn).context.after_tool_batch(turn)]
    assert [(e.type, e.code) for e in events] == [("warning", "compaction_failed")]
    assert turn.requests.session.messages == history


# -- estimate, config, images -----------------------------------------------------------------


def test_estimate_is_anchored_on_the_last_real_count() -> None:
    history = _previous_turns(2)
    turn, _ = _turn_for(history, 8000, 0.8)
    compactor = runner_of(turn).context
    unanchored = compactor.estimate(turn)
    covered = compactor.estimate(turn, history[:2])
    turn.last_input_tokens = 2 * covered  # the provider counts twice what we estimate
    turn.last_input_anchor = history[1].id
    added = sum(compactor.estimate(turn, [m]) - compactor.estimate(turn, []) for m in history[2:])
    anchored = compactor.estimate(turn)
    assert compactor.scale == pytest.approx(2.0, rel=0.01)
    assert anchored == pytest.approx(2 * covered + 2 * added, rel=0.02)
    turn.last_input_anchor = "gone"  # compaction removed it: a full estimate, at the learnt scale
    assert compactor.estimate(turn) == pytest.approx(2 * unanchored, rel=0.01)


async def test_a_provider_with_a_hungrier_tokenizer_is_kept_inside_its_window() -> None:
    # The window is counted in the provider's tokens; this one counts 1.6x o200k. Its real
    # input counts teach the compactor the ratio, so requests stay inside the window.
    window, factor = 8000, 1.6
    state = {"main": 0}

    def script(request: ModelRequest) -> Any:
        if request.purpose == "auxiliary":
            answer = summariser(request)
        else:
            state["main"] += 1
            n = state["main"]
            answer = reply(f"step {n}", call("fetch", f"c{n}", step=n)) if n <= 40 else reply("done")
        answer.usage = Usage(input_tokens=int(factor * request_tokens(request)), output_tokens=5)
        return answer

    model = ScriptedModel(script, context_window=window)
    runner = Runner(model, "m", tools=make_tools(ENGLISH, 1200))
    events = await drive(runner)
    assert done(events).stop_reason == "end_turn"
    assert sum(isinstance(e, Compaction) for e in events) >= 2
    assert max(factor * request_tokens(r) for r in model.requests) <= window
    assert runner.context.scale == pytest.approx(factor, rel=0.15)


def test_window_comes_from_the_provider_unless_overridden() -> None:
    turn, _ = _turn_for([], 32_000, 0.8)
    assert runner_of(turn).context.window(turn) == 32_000
    runner = Runner(ScriptedModel([], context_window=32_000), "m", config=RunConfig(context_window=10_000))
    assert runner.context.window(TurnState(requests=runner.requests, abort=AbortSignal())) == 10_000
    assert Runner(ScriptedModel([]), "m", config=RunConfig(compaction=False)).context is None


@pytest.mark.parametrize("bad", [{"threshold": 0.0}, {"threshold": 1.5}, {"context_window": 10},
                                 {"keep_ratio": 0.0}, {"overflow_keep_ratio": 1.5}])
def test_bad_compaction_config_is_a_clear_error(bad: dict) -> None:
    with pytest.raises(ValueError):
        CompactionConfig(**bad)


PNG_1x1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==")


@pytest.mark.parametrize("images_ok", [True, False])
async def test_tool_images_move_to_a_user_message_for_text_only_providers(images_ok: bool) -> None:
    @tool(read_only=True)
    def snap() -> ToolOutput:
        """Take a picture."""
        return ToolOutput(text="here it is", images=[ImageBlock(data=PNG_1x1, width=1, height=1)])

    model = ScriptedModel([reply("", call("snap", "s1"), call("snap", "s2")), reply("seen")],
                          images_in_tool_results=images_ok)
    runner = Runner(model, "m", tools=ToolRegistry([snap]))
    assert done(await drive(runner, "look")).stop_reason == "end_turn"
    sent = model.requests[1].messages
    assert pairing_problems(sent) == []
    results = [m for m in sent if isinstance(m, ToolResultMessage)]
    stored = [m for m in runner.session.messages if isinstance(m, ToolResultMessage)]
    assert all(any(isinstance(b, ImageBlock) for b in m.content) for m in stored)  # session keeps them
    if images_ok:
        assert sent == runner.session.messages[: len(sent)]
        return
    assert all(not any(isinstance(b, ImageBlock) for b in m.content) for m in results)
    carriers = sent[-2:]
    assert [m.origin for m in carriers] == ["tool_images", "tool_images"]
    assert all(isinstance(m.content[-1], ImageBlock) for m in carriers)
    assert "s1" in carriers[0].text and "s2" in carriers[1].text
    # Stable objects from one request to the next: the wire cache is never rebuilt.
    again = runner.build_request(runner.session.messages).messages
    assert [id(m) for m in again[: len(sent)]] == [id(m) for m in sent]


async def test_a_turn_that_starts_past_the_threshold_compacts_before_its_first_request() -> None:
    model = ScriptedModel(lambda r: summariser(r) if r.purpose == "auxiliary" else reply("ok"),
                          context_window=4000)
    runner = Runner(model, "m", session=InMemorySession(messages=_previous_turns(10)))
    events = await drive(runner, "next question")
    assert done(events).stop_reason == "end_turn"
    assert [r.purpose for r in model.requests] == ["auxiliary", "main"]
    assert events[0].type == "compaction"
    assert request_tokens(model.requests[-1]) <= 4000
    assert model.requests[-1].messages[-1].text == "next question"


async def test_stop_during_the_summary_call_leaves_the_history_untouched() -> None:
    abort = AbortSignal()
    history = _previous_turns(10)

    def script(request: ModelRequest) -> Any:
        if request.purpose == "auxiliary":
            abort.abort("user pressed Stop")  # lands at the summary stream's next await
            return reply("a summary that never arrives", chunk_chars=2, delay_s=0.05)
        return reply("unreachable")

    session = InMemorySession(messages=history)
    runner = Runner(ScriptedModel(script, context_window=4000), "m", session=session)
    events = [e async for e in runner.run("next", abort=abort)]
    assert done(events).stop_reason == "cancelled"
    assert not any(isinstance(e, Compaction) for e in events)
    assert session.messages[: len(history)] == history
    assert not any(getattr(m, "origin", None) == "summary" for m in session.messages)
    assert pairing_problems(session.messages) == []


# -- over the real OpenAI wire on loopback ------------------------------------------------------


def _over_loopback(wire: str) -> Any:
    from orkas_nb.providers.anthropic_messages import AnthropicProvider
    from orkas_nb.providers.auth import StaticKey
    from orkas_nb.providers.catalog import Catalog
    from orkas_nb.providers.openai_chat import OpenAIChatProvider
    from tests.fakes.model_server import ModelServer

    server = ModelServer().start()
    catalog = Catalog({"tiny": {"context_window": 16_000, "max_output": 4_000}})
    if wire == "openai":
        provider: Any = OpenAIChatProvider(base_url=server.openai_url, token_source=StaticKey("k"),
                                           catalog=catalog)
    else:
        provider = AnthropicProvider(base_url=server.anthropic_url, token_source=StaticKey("k"),
                                     catalog=catalog)
    return server, provider


@pytest.fixture
def openai_over_loopback() -> Any:
    server, provider = _over_loopback("openai")
    try:
        yield server, provider
    finally:
        server.stop()


@pytest.fixture(params=["openai", "anthropic"])
def wire_over_loopback(request: Any) -> Any:
    server, provider = _over_loopback(request.param)
    try:
        yield request.param, server, provider
    finally:
        server.stop()


async def test_http_400_context_overflow_compacts_and_retries_over_the_wire(wire_over_loopback) -> None:
    from tests.fakes.model_server import Fault
    from tests.fakes.model_server import Reply as WireReply

    wire, server, provider = wire_over_loopback
    server.push(Fault.status(400), WireReply(text="Summary: six earlier questions answered."),
                WireReply(text="fine now"))
    runner = Runner(provider, "tiny", session=InMemorySession(messages=_previous_turns(6)),
                    system_prompt="You are careful.")
    events = await drive(runner, "one more question")
    result = done(events)
    assert result.stop_reason == "end_turn" and result.text == "fine now", result.error
    assert any(isinstance(e, Compaction) for e in events)
    bodies = [r.json for r in server.posts()]
    assert len(bodies) == 3
    main, summary_call, retry = bodies
    assert "tools" not in summary_call or not summary_call["tools"]
    if wire == "openai":
        assert summary_call["messages"][0] == {"role": "system", "content": SUMMARY_SYSTEM}
        assert summary_call["max_completion_tokens"] == 2000
        assert "max_completion_tokens" not in main and "max_completion_tokens" not in retry
        assert retry["messages"][0] == {"role": "system", "content": "You are careful."}
        first, last = retry["messages"][1], retry["messages"][-1]
        assert first["content"].startswith("[Summary of the earlier part")
        assert last == {"role": "user", "content": "one more question"}
    else:
        assert SUMMARY_SYSTEM in json.dumps(summary_call["system"])
        assert summary_call["max_tokens"] == 2000
        assert main["max_tokens"] == retry["max_tokens"] == 4000  # the model's own maximum
        assert "You are careful." in json.dumps(retry["system"])
        assert "[Summary of the earlier part" in json.dumps(retry["messages"][0], ensure_ascii=False)
        assert "one more question" in json.dumps(retry["messages"][-1])


async def test_tool_images_reach_a_text_only_wire_as_a_user_message(openai_over_loopback) -> None:
    from tests.fakes.model_server import Reply as WireReply
    from tests.fakes.model_server import ToolCall as WireCall

    @tool(read_only=True)
    def snap() -> ToolOutput:
        """Take a picture."""
        return ToolOutput(text="here it is", images=[ImageBlock(data=PNG_1x1, width=1, height=1)])

    server, provider = openai_over_loopback
    server.push(WireReply(tool_calls=[WireCall(name="snap", id="s1")]), WireReply(text="a red dot"))
    runner = Runner(provider, "tiny", tools=ToolRegistry([snap]))
    assert done(await drive(runner, "look")).text == "a red dot"
    sent = server.posts()[1].json["messages"]
    tool_msg, carrier = sent[-2], sent[-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "s1"
    assert "image" not in json.dumps(tool_msg["content"]).replace("image(s) follow", "")
    assert carrier["role"] == "user"
    assert carrier["content"][-1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_the_image_mover_sees_images_that_arrive_later_and_that_a_rewrite_removes() -> None:
    from orkas_nb.harness.tool_images import ImageMover, move_tool_images

    plain = [user_message("hi"), AssistantMessage(content=[call("snap", "s1")]),
             ToolResultMessage(tool_call_id="s1", name="snap", content=[TextBlock(text="none")])]
    with_image = ToolResultMessage(tool_call_id="s2", name="snap",
                                   content=[ImageBlock(data=PNG_1x1, width=1, height=1)])
    grown = [*plain, AssistantMessage(content=[call("snap", "s2")]), with_image]
    mover = ImageMover()
    assert mover.move(plain) == plain
    assert mover.move(grown) == move_tool_images(grown) != grown  # found among the new ones
    assert mover.move(grown[:3]) == plain  # a history without the image again (rewrite)


async def test_a_step_far_from_the_window_skips_the_estimator_and_one_near_it_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    history = _previous_turns(2)
    turn, _ = _turn_for(history, window=100_000, threshold=0.8)
    compactor = runner_of(turn).context
    estimates: list[int] = []
    real_estimate = compactor.estimate
    monkeypatch.setattr(compactor, "estimate", lambda t, m=None: estimates.append(1) or real_estimate(t, m))
    turn.last_input_anchor = history[-3].id  # the real count covered up to there; 2 messages added
    turn.last_input_tokens = 1_000
    assert [e async for e in compactor.after_tool_batch(turn)] == []
    assert estimates == []  # 1,000 + 3 x (a bound of two short messages) is far below 80,000
    turn.last_input_tokens = 79_000  # the bound no longer proves it: estimate, then decide
    assert [e async for e in compactor.after_tool_batch(turn)] == []
    assert estimates == [1]
    turn.last_input_tokens = None  # no real count (a new turn): cached system and tool
    assert [e async for e in compactor.after_tool_batch(turn)] == []  # estimates + a length bound
    assert estimates == [1]
    # A window whose threshold is twice the history's estimate: the bound (3x) no longer
    # proves it, the estimator does, and nothing is compacted.
    compactor.scale = 1.0  # uncalibrated, as a new agent's (the real counts above moved it)
    compactor.config.context_window = int(2 * estimate_messages(history) / 0.8)
    assert [e async for e in compactor.after_tool_batch(turn)] == []
    assert estimates == [1, 1]
