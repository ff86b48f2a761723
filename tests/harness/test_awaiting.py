"""A call awaiting an answer from outside the run (``ask_user``): open across kill -9, never
sent to a provider while open, answered in its own place, and the run continues from it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pytest

from orkas_nb.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from orkas_nb.harness import InMemorySession, JsonlSession, RunConfig, Runner, ToolRegistry, tool
from orkas_nb.harness.awaiting import (
    AwaitingAnswerError,
    answer_call,
    awaiting_calls,
    continue_problem,
)
from orkas_nb.harness.repair import NEVER_ANSWERED, pairing_problems, repair
from orkas_nb.harness.session import encode_line
from orkas_nb.harness.tool_protocol import ToolContext, ToolOutput
from orkas_nb.testing import ScriptedModel, call, reply

REPO = Path(__file__).resolve().parents[2]


class Ask:
    """An ``ask_user`` in miniature: the result comes from the user, later."""

    name = "ask"
    description = "Ask the user."
    read_only = False
    concurrency_safe = False
    input_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text="(waiting for the user's answer)", awaiting="user")


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


def tools() -> ToolRegistry:
    return ToolRegistry([Ask(), add])


def asked(*extra: ToolCallBlock) -> list[Any]:
    """A history whose last answer asked the user (placeholder saved) and called ``extra``."""
    ask = ToolCallBlock(id="q1", name="ask", arguments={})
    return [
        UserMessage(id="u1", created_at=0, content=[TextBlock(text="go")]),
        AssistantMessage(id="a1", created_at=0, content=[ask, *extra]),
        ToolResultMessage(id="p1", created_at=0, tool_call_id="q1", name="ask",
                          content=[TextBlock(text="(waiting)")], awaiting="user"),
    ]


def test_the_placeholder_line_carries_the_mark_and_other_lines_do_not_change() -> None:
    placeholder = asked()[-1]
    assert b'"awaiting":"user"' in encode_line(placeholder)
    plain = placeholder.model_copy(update={"awaiting": None})
    assert b"awaiting" not in encode_line(plain)  # every other result line is as before


def test_repair_keeps_an_awaiting_call_open_and_repairs_every_other_unpaired_call() -> None:
    other = ToolCallBlock(id="c2", name="add", arguments={"a": 1, "b": 2})
    history = asked(other)  # the add call's result was never saved
    once = repair(history)
    assert repair(once) == once  # idempotent
    results = [m for m in once if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.awaiting, r.status) for r in results] == [
        ("q1", "user", "ok"), ("c2", None, "interrupted")]
    assert [r.tool_call_id for r in awaiting_calls(once)] == ["q1"]
    assert pairing_problems(once) == []


def test_a_steer_saved_after_the_question_stays_after_its_answer() -> None:
    history = [*asked(), UserMessage(id="s1", created_at=0, content=[TextBlock(text="hurry")],
                                     origin="steer")]
    once = repair(history)
    assert [m.id for m in once] == ["u1", "a1", "p1", "s1"] and awaiting_calls(once)


def test_a_placeholder_the_conversation_went_past_is_closed_as_interrupted() -> None:
    history = [*asked(), AssistantMessage(id="a2", created_at=0, content=[TextBlock(text="x")])]
    assert pairing_problems(history)  # a model answer after an open question is a breach
    once = repair(history)
    closed = once[2]
    assert isinstance(closed, ToolResultMessage) and closed.awaiting is None
    assert closed.status == "interrupted" and NEVER_ANSWERED in closed.text
    assert awaiting_calls(once) == [] and pairing_problems(once) == []
    with pytest.raises(Exception, match="closed without its answer"):
        answer_call(InMemorySession(messages=once), "q1", "EU")


def test_a_real_result_wins_over_the_placeholder_of_the_same_call() -> None:
    answer = ToolResultMessage(id="r1", created_at=0, tool_call_id="q1", name="ask",
                               content=[TextBlock(text="EU")])
    once = repair([*asked(), answer])
    assert [m.id for m in once] == ["u1", "a1", "r1"] and not awaiting_calls(once)


async def test_the_turn_ends_at_the_question_and_the_other_calls_of_its_answer_pair() -> None:
    model = ScriptedModel([reply("let me ask", call("ask", "q1"), call("add", "c2", a=1, b=2))])
    runner = Runner(model, "m", tools=tools())
    result = await runner.run_to_end("go")
    assert result.stop_reason == "end_turn" and len(model.requests) == 1
    roles = [(m.role, getattr(m, "tool_call_id", None), getattr(m, "awaiting", None))
             for m in runner.session.messages]
    assert roles == [("user", None, None), ("assistant", None, None), ("tool", "q1", "user"),
                     ("tool", "c2", None)]
    assert runner.session.messages[-1].text == "3"


async def test_a_new_prompt_on_an_awaiting_session_is_refused_and_saves_nothing() -> None:
    model = ScriptedModel([reply("should not be asked")])
    session = InMemorySession(messages=asked())
    before = session.messages
    result = await Runner(model, "m", tools=tools(), session=session).run_to_end("hello?")
    assert result.stop_reason == "error" and result.error is not None
    assert result.error.kind == "AwaitingAnswerError"
    assert "waits for the user's answer" in result.error.message and "q1" in result.error.message
    assert session.messages == before and model.requests == []
    # continuing it before the answer is refused the same way
    result = await Runner(model, "m", tools=tools(), session=session).run_to_end(None)
    assert result.error is not None and result.error.kind == "AwaitingAnswerError"
    assert session.messages == before and model.requests == []


def test_no_request_is_built_from_a_session_with_an_open_call() -> None:
    runner = Runner(ScriptedModel([]), "m", tools=tools(), session=InMemorySession(messages=asked()))
    with pytest.raises(AwaitingAnswerError, match="q1"):
        runner.build_request(runner.session.messages)


async def test_the_answer_is_the_calls_result_and_the_run_continues_from_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    model = ScriptedModel([reply("", call("ask", "q1"), call("add", "c2", a=2, b=3)),
                           reply("EU it is.")])
    with JsonlSession(path) as session:
        runner = Runner(model, "m", tools=tools(), session=session,
                        config=RunConfig(compaction=False))
        await runner.run_to_end("go")
        assert answer_call(session, "q1", '{"region": "EU"}') is True
        assert answer_call(session, "q1", "again") is False  # a second delivery changes nothing
        result = await runner.run_to_end(None)
    assert result.stop_reason == "end_turn" and result.text == "EU it is."
    sent = model.requests[1].messages
    assert [m.role for m in sent] == ["user", "assistant", "tool", "tool"]  # no new user message
    assert (sent[2].tool_call_id, sent[2].text, sent[2].awaiting) == ("q1", '{"region": "EU"}', None)
    assert sent[3].text == "5"
    with JsonlSession(path, readonly=True) as view:  # the answer is on disk, in its place
        assert pairing_problems(view.messages) == [] and view.repair_notes == []
        assert [m.role for m in view.messages] == ["user", "assistant", "tool", "tool", "assistant"]


async def test_a_session_with_nothing_to_go_on_from_cannot_be_continued() -> None:
    session = InMemorySession(messages=[UserMessage(content=[TextBlock(text="hi")]),
                                        AssistantMessage(content=[TextBlock(text="hello")])])
    assert continue_problem(session.messages) is not None
    result = await Runner(ScriptedModel([]), "m", session=session).run_to_end(None)
    assert result.error is not None and "cannot be continued" in result.error.message


def test_answering_a_call_the_session_does_not_hold_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="holds no call 'nope'"):
        answer_call(InMemorySession(messages=asked()), "nope", "x")


CHILD = textwrap.dedent("""
    import asyncio, os, signal, sys
    from orkas_nb.harness import JsonlSession, RunConfig, Runner, ToolRegistry
    from orkas_nb.harness import session as session_module
    from orkas_nb.testing import ScriptedModel, call, reply
    from tests.harness.test_awaiting import tools
    path, die_after = sys.argv[1], int(sys.argv[2])
    writes = 0
    def hook(label):
        global writes
        if label == "append:written":
            writes += 1
            if writes == die_after:
                os.kill(os.getpid(), signal.SIGKILL)
    session_module.crash_hook = hook
    model = ScriptedModel([reply("", call("ask", "q1"), call("add", "c2", a=1, b=2))])
    runner = Runner(model, "m", tools=tools(), session=JsonlSession(path),
                    config=RunConfig(compaction=False))
    asyncio.run(runner.run_to_end("go"))
""")


@pytest.mark.parametrize("die_after", [3, 4])  # after the placeholder's line; after add's
async def test_an_awaiting_call_stays_open_across_kill_9(tmp_path: Path, die_after: int) -> None:
    path = tmp_path / "s.jsonl"
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), str(die_after)], env=env,
                           timeout=120)
    assert child.returncode == -signal.SIGKILL
    model = ScriptedModel([reply("Thanks, EU.")])
    with JsonlSession(path) as session:
        messages = session.messages
        assert [r.tool_call_id for r in awaiting_calls(messages)] == ["q1"]
        add_result = messages[3]
        assert add_result.tool_call_id == "c2"
        # the other call of that answer: its real result, or repaired as today
        assert (add_result.status, add_result.text) == (
            ("ok", "3") if die_after == 4 else ("interrupted", add_result.text))
        runner = Runner(model, "m", tools=tools(), session=session,
                        config=RunConfig(compaction=False))
        refused = await runner.run_to_end("anyone there?")
        assert refused.error is not None and refused.error.kind == "AwaitingAnswerError"
        assert session.messages == messages
        answer_call(session, "q1", "EU")
        result = await runner.run_to_end(None)
    assert result.text == "Thanks, EU." and len(model.requests) == 1
    sent = model.requests[0].messages
    assert [m.role for m in sent] == ["user", "assistant", "tool", "tool"]
    assert (sent[2].tool_call_id, sent[2].text) == ("q1", "EU")
    assert pairing_problems(sent) == []
