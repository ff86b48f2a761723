"""Tools that declare they may run alongside others (``concurrency_safe``), through the runner.

The tools really sleep (in worker threads, as sync tools run); each records when it started and
ended, and the tests compare the intervals: overlap is what concurrency means, and a barrier's
interval must touch no other.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from orkas_nb.core.messages import ToolCallBlock, ToolResultMessage
from orkas_nb.harness import Runner, ToolRegistry, tool
from orkas_nb.harness.dispatch import PlannedCall, batches
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.harness.tool_protocol import ToolContext, ToolOutput, runs_alongside
from orkas_nb.testing import ScriptedModel, call, reply

SLEEP = 0.25


class Clock:
    def __init__(self) -> None:
        self.spans: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def run(self, label: str, seconds: float) -> str:
        start = time.monotonic()
        time.sleep(seconds)
        with self._lock:
            self.spans[label] = (start, time.monotonic())
        return label

    def overlap(self, a: str, b: str) -> bool:
        (s1, e1), (s2, e2) = self.spans[a], self.spans[b]
        return s1 < e2 and s2 < e1


def make_tools(clock: Clock) -> ToolRegistry:
    @tool(concurrency_safe=True)
    def send(label: str, seconds: float) -> str:
        """Writes, but only where no other call looks (like dispatch_to): may run alongside."""
        return clock.run(label, seconds)

    @tool
    def write(label: str, seconds: float) -> str:
        """An ordinary write tool: a barrier."""
        return clock.run(label, seconds)

    @tool(read_only=True, concurrency_safe=False)
    def peek_alone(label: str, seconds: float) -> str:
        """Read-only but must run alone (say, it drives a single-threaded host)."""
        return clock.run(label, seconds)

    @tool(read_only=True)
    def read(label: str, seconds: float) -> str:
        """An ordinary read-only tool."""
        return clock.run(label, seconds)

    return ToolRegistry([send, write, peek_alone, read])


async def run_calls(*calls: Any) -> tuple[Clock, Runner]:
    clock = Clock()
    model = ScriptedModel([reply("", *calls), reply("done")])
    runner = Runner(model, "m", tools=make_tools(clock))
    await runner.run_to_end("go")
    return clock, runner


async def test_two_concurrency_safe_write_calls_overlap_and_keep_declared_order() -> None:
    # The first sleeps longer, so it finishes last: results must still be saved in call order.
    clock, runner = await run_calls(
        call("send", "a", label="a", seconds=SLEEP * 2),
        call("send", "b", label="b", seconds=SLEEP),
        call("read", "c", label="c", seconds=SLEEP),
    )
    assert clock.overlap("a", "b") and clock.overlap("a", "c") and clock.overlap("b", "c")
    assert clock.spans["b"][1] < clock.spans["a"][1]  # b really finished first
    results = [m for m in runner.session.messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["a", "b", "c"]
    assert [r.text for r in results] == ["a", "b", "c"]
    assert pairing_problems(runner.session.messages) == []


async def test_a_call_that_is_not_safe_runs_alone_between_safe_ones() -> None:
    clock, runner = await run_calls(
        call("send", "a", label="a", seconds=SLEEP),
        call("send", "b", label="b", seconds=SLEEP),
        call("write", "w", label="w", seconds=SLEEP),
        call("send", "c", label="c", seconds=SLEEP),
        call("peek_alone", "p", label="p", seconds=SLEEP),
        call("read", "d", label="d", seconds=SLEEP),
    )
    assert clock.overlap("a", "b")
    for barrier in ("w", "p"):
        others = [x for x in clock.spans if x != barrier]
        assert not any(clock.overlap(barrier, x) for x in others), (barrier, clock.spans)
    # The barrier ran after what came before it and before what comes after.
    assert clock.spans["b"][1] <= clock.spans["w"][0] and clock.spans["w"][1] <= clock.spans["c"][0]
    results = [m for m in runner.session.messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["a", "b", "w", "c", "p", "d"]


class Legacy:
    """A hand-written tool from before the attribute existed: no ``concurrency_safe``."""

    def __init__(self, name: str, read_only: bool) -> None:
        self.name, self.read_only = name, read_only
        self.description = "legacy"
        self.input_schema: dict[str, Any] = {"type": "object"}

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text=self.name)


def test_tools_that_do_not_declare_it_batch_as_before() -> None:
    reader, writer = Legacy("r", read_only=True), Legacy("w", read_only=False)
    assert runs_alongside(reader) and not runs_alongside(writer)

    def planned(t: Any, i: int) -> PlannedCall:
        return PlannedCall(call=ToolCallBlock(id=f"c{i}", name=t.name, arguments={}), tool=t)

    plan = [planned(t, i) for i, t in enumerate([reader, reader, writer, reader, writer, writer])]
    shapes = [[p.call.id for p in b] for b in batches(plan)]
    assert shapes == [["c0", "c1"], ["c2"], ["c3"], ["c4"], ["c5"]]


def test_the_decorator_records_the_declaration() -> None:
    @tool(concurrency_safe=True)
    def a() -> None:
        """A."""

    @tool(read_only=True, concurrency_safe=False)
    def b() -> None:
        """B."""

    @tool
    def c() -> None:
        """C."""

    assert (runs_alongside(a), runs_alongside(b), runs_alongside(c)) == (True, False, False)
