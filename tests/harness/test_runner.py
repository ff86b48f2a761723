"""The runner against the real code path: tool loops, validation, batching, loop guard."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from orkas_nb.core.events import Done, RunResult, ToolEnd, Warning
from orkas_nb.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from orkas_nb.harness import InMemorySession, JsonlSession, Runner, ToolRegistry, tool
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.harness.tool_protocol import ToolOutput
from orkas_nb.testing import ScriptedModel, call, reply
from tests.conftest import normalise


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


async def collect(runner: Runner, prompt: str) -> list:
    return [e async for e in runner.run(prompt)]


def result_of(events: list) -> RunResult:
    assert isinstance(events[-1], Done)
    return events[-1].result


async def test_multi_step_tool_loop_threads_results_back_to_the_model() -> None:
    model = ScriptedModel([
        reply("first", call("add", "c1", a=1, b=2)),
        reply("second", call("add", "c2", a=3, b=4)),
        reply("The sums are 3 and 7."),
    ])
    runner = Runner(model, "m", tools=ToolRegistry([add]))
    events = await collect(runner, "add things")
    result = result_of(events)
    assert result.stop_reason == "end_turn"
    assert result.text == "The sums are 3 and 7."
    assert result.stats.model_requests == 3 and result.stats.tool_calls == 2
    # The model saw each result on the next request, paired with its call.
    second_request = model.requests[1].messages
    assert isinstance(second_request[-1], ToolResultMessage)
    assert second_request[-1].tool_call_id == "c1" and second_request[-1].text == "3"
    assert model.requests[2].messages[-1].text == "7"
    assert [e.type for e in events if e.type in ("tool_start", "tool_end")] == [
        "tool_start", "tool_end", "tool_start", "tool_end"
    ]
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert [m.role for m in runner.session.messages] == [
        "user", "assistant", "tool", "assistant", "tool", "assistant"
    ]
    assert pairing_problems(runner.session.messages) == []
    # Provenance is recorded on each assistant message.
    for m in runner.session.messages:
        if isinstance(m, AssistantMessage):
            assert (m.provider, m.model) == ("scripted", "m")


def script() -> list:
    return [
        reply("looking", call("add", "c1", a=1, b=1), call("add", "c2", a=2, b=2)),
        reply("bad", call("nope", "c3")),
        reply("All done: 2 and 4."),
    ]


async def test_streaming_and_non_streaming_give_the_same_transcript() -> None:
    streamed = Runner(ScriptedModel(script()), "m", tools=ToolRegistry([add]))
    events = await collect(streamed, "go")
    drained = Runner(ScriptedModel(script()), "m", tools=ToolRegistry([add]))
    result = await drained.run_to_end("go")
    assert normalise(streamed.session.messages) == normalise(drained.session.messages)
    a, b = result_of(events), result
    assert (a.text, a.stop_reason, a.stats) == (b.text, b.stop_reason, b.stats)
    # Streamed text deltas add up to exactly the saved assistant texts.
    streamed_text = "".join(e.text for e in events if e.type == "text_delta")
    saved_text = "".join(m.text for m in streamed.session.messages if isinstance(m, AssistantMessage))
    assert streamed_text == saved_text


@pytest.mark.parametrize(
    "bad_call, reason",
    [
        (call("unknown_tool", "x1", a=1), "unknown tool 'unknown_tool'"),
        (call("add", "x1", a="not a number", b=2), "invalid arguments for add"),
        (call("add", "x1", a=1), "invalid arguments for add"),  # missing b
        (call("add", "x1", a=1, b=2, c=3), "invalid arguments for add"),  # extra field
        (call("add", "x1", _raw='{"a": 1, "b":'), "not valid JSON"),
        (call("add", "", a=1, b=2), "the call had no id"),
    ],
)
async def test_invalid_proposals_become_rejections_and_nothing_runs(bad_call, reason) -> None:
    ran: list[dict] = []

    @tool
    def add(a: int, b: int) -> int:  # noqa: F811 - a recording twin of the module's add
        """Add."""
        ran.append({"a": a, "b": b})
        return a + b

    model = ScriptedModel([reply("", bad_call), reply("ok")])
    runner = Runner(model, "m", tools=ToolRegistry([add]))
    events = await collect(runner, "go")
    assert ran == []
    end = next(e for e in events if isinstance(e, ToolEnd))
    assert end.status == "rejected" and reason in end.result
    assert end.result.startswith("Rejected, nothing was run")
    result = result_of(events)
    assert result.stats.rejections == 1 and result.stop_reason == "end_turn"
    assert pairing_problems(runner.session.messages) == []
    # The model saw the rejection as the observation for its call.
    observed = model.requests[1].messages[-1]
    assert isinstance(observed, ToolResultMessage) and observed.status == "rejected"


async def test_a_repeated_call_id_is_rejected_and_the_history_stays_paired() -> None:
    ran: list[int] = []

    @tool
    def mark(n: int) -> str:
        """Mark."""
        ran.append(n)
        return "marked"

    model = ScriptedModel([reply("", call("mark", "dup", n=1), call("mark", "dup", n=2)), reply("ok")])
    runner = Runner(model, "m", tools=ToolRegistry([mark]))
    events = await collect(runner, "go")
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [e.status for e in ends] == ["ok", "rejected"]
    assert "repeated id 'dup'" in ends[1].result
    assert ran == [1]
    ids = [c.id for c in runner.session.messages[1].tool_calls]
    assert ids[0] == "dup" and ids[1] != "dup"
    assert pairing_problems(runner.session.messages) == []


async def test_tool_failures_are_observations_and_counted() -> None:
    @tool
    def explode() -> str:
        """Always fails."""
        raise ValueError("kaboom")

    @tool
    def soft_fail() -> ToolOutput:
        """Reports an error without raising."""
        return ToolOutput(text="no such thing", is_error=True)

    model = ScriptedModel([reply("", call("explode", "e1"), call("soft_fail", "e2")), reply("recovered")])
    runner = Runner(model, "m", tools=ToolRegistry([explode, soft_fail]))
    events = await collect(runner, "go")
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [(e.status, e.result) for e in ends] == [
        ("error", "Error: ValueError: kaboom"),
        ("error", "no such thing"),
    ]
    result = result_of(events)
    assert result.stop_reason == "end_turn" and result.text == "recovered"
    assert result.stats.tool_failures == 2


async def test_read_only_calls_overlap_and_a_write_call_is_a_barrier() -> None:
    log: list[str] = []
    gate = asyncio.Event()

    def make_reader(name: str):
        @tool(name=name, read_only=True)
        async def reader() -> str:
            """Reads."""
            log.append(f"start {name}")
            # Each reader waits until both have started: only true overlap lets this finish.
            if sum(1 for x in log if x.startswith("start r")) >= 2:
                gate.set()
            await asyncio.wait_for(gate.wait(), timeout=5)
            log.append(f"end {name}")
            return name

        return reader

    @tool(name="w")
    async def writer() -> str:
        """Writes."""
        log.append("start w")
        await asyncio.sleep(0.01)
        log.append("end w")
        return "w"

    @tool(name="r3", read_only=True)
    async def reader3() -> str:
        """Reads after the write."""
        log.append("start r3")
        log.append("end r3")
        return "r3"

    tools = ToolRegistry([make_reader("r1"), make_reader("r2"), writer, reader3])
    model = ScriptedModel([
        reply("", call("r1", "a"), call("r2", "b"), call("w", "c"), call("r3", "d")),
        reply("done"),
    ])
    runner = Runner(model, "m", tools=tools)
    await collect(runner, "go")
    # r1 and r2 both started before either ended; the write ran alone, after both.
    assert log[:2] == ["start r1", "start r2"]
    assert set(log[2:4]) == {"end r1", "end r2"}
    assert log[4:] == ["start w", "end w", "start r3", "end r3"]
    # Results are saved in declared order whatever the completion order.
    results = [m for m in runner.session.messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["a", "b", "c", "d"]


async def test_results_keep_declared_order_when_completion_order_differs() -> None:
    @tool(read_only=True)
    async def slow(delay: float, label: str) -> str:
        """Sleeps then answers."""
        await asyncio.sleep(delay)
        return label

    model = ScriptedModel([
        reply("", call("slow", "1", delay=0.05, label="first"), call("slow", "2", delay=0.0, label="second")),
        reply("done"),
    ])
    runner = Runner(model, "m", tools=ToolRegistry([slow]))
    await collect(runner, "go")
    results = [m.text for m in runner.session.messages if isinstance(m, ToolResultMessage)]
    assert results == ["first", "second"]


async def test_loop_guard_reminds_at_third_and_stops_at_fifth_identical_call() -> None:
    @tool(read_only=True)
    def peek(path: str) -> str:
        """Peek."""
        return "same"

    same = lambda: reply("", call("peek", path="a.txt"))  # noqa: E731
    model = ScriptedModel([same(), same(), same(), same(), same(), reply("never reached")])
    runner = Runner(model, "m", tools=ToolRegistry([peek]))
    events = await collect(runner, "go")
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert len(ends) == 5
    assert "loop guard" not in ends[1].result
    assert "loop guard" in ends[2].result and ends[2].status == "ok"  # 3rd: reminder, still runs
    assert "loop guard" in ends[3].result  # 4th: reminder again
    assert ends[4].status == "rejected" and "not run" in ends[4].result  # 5th: not run
    result = result_of(events)
    assert result.stop_reason == "loop_guard"
    assert model.remaining == 1
    assert any(isinstance(e, Warning) and e.code == "loop_guard" for e in events)
    assert pairing_problems(runner.session.messages) == []


async def test_loop_guard_resets_on_a_different_signature() -> None:
    @tool(read_only=True)
    def peek(path: str) -> str:
        """Peek."""
        return "x"

    p = lambda path: reply("", call("peek", path=path))  # noqa: E731
    script = [p("a"), p("a"), p("b"), p("a"), p("a"), p("a"), p("a"), reply("end")]
    runner = Runner(ScriptedModel(script), "m", tools=ToolRegistry([peek]))
    events = await collect(runner, "go")
    ends = [e for e in events if isinstance(e, ToolEnd)]
    reminded = ["loop guard" in e.result for e in ends]
    # a a | b | a a a a : reminders only on the 3rd and 4th 'a' after the reset.
    assert reminded == [False, False, False, False, False, True, True]
    assert result_of(events).stop_reason == "end_turn"


async def test_max_steps_stops_a_runaway_turn() -> None:
    from orkas_nb.harness import RunConfig

    @tool(read_only=True)
    def tick(n: int) -> str:
        """Tick."""
        return str(n)

    model = ScriptedModel(lambda req: reply("", call("tick", n=len(req.messages))))
    runner = Runner(model, "m", tools=ToolRegistry([tick]), config=RunConfig(max_steps=4))
    result = await runner.run_to_end("go")
    assert result.stop_reason == "max_steps" and result.stats.model_requests == 4
    assert pairing_problems(runner.session.messages) == []


async def test_provider_error_ends_the_turn_with_the_error_and_a_valid_session() -> None:
    from orkas_nb.core.errors import RequestError

    model = ScriptedModel([reply("", call("add", "c1", a=1, b=1)), RequestError("bad request", status=400)])
    runner = Runner(model, "m", tools=ToolRegistry([add]))
    result = await runner.run_to_end("go")
    assert result.stop_reason == "error"
    assert result.error is not None and result.error.kind == "RequestError"
    assert result.error.action == "surface"
    assert pairing_problems(runner.session.messages) == []


async def test_a_second_concurrent_turn_on_one_runner_is_refused() -> None:
    model = ScriptedModel([reply("slow " * 20, delay_s=0.01), reply("x")])
    runner = Runner(model, "m")
    gen = runner.run("one")
    await gen.__anext__()
    with pytest.raises(RuntimeError, match="already running"):
        await runner.run("two").__anext__()
    await gen.aclose()
    assert not runner.running


async def test_the_user_message_is_saved_once_before_the_model_is_asked(tmp_path: Path) -> None:
    from orkas_nb.core.errors import TransientError

    session = JsonlSession(tmp_path / "s.jsonl")
    runner = Runner(ScriptedModel([TransientError("reset")]), "m", session=session)
    result = await runner.run_to_end("keep me")
    assert result.stop_reason == "error"
    lines = (tmp_path / "s.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["content"][0]["text"] == "keep me"
    session.close()


async def test_in_memory_and_file_sessions_hold_the_same_history(tmp_path: Path) -> None:
    mem = Runner(ScriptedModel(script()), "m", tools=ToolRegistry([add]), session=InMemorySession())
    await mem.run_to_end("go")
    disk_session = JsonlSession(tmp_path / "s.jsonl")
    disk = Runner(ScriptedModel(script()), "m", tools=ToolRegistry([add]), session=disk_session)
    await disk.run_to_end("go")
    disk_session.close()
    reloaded = JsonlSession(tmp_path / "s.jsonl", readonly=True)
    assert normalise(mem.session.messages) == normalise(reloaded.messages)
    assert isinstance(reloaded.messages[0], UserMessage)


def test_tools_built_again_from_the_same_function_share_their_schema_but_not_defaults() -> None:
    from orkas_nb.harness.tool_protocol import FunctionTool

    def make(limit: int):
        def peek(path: str, n: int = limit) -> str:
            """Peek.

            Args:
                path: the file
                n: how many lines
            """
            return path

        return FunctionTool(peek, read_only=True)

    a, b, c = make(10), make(10), make(20)
    assert a.input_schema is b.input_schema  # built once for the same code and defaults
    assert c.input_schema["properties"]["n"]["default"] == 20  # other defaults, other schema
    assert a.validate({"path": "x"}) == {"path": "x", "n": 10}
    assert c.validate({"path": "x"}) == {"path": "x", "n": 20}


async def test_usage_events_carry_the_growing_turn_total_before_done() -> None:
    from orkas_nb.core.events import UsageUpdate
    from orkas_nb.core.messages import Usage

    model = ScriptedModel([
        reply("step", call("add", "u1", a=1, b=2), usage=Usage(input_tokens=100, output_tokens=10,
                                                               cache_read_tokens=40)),
        reply("done", usage=Usage(input_tokens=130, output_tokens=7)),
    ])
    events = await collect(Runner(model, "gpt-4o", tools=ToolRegistry([add])), "go")
    updates = [e for e in events if isinstance(e, UsageUpdate)]
    assert [(u.usage.input_tokens, u.usage.output_tokens, u.model_requests) for u in updates] == [
        (100, 10, 1), (230, 17, 2)]
    assert updates[0].usage.cache_read_tokens == 40 and updates[0].model == "gpt-4o"
    # Each arrives right after its response: before that response's tools run, and before done.
    kinds = [e.type for e in events]
    assert kinds.index("usage") < kinds.index("tool_start")
    assert kinds[-2:] == ["usage", "done"]
    assert result_of(events).usage == updates[-1].usage
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs)  # the emitter numbers them like every other event


@pytest.mark.parametrize("name", ["read file", "x" * 65, "lire_le_fichier_é", "a.b", "path/to"])
def test_a_tool_name_the_model_apis_refuse_is_refused_at_registration(name: str) -> None:
    def fn(path: str) -> str:
        return path

    with pytest.raises(ValueError, match="not accepted by the model APIs"):
        tool(fn, name=name)
    ToolRegistry([tool(fn, name="read_file-2")])  # letters, digits, '_' and '-' pass


def test_a_tool_of_another_kind_with_a_bad_name_is_refused_by_the_registry() -> None:
    class Odd:
        name, description, input_schema, read_only = "two words", "", {"type": "object"}, True

        async def execute(self, arguments, ctx):  # type: ignore[no-untyped-def]
            return "x"

    with pytest.raises(ValueError, match="not accepted by the model APIs"):
        ToolRegistry([Odd()])  # type: ignore[list-item]
