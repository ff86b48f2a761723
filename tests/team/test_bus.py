"""The conversation bus: views by visibility, durability like a session, one writer."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from pydantic import ValidationError

from orkas_nb.core.errors import SessionLockedError, StateError
from orkas_nb.team.bus import (
    BusMessage,
    MessageBus,
    bus_path,
    check_agent_name,
    member_session_path,
    team_folder,
)


def conversation(bus: MessageBus) -> None:
    bus.post("user", "compare the two papers")
    bus.post("commander", "read paper A", visible_to={"researcher"}, kind="task", to="researcher",
             task_id="t1")
    bus.post("commander", "read paper B", visible_to={"writer"}, kind="task", to="writer", task_id="t2")
    bus.post("researcher", "A says yes" * 100, visible_to={"commander"}, kind="result", task_id="t1")
    bus.post("commander", "both read; A says yes", visible_to="all")


def test_each_member_sees_its_own_view_and_the_commander_everything() -> None:
    bus = MessageBus.in_memory()
    conversation(bus)

    def texts(member: str) -> list[str]:
        return [m.text[:11] for m in bus.view(member)]

    assert texts("commander") == ["compare the", "read paper ", "read paper ", "A says yesA",
                                  "both read; "]
    # The researcher sees its task and its own result (a sender sees what it sent), not the
    # writer's task; the writer never sees the researcher's long output.
    assert texts("researcher") == ["compare the", "read paper ", "A says yesA", "both read; "]
    assert texts("writer") == ["compare the", "read paper ", "both read; "]
    assert texts("user") == ["compare the", "both read; "]
    assert [m.seq for m in bus.messages] == [1, 2, 3, 4, 5]
    assert [m.seq for m in bus.view("researcher", after=2)] == [4, 5]


def test_posts_survive_a_reopen_and_seq_continues(tmp_path: Path) -> None:
    path = bus_path(tmp_path, "nb")
    with MessageBus(path) as bus:
        conversation(bus)
        before = bus.messages
    with MessageBus(path) as bus:
        assert bus.messages == before
        assert bus.repair_notes == []
        assert bus.post("user", "again").seq == 6
    with MessageBus(path, readonly=True) as view:
        assert [m.seq for m in view.view("user")] == [1, 5, 6]
    # One JSON object a line, visible_to sorted so the bytes do not depend on the hash seed.
    lines = path.read_bytes().splitlines()
    assert len(lines) == 6 and b'"visible_to":["commander","researcher"]' in lines[3]


def test_a_torn_tail_is_cut_and_the_next_post_lands_on_a_clean_line(tmp_path: Path) -> None:
    path = tmp_path / "bus.jsonl"
    with MessageBus(path) as bus:
        bus.post("user", "one")
        bus.post("user", "two")
    data = path.read_bytes()
    path.write_bytes(data + data.splitlines()[1][:25])  # a kill -9 in the middle of a write
    with MessageBus(path) as bus:
        assert [m.text for m in bus.messages] == ["one", "two"]
        assert bus.repair_notes and "torn" in bus.repair_notes[0]
        bus.post("user", "three")
    with MessageBus(path) as bus:
        assert [m.text for m in bus.messages] == ["one", "two", "three"]
        assert bus.repair_notes == []


def test_an_unreadable_or_out_of_order_line_is_dropped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "bus.jsonl"
    with MessageBus(path) as bus:
        for text in ("one", "two", "three"):
            bus.post("user", text)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + b"{not json\n" + lines[2] + lines[1])
    with MessageBus(path) as bus:
        assert [m.text for m in bus.messages] == ["one", "three"]
        assert len(bus.repair_notes) == 2
        assert "unreadable line 2" in bus.repair_notes[0] and "seq 2" in bus.repair_notes[1]
        assert bus.post("user", "four").seq == 4


def test_one_writer_at_a_time_and_a_read_only_view(tmp_path: Path) -> None:
    path = tmp_path / "bus.jsonl"
    with MessageBus(path) as bus:
        bus.post("user", "one")
        with pytest.raises(SessionLockedError, match=f"bus 'bus.jsonl' .*pid {os.getpid()}"):
            MessageBus(path)
        with MessageBus(path, readonly=True) as view:
            assert [m.text for m in view.messages] == ["one"]
            with pytest.raises(StateError, match="read-only"):
                view.post("user", "two")
    with MessageBus(path) as bus:  # closing released the lock
        assert len(bus.messages) == 1


def test_bad_names_are_refused_before_anything_is_saved(tmp_path: Path) -> None:
    with MessageBus(tmp_path / "bus.jsonl") as bus:
        with pytest.raises(ValidationError, match="member name 'two words'"):
            bus.post("two words", "x")
        with pytest.raises(ValidationError, match="member name '../etc'"):
            bus.post("user", "x", visible_to={"../etc"})
        with pytest.raises(ValidationError, match="kind"):
            bus.post("user", "x", kind="whisper")  # type: ignore[arg-type]
        assert bus.messages == []
    assert (tmp_path / "bus.jsonl").read_bytes() == b""
    for reserved in ("user", "Commander", "SYSTEM"):
        with pytest.raises(ValueError, match="reserved"):
            check_agent_name(reserved)
    assert check_agent_name("researcher") == "researcher"


def test_listeners_hear_saved_messages_and_a_failing_one_undoes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bus.jsonl"
    heard: list[tuple[str, bool]] = []
    with MessageBus(path) as bus:
        def listener(m: BusMessage) -> None:  # it runs after the line is on disk
            heard.append((m.text, m.id.encode() in path.read_bytes()))

        def broken(m: BusMessage) -> None:
            raise RuntimeError("display gone")

        bus.subscribe(broken)
        stop = bus.subscribe(listener)
        bus.post("user", "one")
        stop()
        bus.post("user", "two")
        assert heard == [("one", True)]
        assert [m.text for m in bus.messages] == ["one", "two"]


def test_posts_from_threads_get_distinct_consecutive_seqs(tmp_path: Path) -> None:
    with MessageBus(tmp_path / "bus.jsonl", durable=False) as bus:
        def worker(n: int) -> None:
            for i in range(50):
                bus.post("user", f"{n}-{i}")

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [m.seq for m in bus.messages] == list(range(1, 201))
    with MessageBus(tmp_path / "bus.jsonl") as bus:
        assert len(bus.messages) == 200 and bus.repair_notes == []


def test_state_lives_beside_the_sessions_and_names_are_confined(tmp_path: Path) -> None:
    assert team_folder(tmp_path, "my nb") == tmp_path / ".orkas" / "teams" / "my_nb"
    assert bus_path(tmp_path, "../../x").parent.parent == tmp_path / ".orkas" / "teams"
    path = member_session_path(tmp_path, "nb", "researcher")
    assert path == tmp_path / ".orkas" / "teams" / "nb" / "members" / "researcher.jsonl"
    with pytest.raises(ValueError, match="member name"):
        member_session_path(tmp_path, "nb", "../commander")
