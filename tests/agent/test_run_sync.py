"""``Agent.run_sync`` where an event loop already runs (what a notebook cell is), in-process.

The real-kernel side (the cell's output, input requests, the kernel interrupt) is in
tests/notebook/test_run_sync.py; here: the worker loop's contract with the caller.
"""

from __future__ import annotations

import asyncio
import builtins
import contextvars
import threading
from pathlib import Path

import pytest

from orkas_nb import Agent, tool
from orkas_nb.agent import blocking
from orkas_nb.harness.approval import Decision
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.testing import ScriptedModel, call, reply

WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


class ClickApprover:
    """The shape of the notebook's buttons: answered from outside, through ``answer``."""

    def __init__(self) -> None:
        self.asked = 0

    async def __call__(self, request: object) -> Decision:
        self.asked += 1
        await asyncio.sleep(300)  # nobody can click while run_sync blocks
        return Decision.ONCE

    def answer(self, request_id: str, answer: str) -> None:  # pragma: no cover - never reached
        raise AssertionError("no click can arrive")


def _reads_env(workspace: Path, **options: object) -> Agent:
    (workspace / ".env").write_text("API_TOKEN=the-secret-value\n")
    model = ScriptedModel([reply("", call("read_file", path=".env")), reply("done")])
    return Agent(model, workspace=workspace, **options)  # type: ignore[arg-type]


def _last_tool(agent: Agent):  # type: ignore[no-untyped-def]
    return [m for m in agent.messages if m.role == "tool"][-1]


async def test_the_turn_sees_the_callers_context_variables(workspace: Path) -> None:
    @tool
    async def whoami() -> str:
        """Say who is asking."""
        return f"{WHO.get()} on {threading.current_thread().name}"

    WHO.set("the cell")
    agent = Agent(ScriptedModel([reply("", call("whoami")), reply("ok")]), workspace=workspace,
                  default_tools=False, tools=[whoami])
    result = agent.run_sync("who?")
    assert result.text == "ok"
    assert _last_tool(agent).text == "the cell on orkas-run-sync"
    assert WHO.get() == "the cell"  # the turn ran in a copy: nothing leaks back


async def test_a_click_approver_is_not_waited_for_the_user_is_told_why(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(blocking, "_can_prompt", lambda: False)
    clicks = ClickApprover()
    agent = _reads_env(workspace, approver=clicks)
    result = agent.run_sync("read the env file")
    assert result.text == "done" and clicks.asked == 0
    assert _last_tool(agent).status == "denied"
    err = capsys.readouterr().err
    assert "await agent.arun(...)" in err and ".env" in err and "secret_file" in err


async def test_a_click_approver_is_asked_through_input_when_input_reaches_the_user(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, str]] = []
    monkeypatch.setattr(blocking, "_can_prompt", lambda: True)
    monkeypatch.setattr(builtins, "input",
                        lambda q: asked.append((q, threading.current_thread().name)) or "o")
    agent = _reads_env(workspace, approver=ClickApprover())
    agent.run_sync("read the env file")
    assert _last_tool(agent).status == "ok" and "the-secret-value" in _last_tool(agent).text
    # input() ran on the caller's thread (the kernel's), not the worker's.
    assert len(asked) == 1 and ".env" in asked[0][0]
    assert asked[0][1] == threading.current_thread().name


async def test_other_approvers_answer_as_they_would_anywhere(workspace: Path) -> None:
    agent = _reads_env(workspace, approver=lambda request: Decision.ONCE)
    agent.run_sync("read the env file")
    assert _last_tool(agent).status == "ok"


async def test_an_interrupt_while_asking_stops_the_run_and_keeps_the_session_valid(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(question: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(blocking, "_can_prompt", lambda: True)
    monkeypatch.setattr(builtins, "input", interrupted)
    agent = _reads_env(workspace, approver=ClickApprover())
    with pytest.raises(KeyboardInterrupt):
        agent.run_sync("read the env file")
    assert not agent.runner.running
    # The unanswered question denies, or the abort lands first: either way nothing was read.
    assert _last_tool(agent).status in ("denied", "interrupted")
    assert "the-secret-value" not in _last_tool(agent).text
    assert pairing_problems(agent.messages) == []


async def test_stop_from_another_thread_ends_a_blocked_run_sync(workspace: Path) -> None:
    @tool
    async def slow() -> str:
        """Wait a long time."""
        await asyncio.sleep(120)
        return "waited"

    agent = Agent(ScriptedModel([reply("", call("slow"))]), workspace=workspace,
                  default_tools=False, tools=[slow])
    timer = threading.Timer(0.3, agent.stop)
    timer.start()
    result = agent.run_sync("wait")
    assert result.stop_reason == "cancelled"
    assert _last_tool(agent).status == "interrupted" and pairing_problems(agent.messages) == []


def test_from_a_plain_script_run_sync_still_uses_a_fresh_loop(workspace: Path) -> None:
    @tool
    async def where() -> str:
        """Name the thread."""
        return threading.current_thread().name

    agent = Agent(ScriptedModel([reply("", call("where")), reply("ok")]), workspace=workspace,
                  default_tools=False, tools=[where])
    assert agent.run_sync("where?").text == "ok"
    assert _last_tool(agent).text == threading.current_thread().name


async def test_run_sync_from_inside_a_run_sync_turn_is_a_clear_error(workspace: Path) -> None:
    inner = Agent(ScriptedModel([reply("inner")]), workspace=workspace)

    @tool
    async def nested() -> str:
        """Run another agent synchronously from async code: it would wait for its own loop."""
        return inner.run_sync("go").text

    outer = Agent(ScriptedModel([reply("", call("nested")), reply("outer")]), workspace=workspace,
                  default_tools=False, tools=[nested])
    assert outer.run_sync("go").text == "outer"  # the tool failed; the turn went on
    assert "await agent.arun(...)" in _last_tool(outer).text and not inner.runner.running
