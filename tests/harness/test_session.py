"""The JSONL session: durable appends, atomic rewrites, one writer, repair on load."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orkas_nb.core.errors import SessionLockedError, StateError
from orkas_nb.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolResultMessage,
    UserMessage,
    tool_result,
    user_message,
)
from orkas_nb.harness import JsonlSession, session_path
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.harness.session import list_sessions
from orkas_nb.testing import call

from tests.conftest import normalise


def assistant_calling(*ids: str) -> AssistantMessage:
    return AssistantMessage(content=[TextBlock(text="calling"), *(call("t", i) for i in ids)])


def test_appends_survive_a_reopen_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    msgs = [user_message("héllo 你好"), assistant_calling("a"), tool_result(call("t", "a"), "r")]
    with JsonlSession(path) as s:
        for m in msgs:
            s.append(m)
    with JsonlSession(path) as again:
        assert again.messages == msgs
        assert again.repair_notes == []
    assert path.read_text(encoding="utf-8").count("\n") == 3


def test_a_second_writer_gets_a_clear_error_and_a_reader_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with JsonlSession(path) as first:
        first.append(user_message("one"))
        with pytest.raises(SessionLockedError, match=f"pid {os.getpid()}"):
            JsonlSession(path)
        view = JsonlSession(path, readonly=True)
        assert [m.text for m in view.messages] == ["one"]
        with pytest.raises(StateError, match="read-only"):
            view.append(user_message("two"))
    # Once the writer closed, another may open it.
    with JsonlSession(path) as second:
        second.append(user_message("two"))


def _hold_lock(path: str, ready, release) -> None:  # type: ignore[no-untyped-def]
    s = JsonlSession(path)
    ready.set()
    release.wait(10)
    s.close()


def test_the_lock_holds_across_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "s.jsonl")
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold_lock, args=(path, ready, release))
    proc.start()
    try:
        assert ready.wait(30)
        with pytest.raises(SessionLockedError, match=f"pid {proc.pid}"):
            JsonlSession(path)
    finally:
        release.set()
        proc.join(10)
    JsonlSession(path).close()


def test_a_torn_last_line_is_dropped_and_the_file_cleaned_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with JsonlSession(path) as s:
        s.append(user_message("kept"))
    with open(path, "ab") as f:
        f.write(b'{"role": "user", "content": [{"type": "te')  # a write cut by a crash
    with JsonlSession(path) as s:
        assert [m.text for m in s.messages] == ["kept"]
        assert any("torn" in n for n in s.repair_notes)
        s.append(user_message("after"))
    with JsonlSession(path) as s:
        assert [m.text for m in s.messages] == ["kept", "after"]
        assert s.repair_notes == []


def test_an_unreadable_middle_line_is_dropped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = user_message("good")
    path.write_bytes(good.model_dump_json().encode() + b"\nnot json at all\n")
    with JsonlSession(path) as s:
        assert [m.text for m in s.messages] == ["good"]
        assert any("unreadable line 2" in n for n in s.repair_notes)


def test_load_repairs_missing_and_misordered_results(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    a = assistant_calling("x", "y", "z")
    lines = [
        user_message("go"),
        a,
        tool_result(call("t", "z"), "Z"),
        tool_result(call("t", "x"), "X"),
        tool_result(call("t", "ghost"), "orphan"),
    ]
    path.write_bytes(b"".join(m.model_dump_json().encode() + b"\n" for m in lines))
    with JsonlSession(path) as s:
        msgs = s.messages
        assert pairing_problems(msgs) == []
        results = [m for m in msgs if isinstance(m, ToolResultMessage)]
        assert [(r.tool_call_id, r.status) for r in results] == [
            ("x", "ok"), ("y", "interrupted"), ("z", "ok")
        ]
    # The repair was persisted: a second load changes nothing.
    with JsonlSession(path) as again:
        assert again.repair_notes == []
        assert normalise(again.messages) == normalise(msgs)


def test_rewrite_is_atomic_and_appends_continue_after_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with JsonlSession(path) as s:
        for i in range(5):
            s.append(user_message(f"m{i}"))
        inode_before = path.stat().st_ino
        s.rewrite([user_message("summary")])
        assert path.stat().st_ino != inode_before  # a new file renamed into place
        s.append(user_message("next"))
    with JsonlSession(path) as s:
        assert [m.text for m in s.messages] == ["summary", "next"]
    assert not list(tmp_path.glob(".*.tmp"))


def test_session_paths_are_confined_and_listed(tmp_path: Path) -> None:
    p = session_path(tmp_path, "../../etc/passwd")
    assert p.parent == tmp_path / ".orkas" / "sessions"
    assert ".." not in p.name and "/" not in p.name
    with JsonlSession(session_path(tmp_path, "alpha")) as s:
        s.append(user_message("x"))
    rows = list_sessions(tmp_path)
    assert [r["name"] for r in rows] == ["alpha"] and rows[0]["bytes"] > 0


def test_a_failed_append_raises_state_error_and_does_not_enter_history(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    s = JsonlSession(path)
    s.append(user_message("one"))
    os.close(s._file._fd)  # the disk goes away under the session
    s._file._fd = os.open(os.devnull, os.O_RDONLY)
    with pytest.raises(StateError, match="could not save"):
        s.append(user_message("two"))
    assert [m.text for m in s.messages] == ["one"]
    s.close()


def test_every_line_is_one_json_message(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with JsonlSession(path) as s:
        s.append(UserMessage(content=[TextBlock(text="line\nbreaks\ninside")]))
    lines = path.read_bytes().split(b"\n")
    assert len(lines) == 2 and lines[1] == b""
    assert json.loads(lines[0])["role"] == "user"


def _child_holding_a_copy_of_the_lock(session: JsonlSession, seconds: float) -> subprocess.Popen:
    lock_fd = session._file._lock_fd
    assert lock_fd is not None
    return subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"],
                            pass_fds=(lock_fd,))


def test_a_child_holding_a_copy_of_the_lock_until_it_execs_does_not_lock_us_out(
        tmp_path: Path) -> None:
    # A subprocess started from another thread holds a copy of every descriptor from its fork to
    # its exec (close-on-exec acts only then): a session closed and opened again in that window
    # found its own lock taken. pass_fds keeps the copy open for a while, deterministically.
    path = tmp_path / "s.jsonl"
    first = JsonlSession(path)
    first.append(user_message("one"))
    child = _child_holding_a_copy_of_the_lock(first, seconds=0.4)
    try:
        first.close()
        with JsonlSession(path) as again:  # waited for the copy to go, then took the lock
            assert [m.text for m in again.messages] == ["one"]
            with pytest.raises(SessionLockedError, match="already open for writing in this process"):
                JsonlSession(path)  # a real second writer here is still refused at once
    finally:
        child.wait(10)


def test_a_copy_held_past_the_wait_is_named_as_ours(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from orkas_nb.harness import durable

    monkeypatch.setattr(durable, "FORK_COPY_WAIT", 0.05)
    path = tmp_path / "s.jsonl"
    first = JsonlSession(path)
    child = _child_holding_a_copy_of_the_lock(first, seconds=5)
    try:
        first.close()
        with pytest.raises(SessionLockedError, match=f"process started by this one \\(pid {os.getpid()}\\)"):
            JsonlSession(path)
    finally:
        child.kill()
        child.wait(10)
    JsonlSession(path).close()
