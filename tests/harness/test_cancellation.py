"""Stop lands at any await, ends the turn at once, and leaves a session that passes pairing."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from orkas_nb.core.errors import StateError
from orkas_nb.core.events import Done, TextDelta, ToolEnd, ToolStart
from orkas_nb.core.messages import AssistantMessage, ToolResultMessage
from orkas_nb.harness import AbortSignal, JsonlSession, Runner, ToolRegistry, tool
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.testing import ScriptedModel, call, reply


async def test_stop_mid_stream_keeps_partial_text_and_a_valid_session(tmp_path: Path) -> None:
    session = JsonlSession(tmp_path / "s.jsonl")
    model = ScriptedModel([reply("word " * 200, chunk_chars=5, delay_s=0.005)])
    runner = Runner(model, "m", session=session)
    abort = AbortSignal()
    events = []
    async for event in runner.run("talk", abort=abort):
        events.append(event)
        if sum(isinstance(e, TextDelta) for e in events) == 5:
            abort.abort("stop pressed")
    done = events[-1]
    assert isinstance(done, Done) and done.result.stop_reason == "cancelled"
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert 0 < len(streamed) < len("word " * 200)
    session.close()
    reloaded = JsonlSession(tmp_path / "s.jsonl", readonly=True)
    last = reloaded.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "cancelled"
    assert last.text == streamed  # what the user saw is what was kept
    assert pairing_problems(reloaded.messages) == []


async def test_stop_mid_tool_closes_open_calls_with_interrupted_results(tmp_path: Path) -> None:
    started = asyncio.Event()
    finished: list[str] = []

    @tool
    async def long_job() -> str:
        """Takes a long time."""
        started.set()
        await asyncio.sleep(30)
        finished.append("long_job")
        return "never"

    @tool(read_only=True)
    def quick() -> str:
        """Fast."""
        return "quick result"

    session = JsonlSession(tmp_path / "s.jsonl")
    model = ScriptedModel([
        reply("", call("quick", "q1"), call("long_job", "L1"), call("quick", "q2")),
        reply("unreachable"),
    ])
    runner = Runner(model, "m", tools=ToolRegistry([quick, long_job]), session=session)
    abort = AbortSignal()
    events = []
    t0 = 0.0

    async def press_stop_once_the_tool_runs() -> None:
        nonlocal t0
        await started.wait()  # another task: the consumer below keeps reading, so the turn advances
        t0 = time.perf_counter()
        abort.abort("user pressed stop")

    pressing = asyncio.ensure_future(press_stop_once_the_tool_runs())
    async for event in runner.run("go", abort=abort):
        events.append(event)
    await pressing
    elapsed = time.perf_counter() - t0
    assert elapsed < 1.0  # the bound a user feels, with a wide margin
    assert events[-1].result.stop_reason == "cancelled"
    assert finished == []
    session.close()
    reloaded = JsonlSession(tmp_path / "s.jsonl", readonly=True)
    assert pairing_problems(reloaded.messages) == []
    results = {m.tool_call_id: m for m in reloaded.messages if isinstance(m, ToolResultMessage)}
    assert results["q1"].status == "ok"
    assert results["L1"].status == "interrupted" and "user pressed stop" in results["L1"].text
    assert results["q2"].status == "interrupted"
    assert reloaded.repair_notes == []  # the runner closed the calls itself; no repair was needed


async def test_stop_from_another_thread() -> None:
    # 20 s of streaming unless stopped; the thread presses Stop once the answer streams
    model = ScriptedModel([reply("tick " * 10000, chunk_chars=5, delay_s=0.002)])
    runner = Runner(model, "m")
    abort = AbortSignal()
    streaming, pressed = threading.Event(), [0.0]

    def press() -> None:
        streaming.wait(60)
        pressed[0] = time.perf_counter()  # measured from the press: not the machine's start-up
        abort.abort("from a thread")

    thread = threading.Thread(target=press)
    thread.start()
    async for event in runner.run("go", abort=abort):
        if isinstance(event, TextDelta):
            streaming.set()
    thread.join(5)
    assert event.result.stop_reason == "cancelled"
    assert pressed[0] and time.perf_counter() - pressed[0] < 1.5  # a bound a user feels
    assert pairing_problems(runner.session.messages) == []


async def test_abort_before_start_ends_at_once_with_the_prompt_saved() -> None:
    abort = AbortSignal()
    abort.abort()
    model = ScriptedModel([reply("never")])
    runner = Runner(model, "m")
    result = await runner.run_to_end("go", abort=abort)
    assert result.stop_reason == "cancelled"
    assert model.requests == []


def _runner_whose_tool_hangs(started: asyncio.Event) -> Runner:
    """The model calls ``hang``, a tool that sets ``started`` and then sleeps for 30 s."""

    @tool
    async def hang() -> str:
        """Hangs."""
        started.set()
        await asyncio.sleep(30)
        return "x"

    return Runner(ScriptedModel([reply("", call("hang", "h1")), reply("x")]), "m",
                  tools=ToolRegistry([hang]))


async def test_consumer_walking_away_ends_the_turn_and_keeps_pairing() -> None:
    started = asyncio.Event()
    runner = _runner_whose_tool_hangs(started)
    gen = runner.run("go")
    async for event in gen:
        if isinstance(event, ToolStart):
            break  # the turn advances as the consumer reads: the tool has not started
    await gen.aclose()
    assert not started.is_set()
    assert pairing_problems(runner.session.messages) == []
    assert runner.session.messages[-1].status == "interrupted"
    assert not runner.running


async def test_cancelling_the_consumers_task_mid_tool_keeps_pairing_and_propagates() -> None:
    gate = asyncio.Event()
    runner = _runner_whose_tool_hangs(gate)
    seen: list[str] = []

    async def consume() -> None:
        async for event in runner.run("go"):
            seen.append(event.type)

    task = asyncio.ensure_future(consume())
    await gate.wait()
    task.cancel()  # its owner cancels the task (a timeout, a shutdown): not a Stop, not swallowed
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the consumer's cancellation was swallowed")
    assert "done" not in seen
    assert pairing_problems(runner.session.messages) == []
    assert runner.session.messages[-1].status == "interrupted"
    assert not runner.running


async def test_stop_pressed_while_the_consumer_holds_tool_start_runs_nothing() -> None:
    ran: list[str] = []

    @tool
    def write_report() -> str:
        """Writes."""
        ran.append("write_report")
        return "written"

    runner = Runner(ScriptedModel([reply("", call("write_report", "w1")), reply("done")]), "m",
                    tools=ToolRegistry([write_report]))
    abort = AbortSignal()
    events = []
    async for event in runner.run("go", abort=abort):
        events.append(event)
        if isinstance(event, ToolStart):
            await asyncio.sleep(0.05)  # the consumer is busy elsewhere when Stop is pressed
            pressing = threading.Thread(target=abort.abort, args=("stop",))
            pressing.start()
            pressing.join()  # pressed before the consumer reads on, however slow the thread
            await asyncio.sleep(0.05)
    assert ran == []
    assert events[-1].result.stop_reason == "cancelled"
    assert runner.session.messages[-1].status == "interrupted"
    assert pairing_problems(runner.session.messages) == []


async def test_a_stop_leaves_the_consumers_task_uncancelled() -> None:
    # The turn runs in the consumer's task and Stop cancels it while it waits inside the turn;
    # the turn takes that cancellation back, so the consumer's next await is not cancelled.
    started = asyncio.Event()
    runner = _runner_whose_tool_hangs(started)
    abort = AbortSignal()

    async def press() -> None:
        await started.wait()
        abort.abort("stop")

    pressing = asyncio.ensure_future(press())
    result = await runner.run_to_end("go", abort=abort)
    await pressing
    assert result.stop_reason == "cancelled"
    await asyncio.sleep(0.01)  # raises CancelledError if the Stop's cancellation leaked
    task = asyncio.current_task()
    assert task is not None and (not hasattr(task, "cancelling") or task.cancelling() == 0)


class FailingSession:
    """A session whose disk fails once a tool result is to be written."""

    def __init__(self) -> None:
        self.name = "failing"
        self._messages: list = []

    @property
    def messages(self) -> list:
        return list(self._messages)

    def append(self, message) -> None:  # type: ignore[no-untyped-def]
        if isinstance(message, ToolResultMessage):
            raise StateError("disk full")
        self._messages.append(message)

    def rewrite(self, messages) -> None:  # type: ignore[no-untyped-def]
        self._messages = list(messages)

    def close(self) -> None:
        pass


async def test_a_saving_failure_after_a_tool_ran_keeps_the_observation_and_reports_state_error() -> None:
    side_effects: list[str] = []

    @tool
    def deploy() -> str:
        """Has an effect."""
        side_effects.append("deployed")
        return "deployed v2"

    model = ScriptedModel([reply("", call("deploy", "d1")), reply("should not be asked")])
    runner = Runner(model, "m", tools=ToolRegistry([deploy]), session=FailingSession())
    events = [e async for e in runner.run("ship it")]
    assert side_effects == ["deployed"]
    end = next(e for e in events if isinstance(e, ToolEnd))
    assert end.result == "deployed v2"  # the observation reached the caller
    result = events[-1].result
    assert result.stop_reason == "error" and result.error.kind == "StateError"
    assert [m.text for m in result.unsaved] == ["deployed v2"]
    assert len(model.requests) == 1  # completion was not announced; the model was not asked again
