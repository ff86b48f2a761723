"""TeamState: the conversation's files opened together, the floor rules, interrupted work."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from orkas_nb.core.errors import SessionLockedError
from orkas_nb.core.messages import user_message
from orkas_nb.harness import JsonlSession
from orkas_nb.team import TeamState
from orkas_nb.team.bus import member_session_path

MEMBERS = ["researcher", "tutor"]


def test_a_dispatch_in_flight_at_a_crash_is_told_to_the_commander_once(tmp_path: Path) -> None:
    state = TeamState(tmp_path, "nb")
    task = state.ledger.create("researcher", "search the literature")
    state.bus.post("commander", task.text, visible_to={"researcher"}, kind="task",
                   to="researcher", task_id=task.id)
    state.ledger.start(task.id)
    state.close()  # the kernel dies here (the files are as a kill -9 leaves them)

    with TeamState(tmp_path, "nb") as state:
        [notice] = state.notices
        assert notice.kind == "system" and notice.task_id == task.id and notice.sender == "system"
        assert "interrupted" in notice.text and "search the literature" in notice.text
        assert notice in state.bus.view("commander")
        assert notice not in state.bus.view("researcher") and notice not in state.bus.view("user")
        assert state.ledger.get(task.id).status == "interrupted"  # type: ignore[union-attr]
    with TeamState(tmp_path, "nb") as state:  # told once: no second notice, nothing re-run
        assert state.notices == []
        assert [m.kind for m in state.bus.messages] == ["task", "system"]


def test_a_crash_between_notice_and_its_record_repeats_the_notice(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    state = TeamState(tmp_path, "nb")
    state.ledger.start(state.ledger.create("researcher", "x").id)
    state.close()
    from orkas_nb.team.ledger import TaskLedger

    def die(self, ids):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt  # the process stops after the notice, before it is recorded

    monkeypatch.setattr(TaskLedger, "mark_noticed", die)
    with pytest.raises(KeyboardInterrupt):
        TeamState(tmp_path, "nb")
    monkeypatch.undo()  # the failed open closed its files: the next one may lock them
    with TeamState(tmp_path, "nb") as state:
        assert len(state.notices) == 1  # said again rather than lost
        assert [m.kind for m in state.bus.messages] == ["system", "system"]


def test_the_floor_routes_un_addressed_messages_and_survives_a_restart(tmp_path: Path) -> None:
    with TeamState(tmp_path, "nb") as state:
        assert state.route_user_message("hello", MEMBERS).member == "commander"
        announced = state.pass_floor("tutor", reason="teach")
        assert announced is not None and announced.kind == "floor" and announced.visible_to == "all"
        assert state.pass_floor("tutor") is None  # already there: nothing written
        route = state.route_user_message("what is a prior?", MEMBERS)
        assert (route.member, route.text, route.addressed) == ("tutor", "what is a prior?", False)
    with TeamState(tmp_path, "nb") as state:  # kernel restart: the floor is where it was
        assert state.route_user_message("and a posterior?", MEMBERS).member == "tutor"
        # Addressing another member speaks to it; the floor stays with the tutor.
        route = state.route_user_message("@researcher find a textbook", MEMBERS)
        assert (route.member, route.text, route.addressed) == ("researcher", "find a textbook", True)
        assert state.ledger.floor.holder == "tutor"
        # A hand-back in prose, or from a member without the floor, changes nothing.
        assert not state.read_reply("tutor", "I will send <handback /> later").handed_back
        assert state.read_reply("researcher", "done\n<handback />").handed_back
        assert state.ledger.floor.holder == "tutor"
        reply = state.read_reply("tutor", "That is the idea.\n<handback />\n")
        assert reply.handed_back and reply.text == "That is the idea."
        assert state.ledger.floor.holder == "commander" and state.ledger.floor.by == "tutor"
        assert state.bus.messages[-1].text == "the floor is back with the commander"
        # @commander takes the floor back as well.
        state.ledger.pass_floor("tutor")
        route = state.route_user_message("@commander stop the lesson", MEMBERS)
        assert route.member == "commander" and state.ledger.floor.holder == "commander"
        assert state.ledger.floor.by == "user"
        with pytest.raises(ValueError, match="no member named 'tutr'"):
            state.route_user_message("@tutr hi", MEMBERS)


def test_one_session_per_member_locked_to_this_process(tmp_path: Path) -> None:
    with TeamState(tmp_path, "nb") as state:
        session = state.session("researcher")
        assert state.session("researcher") is session
        assert isinstance(session, JsonlSession)
        assert session.path == member_session_path(tmp_path, "nb", "researcher")
        session.append(user_message("task one"))
        with pytest.raises(SessionLockedError):
            JsonlSession(session.path)  # a second writer, even in this process
        with pytest.raises(SessionLockedError, match="bus"):
            TeamState(tmp_path, "nb")  # a second kernel on the same conversation
    with TeamState(tmp_path, "nb") as state:
        assert [m.text for m in state.session("researcher").messages] == ["task one"]


async def test_dispatches_to_one_member_queue_and_different_members_overlap() -> None:
    state = TeamState.in_memory()
    log: list[str] = []

    async def run(member: str, label: str) -> None:
        async with state.member_lock(member):
            log.append(f"start {label}")
            await asyncio.sleep(0.05)
            log.append(f"end {label}")

    await asyncio.gather(run("researcher", "r1"), run("researcher", "r2"), run("tutor", "t1"))
    # r2 waited for r1; t1 ran while r1 did.
    assert log.index("end r1") < log.index("start r2")
    assert log.index("start t1") < log.index("end r1")
