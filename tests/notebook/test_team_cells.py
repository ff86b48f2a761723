"""Teams from ``%%agent`` cells in a real kernel: the commander, ``@name``, the floor, Stop.

The workspace defines two agents; scripted models answer per member (tests/team/teamkit.py), so
parallel dispatches can ask the one provider in any order.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from orkas_nb.harness.repair import open_calls
from orkas_nb.harness.session import JsonlSession
from orkas_nb.team.bus import MessageBus, bus_path, member_session_path
from orkas_nb.team.ledger import TaskLedger, ledger_path
from tests.team.teamkit import RESEARCHER_AND_WRITER, write_agents

from .kernel import Kernel

SETUP = r'''
%load_ext orkas_nb
from orkas_nb.testing import reply, call
from tests.team.teamkit import Router, user_texts
SLOW = ("x" * 20 + "\n") * 200  # streamed 4 characters every 10 ms: 10 s unless stopped
def slow():
    return reply(SLOW, chunk_chars=4, delay_s=0.01)
'''
BOTH = ('router = Router(commander=[reply("", call("dispatch_to", agent="researcher", task="long A"), '
        'call("dispatch_to", agent="writer", task="long B")), reply("after")], '
        'researcher=[slow()], writer=[slow()]); m = router.model()')


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("teamnb") / "project"
    folder.mkdir()
    write_agents(folder, **RESEARCHER_AND_WRITER)
    return folder


@pytest.fixture(scope="module")
def kernel(ws: Path) -> Iterator[Kernel]:
    env = {"ORKAS_RENDERER": "text", "ORKAS_CONFIG_DIR": str(ws.parent / "no-user-config")}
    with Kernel(ws, env=env) as k:
        k.run(SETUP)
        yield k


def shown_text(kernel: Kernel, cell) -> str:
    return "".join(d.get("text/plain", "") for d in kernel.shown(cell))


def live_text(kernel: Kernel, cell) -> str:
    """Every text the cell's live view drew while it ran (the transcript replaces it at the end)."""
    return "\n".join(d.get("text/plain", "") for t, _, d in kernel.display_log if t >= cell.sent)


def streaming(kernel: Kernel, cell, *members: str) -> bool:
    text = shown_text(kernel, cell)
    return all(f"[{m}] xxxx" in text for m in members)


def assert_reloads_valid(ws: Path, conversation: str, members: tuple[str, ...]) -> None:
    with MessageBus(bus_path(ws, conversation), readonly=True) as bus:
        assert bus.repair_notes == []
    ledger = TaskLedger(ledger_path(ws, conversation), readonly=True)
    try:
        assert ledger.repair_notes == []
        statuses = {t.assignee: t.status for t in ledger.tasks}
    finally:
        ledger.close()
    assert statuses == {"commander": "interrupted", **{m: "interrupted" for m in members}}
    for name in members:
        session = JsonlSession(member_session_path(ws, conversation, name), readonly=True)
        assert session.repair_notes == [] and open_calls(session.messages) == []
        assert session.messages[-1].role == "assistant"  # the partial text was kept


def test_an_interrupt_during_two_parallel_dispatches_ends_the_cell_within_a_second(
        kernel: Kernel, ws: Path) -> None:
    kernel.run(BOTH)
    cell = kernel.send("%%agent -m $m -s par\nrun both")
    kernel.pump(lambda: streaming(kernel, cell, "researcher", "writer") or cell.done, 30,
                "both members to stream")
    assert not cell.done, shown_text(kernel, cell)
    pressed = time.time()  # the kernel's reply is stamped with the same clock
    kernel.km.interrupt_kernel()
    kernel.pump(lambda: cell.done, 30, "the interrupted cell to end")
    took = cell.reply_sent - pressed
    assert took < 2.0, f"the cell took {took:.2f} s to end after the interrupt"  # felt ~1 s; CI margin
    assert cell.error is not None and cell.error["ename"] == "RunInterrupted"
    assert_reloads_valid(ws, "par", ("researcher", "writer"))
    # Nothing runs by itself afterwards; the next cell continues the conversation.
    kernel.run('router = Router(commander=[reply("continuing")]); m = router.model()')
    after = kernel.run("%%agent -m $m -s par\ngo on")
    assert "continuing" in shown_text(kernel, after)
    assert kernel.value("sorted(router.requests)") == ["commander"]


def test_agent_stop_ends_a_background_team_run_and_every_member(kernel: Kernel, ws: Path) -> None:
    kernel.run(BOTH)
    cell = kernel.run("%%agent -m $m -s bgpar --background\nrun both")
    kernel.pump(lambda: streaming(kernel, cell, "researcher", "writer"), 30, "both members to stream")
    # timed in the kernel, from the stop to the run's end: not the cells' round trips
    done = kernel.run("import time as _t; _pressed = _t.monotonic()\n"
                      "%agent stop\n"
                      "r = await __import__('orkas_nb.notebook').notebook.wait(10)\n"
                      "print(r.stop_reason, _t.monotonic() - _pressed)")
    reason, took = done.stream().strip().splitlines()[-1].split()
    took = float(took)
    assert reason == "cancelled"
    assert took < 2.0, f"the run took {took:.2f} s to end after %agent stop"  # felt ~1 s; CI margin
    assert_reloads_valid(ws, "bgpar", ("researcher", "writer"))


def test_a_hand_off_gives_the_next_cells_to_the_agent_until_it_hands_back(
        kernel: Kernel, ws: Path) -> None:
    kernel.run('router = Router(commander=[reply("", call("hand_off_to", agent="researcher", '
               'message="teach regex"))], researcher=[reply("Lesson 1")]); m = router.model()')
    cell = kernel.run("%%agent -m $m -s hand\nteach me regex")
    first = shown_text(kernel, cell)
    assert "[researcher] Lesson 1" in first  # the lane is kept in the transcript
    assert "[researcher] [floor · done · 1 model requests" in first
    assert "[floor] researcher has the floor" in first
    assert "[researcher] Lesson 1" in live_text(kernel, cell)
    assert "s · researcher has the floor]" in live_text(kernel, cell)  # the view's status line
    # The next @-less cell reaches the agent, with the user's text.
    kernel.run('router.scripts["researcher"].append(reply("Lesson 2"))')
    cell = kernel.run("%%agent -m $m -s hand\nand groups?")
    second, live = shown_text(kernel, cell), live_text(kernel, cell)
    assert "orkas · scripted · session hand · researcher has the floor\n" in live
    assert "[researcher] Lesson 2" in second
    assert kernel.value("'and groups?' in user_texts(router.requests['researcher'][1])")
    assert kernel.value("len(router.requests['commander'])") == 1
    # The floor and the open request are saved: they survive a kernel restart, and nothing runs
    # by itself. The next @-less cells still reach the agent; a reply ending in <handback />
    # returns the floor and the commander resumes the request still open in the ledger.
    kernel.restart()
    kernel.run(SETUP)
    kernel.run('router = Router(commander=[reply("Back with me: the regex lesson is done.")], '
               'researcher=[reply("Lesson 3"), reply("That is all.\\n<handback />")]); '
               'm = router.model()')
    assert kernel.value("sorted(router.requests)") == []
    cell = kernel.run("%%agent -m $m -s hand\nlookahead?")
    assert "[researcher] Lesson 3" in shown_text(kernel, cell)
    cell = kernel.run("%%agent -m $m -s hand\nthanks")
    third = shown_text(kernel, cell)
    assert "· researcher has the floor\n" in live_text(kernel, cell)
    assert "[researcher] That is all." in third and "[researcher] [handed the floor back]" in third
    assert "<handback" not in third and "<handback" not in live_text(kernel, cell)
    assert "[floor] the floor is back with the commander" in third
    assert "Back with me: the regex lesson is done." in third
    assert kernel.value("'thanks' in user_texts(router.requests['researcher'][1])")
    resume = kernel.value("user_texts(router.requests['commander'][0])")
    assert "Unfinished work" in resume and "teach me regex" in resume
    ledger = TaskLedger(ledger_path(ws, "hand"), readonly=True)
    try:
        assert ledger.floor.holder == "commander"
        assert [(t.assignee, t.status) for t in ledger.tasks] == [("commander", "done")]
    finally:
        ledger.close()


def test_at_name_on_the_magic_line_or_in_the_prompt_speaks_to_that_member(kernel: Kernel) -> None:
    kernel.run('router = Router(commander=[], writer=[reply("a note")], '
               'researcher=[reply("found it")]); m = router.model()')
    line = shown_text(kernel, kernel.run("%%agent -m $m -s addr @writer\nwrite a note"))
    assert "[writer] a note" in line
    assert kernel.value("'write a note' in user_texts(router.requests['writer'][0])")
    prompt = shown_text(kernel, kernel.run("%%agent -m $m -s addr\n@researcher: find it"))
    assert "[researcher] found it" in prompt
    assert kernel.value("user_texts(router.requests['researcher'][0]).endswith('find it')")
    assert kernel.value("'@researcher' in user_texts(router.requests['researcher'][0])") is False
    assert "commander" not in kernel.value("sorted(router.requests)")
    # Addressing a member does not move the floor; a name that is no member is one line.
    assert "has the floor" not in prompt
    bad = kernel.run("%%agent -m $m -s addr\n@nobody hello", allow_error=True)
    assert "no member named 'nobody'" in bad.stream("stderr")


def test_a_workspace_without_agents_runs_one_agent_as_before(kernel: Kernel, ws: Path) -> None:
    plain = ws.parent / "plain"
    plain.mkdir(exist_ok=True)
    kernel.run(f"%config Agent.workspace = {str(plain)!r}\n"
               "from orkas_nb.testing import ScriptedModel\nsm = ScriptedModel([reply('ok')])")
    try:
        kernel.run("%%agent -m $sm -s solo\n@writer hi")
        assert kernel.value("sm.requests[0].messages[-1].text") == "@writer hi"  # plain text
        assert "commander" not in kernel.value("sm.requests[0].system")
        assert not (plain / ".orkas" / "teams").exists()
        bad = kernel.run("%%agent -m $sm -s solo @writer\nhi", allow_error=True)
        assert "this workspace defines no agents" in bad.stream("stderr")
    finally:
        kernel.run("%config Agent.workspace = ''")


def test_agent_steer_reaches_the_commanders_running_turn(kernel: Kernel) -> None:
    # the member's answer waits for the test: the steer lands while the commander's turn runs
    kernel.run('import asyncio; release = asyncio.Event()\n'
               'router = Router(commander=[reply("", call("dispatch_to", agent="researcher", '
               'task="short")), reply("steered")], '
               'researcher=[reply(("y" * 20 + "\\n") * 30, chunk_chars=4, wait=release)]); '
               'm = router.model()')
    kernel.run("%%agent -m $m -s steer --background\nlook it up")
    kernel.pump(lambda: kernel.value("len(router.requests.get('researcher', []))") == 1, 60,
                "the member to be asked")
    assert "session steer" in kernel.run("%agent steer also check the appendix").stream()
    kernel.run("release.set()")
    done = kernel.run("r = await __import__('orkas_nb.notebook').notebook.wait(20); "
                      "print(r.stop_reason)")
    assert done.stream().strip().splitlines()[-1] == "end_turn"
    assert kernel.value("'also check the appendix' in "
                        "user_texts(router.requests['commander'][1])")
    assert kernel.value("len(router.requests['researcher'])") == 1  # the member got no steer
