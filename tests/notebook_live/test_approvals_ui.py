"""Approval prompts answered mid-run through the comm channel, and recorded answers replayed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from orkas_nb.harness.approval import ApprovalRequest, Decision
from orkas_nb.notebook.approvals.widgets import (
    RecordingApprover,
    ReplayingApprover,
    WidgetApprover,
    approvals_path,
    for_cassette,
)
from orkas_nb.providers.cassette import RecordingProvider, ReplayProvider
from orkas_nb.testing import ScriptedModel

from .kernel_harness import WidgetKernel

RUN_PYTHON_AGENT = r'''
from orkas_nb.notebook.kernel_tools import kernel_tools
approver = WidgetApprover(timeout_s={timeout})
model = ScriptedModel([
    reply("Setting it.", call("run_python", code={code!r})),
    reply("Finished."),
])
agent = Agent(model, tools=kernel_tools(approver=approver), default_tools=False)
'''


def setup_agent(k: WidgetKernel, code: str, timeout: float = 60) -> None:
    k.run(RUN_PYTHON_AGENT.format(code=code, timeout=timeout))


def wait_prompt(k: WidgetKernel, decision: str):
    return k.wait_for(f"orkas-approve-{decision}", timeout=30)


@pytest.mark.kernel
@pytest.mark.slow
def test_a_click_mid_run_is_delivered_while_the_cell_is_busy_and_the_run_goes_on(
    kernel: WidgetKernel,
) -> None:
    setup_agent(kernel, "approved_value = 6 * 7\nprint('set', approved_value)")
    ex = kernel.start("result, view = await drive(agent, 'set it', approver=approver)")
    button = wait_prompt(kernel, "once")
    prompt = kernel.find("orkas-approval-text")[-1].state["value"]
    assert "kernel_python" in prompt and "approved_value = 6 * 7" in prompt
    assert not ex.done, "the prompt waits inside the running cell"
    kernel.click(button.comm_id)
    kernel.wait(ex, timeout=30)
    kernel.run("assert approved_value == 42 and result.text == 'Finished.', result")
    card = kernel.find("orkas-tool", open_only=False)[-1]
    assert card.state["titles"][0].startswith("✓ run_python · ok")
    assert "set 42" in kernel.children(card)[0].state["value"]
    outcome = kernel.find("orkas-approval-outcome", open_only=False)[-1].state["value"]
    assert "allowed this time" in outcome
    assert all(m.closed for m in kernel.find("orkas-approval", open_only=False))


@pytest.mark.kernel
@pytest.mark.slow
def test_deny_runs_nothing(kernel: WidgetKernel, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    setup_agent(kernel, f"denied_value = 1\nopen({str(marker)!r}, 'w').write('x')")
    ex = kernel.start("result, view = await drive(agent, 'try', approver=approver)")
    kernel.click(wait_prompt(kernel, "deny").comm_id)
    kernel.wait(ex, timeout=30)
    kernel.run("assert 'denied_value' not in globals()\n"
               "assert agent.messages[2].status == 'denied' and 'nothing was run' in agent.messages[2].text")
    assert not marker.exists()
    card = kernel.find("orkas-tool", open_only=False)[-1]
    assert card.state["titles"][0].startswith("⛔ run_python · denied")


@pytest.mark.kernel
@pytest.mark.slow
def test_no_answer_times_out_as_a_denial(kernel: WidgetKernel) -> None:
    setup_agent(kernel, "timed_out_value = 1", timeout=0.5)
    kernel.run("result, view = await drive(agent, 'try', approver=approver)\n"
               "assert 'timed_out_value' not in globals() and result.text == 'Finished.'")
    outcome = kernel.find("orkas-approval-outcome", open_only=False)[-1].state["value"]
    assert "no answer within" in outcome


@pytest.mark.kernel
@pytest.mark.slow
def test_for_this_run_is_asked_once_per_run(kernel: WidgetKernel) -> None:
    kernel.run(r'''
from orkas_nb.notebook.kernel_tools import kernel_tools
approver = WidgetApprover(timeout_s=60)
model = ScriptedModel([
    reply("", call("run_python", code="runs = 1")),
    reply("", call("run_python", code="runs += 1")),
    reply("Finished."),
])
agent = Agent(model, tools=kernel_tools(approver=approver), default_tools=False)
''')
    before = len(kernel.find("orkas-approval", open_only=False))
    ex = kernel.start("result, view = await drive(agent, 'twice', approver=approver)")
    kernel.click(wait_prompt(kernel, "run").comm_id)
    kernel.wait(ex, timeout=30)
    kernel.run("assert runs == 2, runs")
    assert len(kernel.find("orkas-approval", open_only=False)) - before == 1


@pytest.mark.kernel
@pytest.mark.slow
def test_stop_while_a_prompt_waits_withdraws_it(kernel: WidgetKernel) -> None:
    setup_agent(kernel, "withdrawn_value = 1")
    ex = kernel.start("result, view = await drive(agent, 'try', approver=approver)")
    wait_prompt(kernel, "once")
    kernel.click(kernel.find("orkas-stop")[-1].comm_id)
    kernel.wait(ex, timeout=30)
    kernel.run("assert result.stop_reason == 'cancelled' and 'withdrawn_value' not in globals()\n"
               "assert approver.pending == []")
    assert "withdrawn" in kernel.find("orkas-approval-outcome", open_only=False)[-1].state["value"]


def _request(category: str = "destructive") -> ApprovalRequest:
    return ApprovalRequest(kind="command", category=category, subject="rm -rf build",
                           reasons=["deletes files"], scope_key="bash:destructive",
                           scope_text="destructive commands")


class _Host:
    def __init__(self) -> None:
        self.shown: list = []
        self.notes: list[str] = []

    def show_approval(self, widget) -> None:
        self.shown.append(widget)

    def hide_approval(self, widget) -> None:
        self.shown.remove(widget)

    def note(self, text: str, css: str) -> None:
        self.notes.append(text)


async def test_answer_from_controls_settles_the_prompt() -> None:
    host = _Host()
    approver = WidgetApprover(host, timeout_s=10)
    task = asyncio.ensure_future(approver(_request()))
    while not approver.pending:
        await asyncio.sleep(0.01)
    assert len(host.shown) == 1
    approver.answer(approver.pending[0], "run")
    assert await task is Decision.RUN
    assert host.shown == [] and "allowed for this run" in host.notes[0]


async def test_answering_an_unknown_prompt_is_a_clear_error() -> None:
    approver = WidgetApprover(_Host())
    with pytest.raises(LookupError, match="no approval 'approval-9' is waiting"):
        approver.answer("approval-9", "once")


async def test_a_nonsense_answer_denies() -> None:
    host = _Host()
    approver = WidgetApprover(host, timeout_s=10)
    task = asyncio.ensure_future(approver(_request()))
    while not approver.pending:
        await asyncio.sleep(0.01)
    approver.answer(approver.pending[0], "yes please")
    assert await task is Decision.DENY


async def test_recorded_answers_replay_and_never_allow_more(tmp_path: Path) -> None:
    path = approvals_path(tmp_path / "tour.cassette.jsonl")
    answers = iter([Decision.ONCE, Decision.DENY])
    recorder = RecordingApprover(lambda r: next(answers), path)
    assert await recorder(_request()) is Decision.ONCE
    assert await recorder(_request("exfiltration")) is Decision.DENY
    assert "rm -rf" not in path.read_text()  # the category is kept, never the command

    replay = ReplayingApprover(path)
    assert replay(_request()) is Decision.ONCE
    assert replay(_request("exfiltration")) is Decision.DENY
    assert replay(_request()) is Decision.DENY  # past the recording: denied, and said
    assert replay.mismatches == ["unrecorded approval (command/destructive)"]

    other = ReplayingApprover(path)
    assert other(_request("privilege")) is Decision.DENY
    assert "recorded command/destructive, asked command/privilege" in other.mismatches[0]


async def test_a_cassette_replays_its_answers_across_cells_and_a_recording_keeps_them(
    tmp_path: Path,
) -> None:
    cassette = tmp_path / "tour.cassette.jsonl"
    recorder = RecordingProvider(ScriptedModel([]), cassette)
    cassette.write_text('{"type": "header", "version": 1}\n')
    asked: list[str] = []
    recording = for_cassette(recorder, lambda r: asked.append(r.category) or Decision.RUN)
    assert isinstance(recording, RecordingApprover)
    assert await recording(_request()) is Decision.RUN and asked == ["destructive"]
    await recording(_request("exfiltration"))

    replay = ReplayProvider(cassette)
    first_cell = for_cassette(replay, None)
    assert first_cell(_request()) is Decision.RUN
    second_cell = for_cassette(replay, None)  # a new run, the same provider: the position goes on
    assert second_cell is first_cell and second_cell(_request("exfiltration")) is Decision.RUN
    assert asked == ["destructive", "exfiltration"]  # replaying asked nobody

    plain = WidgetApprover(_Host())
    assert for_cassette(ScriptedModel([]), plain) is plain
