"""Interrupt-steer: a message queued mid-run is folded in at the next tool-loop boundary.

Boundaries: after a whole tool batch (never between a call and its result), or when the
model answers without calls (the turn goes on instead of ending). Steer is thread- and
task-safe; a steer that misses the last boundary (stop, error, limit) is still saved.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from orkas_nb import Agent
from orkas_nb.core.errors import TransientError
from orkas_nb.core.events import Steer
from orkas_nb.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from orkas_nb.harness import InMemorySession, JsonlSession, RunConfig, Runner, ToolRegistry, tool
from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.testing import ScriptedModel, call, reply


class Gate:
    """A tool that waits until the test lets it finish, so steers land mid-batch."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.calls = 0

    def registry(self) -> ToolRegistry:
        return ToolRegistry([self.tool()])

    def tool(self) -> object:
        gate = self

        @tool(read_only=True)
        async def wait(n: int) -> str:
            """Wait for the test.

            Args:
                n: a label
            """
            gate.calls += 1
            gate.started.set()
            await gate.release.wait()
            return f"waited {n}"

        return wait


async def test_steer_during_a_tool_batch_is_folded_after_all_its_results() -> None:
    gate = Gate()
    model = ScriptedModel([
        reply("two at once", call("wait", "a", n=1), call("wait", "b", n=2)),
        reply("noted the steer"),
    ])
    runner = Runner(model, "m", tools=gate.registry())
    events: list = []

    async def consume() -> None:
        async for e in runner.run("go"):
            events.append(e)

    task = asyncio.create_task(consume())
    await asyncio.wait_for(gate.started.wait(), 5)
    runner.steer("also check the totals")
    gate.release.set()
    await asyncio.wait_for(task, 5)
    assert events[-1].result.stop_reason == "end_turn"
    history = runner.session.messages
    roles = [(m.role, getattr(m, "origin", None)) for m in history]
    assert roles == [
        ("user", "prompt"), ("assistant", None), ("tool", None), ("tool", None),
        ("user", "steer"), ("assistant", None),
    ]
    assert history[4].text == "also check the totals"
    # The model saw the steer on the very next request, after both results.
    second = model.requests[1].messages
    assert isinstance(second[-1], UserMessage) and second[-1].origin == "steer"
    assert all(isinstance(m, ToolResultMessage) for m in second[-3:-1])
    steer_events = [e for e in events if isinstance(e, Steer)]
    assert [e.text for e in steer_events] == ["also check the totals"]
    # The event comes after the batch's tool_end events and before the next text.
    types = [e.type for e in events]
    assert types.index("steer") > max(i for i, t in enumerate(types) if t == "tool_end")
    assert types.index("steer") < len(types) - 1 - types[::-1].index("text_delta")
    assert pairing_problems(history) == []
    assert model.remaining == 0  # one turn, not a separate one


async def test_steer_from_another_thread_is_folded() -> None:
    gate = Gate()
    model = ScriptedModel([reply("", call("wait", "a", n=1)), reply("done")])
    runner = Runner(model, "m", tools=gate.registry())
    task = asyncio.create_task(runner.run_to_end("go"))
    await asyncio.wait_for(gate.started.wait(), 5)
    errors: list[BaseException] = []

    def from_thread() -> None:
        try:
            runner.steer("from a thread")
        except (RuntimeError, ValueError) as exc:  # reported below
            errors.append(exc)

    t = threading.Thread(target=from_thread)
    t.start()
    t.join(5)
    gate.release.set()
    result = await asyncio.wait_for(task, 5)
    assert errors == [] and result.stop_reason == "end_turn"
    assert [m.text for m in runner.session.messages if getattr(m, "origin", None) == "steer"] == ["from a thread"]


async def test_many_threads_steering_at_once_each_message_folded_exactly_once() -> None:
    gate = Gate()
    model = ScriptedModel([reply("", call("wait", "a", n=1)), reply("ok")])
    runner = Runner(model, "m", tools=gate.registry())
    task = asyncio.create_task(runner.run_to_end("go"))
    await asyncio.wait_for(gate.started.wait(), 5)

    def burst(k: int) -> None:
        for i in range(50):
            runner.steer(f"t{k}-{i}")

    threads = [threading.Thread(target=burst, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    gate.release.set()
    await asyncio.wait_for(task, 10)
    folded = [m.text for m in runner.session.messages if getattr(m, "origin", None) == "steer"]
    assert sorted(folded) == sorted(f"t{k}-{i}" for k in range(4) for i in range(50))
    for k in range(4):  # each thread's messages keep their order
        mine = [x for x in folded if x.startswith(f"t{k}-")]
        assert mine == [f"t{k}-{i}" for i in range(50)]


async def test_steer_during_the_final_answer_continues_the_same_turn() -> None:
    model = ScriptedModel([
        reply("Here is my final answer, streamed slowly.", chunk_chars=4, delay_s=0.01),
        reply("Revised with your note."),
    ])
    runner = Runner(model, "m")
    events: list = []

    async def consume() -> None:
        async for e in runner.run("answer"):
            events.append(e)
            if e.type == "text_delta" and len([x for x in events if x.type == "text_delta"]) == 2:
                runner.steer("make it shorter")

    await asyncio.wait_for(consume(), 5)
    result = events[-1].result
    assert result.stop_reason == "end_turn" and result.text == "Revised with your note."
    assert result.stats.model_requests == 2
    last_request = model.requests[1].messages
    assert isinstance(last_request[-2], AssistantMessage)
    assert last_request[-1].origin == "steer" and last_request[-1].text == "make it shorter"


async def test_steer_is_refused_clearly_when_no_turn_runs() -> None:
    runner = Runner(ScriptedModel([reply("hi")]), "m")
    with pytest.raises(RuntimeError, match="no turn is running"):
        runner.steer("too early")
    await runner.run_to_end("hello")
    with pytest.raises(RuntimeError, match="no turn is running"):
        runner.steer("too late")
    assert not any(getattr(m, "origin", None) == "steer" for m in runner.session.messages)


@pytest.mark.parametrize("bad", ["", "   ", None, 42])
async def test_steer_rejects_empty_or_non_text(bad: object) -> None:
    gate = Gate()
    runner = Runner(ScriptedModel([reply("", call("wait", "a", n=1)), reply("ok")]), "m", tools=gate.registry())
    task = asyncio.create_task(runner.run_to_end("go"))
    await asyncio.wait_for(gate.started.wait(), 5)
    with pytest.raises(ValueError, match="non-empty"):
        runner.steer(bad)  # type: ignore[arg-type]
    gate.release.set()
    await asyncio.wait_for(task, 5)


async def test_a_steer_that_misses_the_boundary_because_of_stop_is_kept(tmp_path) -> None:
    gate = Gate()
    session = JsonlSession(tmp_path / "s.jsonl")
    runner = Runner(ScriptedModel([reply("", call("wait", "a", n=1)), reply("never")]), "m",
                    tools=gate.registry(), session=session)
    abort = AbortSignal()
    events: list = []

    async def consume() -> None:
        async for e in runner.run("go", abort=abort):
            events.append(e)

    task = asyncio.create_task(consume())
    await asyncio.wait_for(gate.started.wait(), 5)
    runner.steer("actually, stop and do X")
    abort.abort("user pressed Stop")
    await asyncio.wait_for(task, 5)
    assert events[-1].result.stop_reason == "cancelled"
    assert [e.text for e in events if isinstance(e, Steer)] == ["actually, stop and do X"]
    history = session.messages
    assert pairing_problems(history) == []
    assert history[-2].status == "interrupted" and history[-1].origin == "steer"
    session.close()
    reloaded = JsonlSession(tmp_path / "s.jsonl")
    assert reloaded.messages[-1].text == "actually, stop and do X"
    reloaded.close()
    # The queue is empty: the next turn does not see the message a second time.
    runner.session = InMemorySession()
    runner.provider = ScriptedModel([reply("fresh")])
    await runner.run_to_end("new turn")
    assert [m.origin for m in runner.session.messages if isinstance(m, UserMessage)] == ["prompt"]


async def test_a_steer_that_misses_the_boundary_because_of_an_error_is_kept() -> None:
    failing = reply("partial answer that will be cut", chunk_chars=3, delay_s=0.01,
                    fail_after_chunks=TransientError("upstream died"))
    runner = Runner(ScriptedModel([failing]), "m")
    events: list = []
    async for e in runner.run("go"):
        events.append(e)
        if e.type == "text_delta" and sum(x.type == "text_delta" for x in events) == 1:
            runner.steer("one more thing")
    result = events[-1].result
    assert result.stop_reason == "error" and result.error.kind == "TransientError"
    assert [e.type for e in events[-2:]] == ["steer", "done"]
    history = runner.session.messages
    assert history[-1].origin == "steer" and history[-1].text == "one more thing"
    assert pairing_problems(history) == []


async def test_a_steer_folded_at_the_last_boundary_before_a_limit_is_in_the_session() -> None:
    gate = Gate()
    model = ScriptedModel([reply("", call("wait", "a", n=1)), reply("never asked")])
    runner = Runner(model, "m", tools=gate.registry(), config=RunConfig(max_steps=1))
    task = asyncio.create_task(runner.run_to_end("go"))
    await asyncio.wait_for(gate.started.wait(), 5)
    runner.steer("one more thing")
    gate.release.set()
    result = await asyncio.wait_for(task, 5)
    assert result.stop_reason == "max_steps"
    assert runner.session.messages[-1].origin == "steer"


async def test_steer_racing_the_end_of_the_turn_is_never_lost() -> None:
    # A thread steers in a tight loop while turns end; each steer is either accepted (and then
    # folded into the turn) or refused with RuntimeError. Nothing is silently dropped.
    for round_ in range(10):
        model = ScriptedModel(lambda request: reply("ok"))
        runner = Runner(model, "m")
        accepted: list[str] = []
        stop = threading.Event()

        def hammer(runner: Runner = runner, accepted: list[str] = accepted,
                   stop: threading.Event = stop) -> None:
            for i in range(400):
                if stop.is_set():
                    break
                try:
                    runner.steer(f"s{i}")
                    accepted.append(f"s{i}")
                except RuntimeError:
                    pass
                time.sleep(0.0002)

        t = threading.Thread(target=hammer)
        t.start()
        result = await runner.run_to_end("go")
        stop.set()
        t.join(5)
        assert result.stop_reason == "end_turn"
        folded = [m.text for m in runner.session.messages if getattr(m, "origin", None) == "steer"]
        assert folded == accepted, f"round {round_}"
        assert pairing_problems(runner.session.messages) == []


async def test_agent_steer_reaches_the_running_turn(tmp_path) -> None:
    gate = Gate()
    model = ScriptedModel([reply("", call("wait", "a", n=1)), reply("ok")])
    agent = Agent(model, workspace=tmp_path, tools=[gate.tool()], default_tools=False)
    task = asyncio.create_task(agent.arun("go"))
    await asyncio.wait_for(gate.started.wait(), 5)
    agent.steer("via the facade")
    gate.release.set()
    assert (await asyncio.wait_for(task, 5)).stop_reason == "end_turn"
    assert agent.messages[-2].origin == "steer"
