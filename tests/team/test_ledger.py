"""The floor holder and the task ledger: transitions, persistence, durable resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orkas_nb.core.errors import StateError
from orkas_nb.team.ledger import TaskLedger, ledger_path


def test_a_task_goes_pending_running_done_and_is_saved_at_each_step(tmp_path: Path) -> None:
    path = ledger_path(tmp_path, "nb")
    with TaskLedger(path) as ledger:
        task = ledger.create("researcher", "read paper A")
        assert task.status == "pending" and task.requester == "commander"
        ledger.start(task.id)
        done = ledger.finish(task.id, "A says yes", ["notes/a.md"])
        assert (done.status, done.summary, done.output_files) == ("done", "A says yes", ["notes/a.md"])
        failed = ledger.fail(ledger.create("writer", "draft").id, "no access")
        assert failed.status == "failed" and failed.reason == "no access"
    with TaskLedger(path) as ledger:
        assert [(t.assignee, t.status) for t in ledger.tasks] == [("researcher", "done"),
                                                                  ("writer", "failed")]
        assert ledger.get(task.id) == done
        assert ledger.interrupted_at_load == [] and ledger.needs_notice() == []
    kinds = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    assert kinds == ["task", "status", "status", "task", "status"]


def test_impossible_transitions_are_refused_and_nothing_is_saved(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with TaskLedger(path) as ledger:
        task = ledger.create("researcher", "x")
        with pytest.raises(StateError, match="pending; it cannot become done"):
            ledger.finish(task.id)
        ledger.start(task.id)
        with pytest.raises(StateError, match="running; it cannot become running"):
            ledger.start(task.id)  # a task runs at most once
        ledger.finish(task.id, "ok")
        with pytest.raises(StateError, match="done; it cannot become failed"):
            ledger.fail(task.id, "late")
        with pytest.raises(StateError, match="no task 'nope'"):
            ledger.start("nope")
        with pytest.raises(StateError, match="no task 'nope' to derive from"):
            ledger.create("researcher", "y", parent="nope")
        with pytest.raises(ValueError, match="member name"):
            ledger.create("two words", "y")
        size = path.stat().st_size
    assert len(path.read_text().splitlines()) == 3 and path.stat().st_size == size


def test_unfinished_tasks_are_interrupted_at_load_and_never_run_again(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    ledger = TaskLedger(path)
    running = ledger.start(ledger.create("researcher", "long search").id)
    queued = ledger.create("researcher", "then summarise")
    finished = ledger.finish(ledger.start(ledger.create("writer", "title").id).id, "a title")
    ledger.close()  # as a kill -9 would leave it: a task running, one queued

    with TaskLedger(path, readonly=True) as view:  # a view changes nothing
        assert view.get(running.id).status == "running"  # type: ignore[union-attr]

    with TaskLedger(path) as ledger:
        assert [t.id for t in ledger.interrupted_at_load] == [running.id, queued.id]
        assert ledger.get(running.id).reason == "the kernel stopped while it ran"  # type: ignore[union-attr]
        assert ledger.get(queued.id).reason == "the kernel stopped before it started"  # type: ignore[union-attr]
        assert ledger.get(finished.id).status == "done"  # type: ignore[union-attr]
        assert ledger.unfinished() == []
        assert [t.id for t in ledger.needs_notice()] == [running.id, queued.id]
        with pytest.raises(StateError, match="interrupted; it cannot become running"):
            ledger.start(running.id)
        ledger.mark_noticed([running.id])
        retry = ledger.create("researcher", "long search", parent=running.id)  # the commander's decision
    with TaskLedger(path) as ledger:
        # The retry was left pending: interrupted in turn. The others were already.
        assert [t.id for t in ledger.interrupted_at_load] == [retry.id]
        # Being told is durable: the noticed task is not reported twice.
        assert [t.id for t in ledger.needs_notice()] == [queued.id, retry.id]
        assert ledger.get(retry.id).parent == running.id  # type: ignore[union-attr]
        assert ledger.get(retry.id).status == "interrupted"  # type: ignore[union-attr]


def test_the_floor_is_persisted_and_returns_to_the_commander(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with TaskLedger(path) as ledger:
        assert ledger.floor.holder == "commander"
        ledger.pass_floor("tutor", reason="teach the user about priors")
    with TaskLedger(path) as ledger:  # a kernel restart keeps the floor where it was
        assert (ledger.floor.holder, ledger.floor.by, ledger.floor.reason) == (
            "tutor", "commander", "teach the user about priors")
        ledger.return_floor(by="tutor")
        size = path.stat().st_size
        ledger.return_floor(by="user")  # already the commander's: nothing written
        assert path.stat().st_size == size
    with TaskLedger(path) as ledger:
        assert ledger.floor.holder == "commander" and ledger.floor.by == "tutor"


def test_a_torn_tail_and_impossible_events_are_dropped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with TaskLedger(path) as ledger:
        task = ledger.create("researcher", "x")
        ledger.start(task.id)
        ledger.finish(task.id, "ok")
    lines = path.read_text().splitlines(keepends=True)
    bogus = json.dumps({"type": "status", "task_id": task.id, "status": "running", "at": 1.0})
    path.write_text(lines[0] + lines[1] + lines[2] + bogus + "\n" + lines[1][:30])
    with TaskLedger(path) as ledger:
        assert ledger.get(task.id).status == "done"  # type: ignore[union-attr]
        assert any("torn" in n for n in ledger.repair_notes)
        assert any("cannot go from done to running" in n for n in ledger.repair_notes)
        ledger.create("writer", "y")
    with TaskLedger(path) as ledger:
        assert ledger.repair_notes == [] and len(ledger.tasks) == 2


def test_in_memory_ledger_has_the_same_contract() -> None:
    ledger = TaskLedger.in_memory()
    task = ledger.start(ledger.create("researcher", "x").id)
    assert ledger.unfinished() == [task]
    ledger.interrupt(task.id, "group stop")
    assert ledger.get(task.id).status == "interrupted" and ledger.unfinished() == []  # type: ignore[union-attr]
    ledger.pass_floor("tutor")
    assert ledger.floor.holder == "tutor"


def test_a_request_waiting_on_the_floor_survives_a_reopen_and_resumes(tmp_path: Path) -> None:
    path = ledger_path(tmp_path, "nb")
    with TaskLedger(path) as ledger:
        request = ledger.create("commander", "teach me regex", requester="user")
        ledger.start(request.id)
        ledger.wait(request.id, "the floor is with tutor")
        running = ledger.create("tutor", "x")
        ledger.start(running.id)
    with TaskLedger(path) as ledger:  # a restart: what ran is cut short, what waited waits
        assert [t.id for t in ledger.interrupted_at_load] == [running.id]
        assert [(t.id, t.status) for t in ledger.unfinished()] == [(request.id, "waiting")]
        ledger.start(request.id)  # the commander resumes it
        assert ledger.finish(request.id, "done").status == "done"
        with pytest.raises(StateError, match="pending; it cannot become waiting"):
            ledger.wait(ledger.create("commander", "y").id)


def test_a_retry_names_its_task_once_and_only_a_task_that_did_not_succeed(tmp_path: Path) -> None:
    with TaskLedger(tmp_path / "ledger.jsonl") as ledger:
        cut = ledger.interrupt(ledger.create("researcher", "find A").id, "stopped")
        done = ledger.create("researcher", "find B")
        ledger.start(done.id)
        ledger.finish(done.id)
        assert ledger.retry_target(cut.id) == cut
        again = ledger.create("researcher", "find A", parent=cut.id, call_id="call_1")
        assert (again.parent, again.call_id) == (cut.id, "call_1")
        with pytest.raises(StateError, match=f"already retried as {again.id}"):
            ledger.retry_target(cut.id)
        with pytest.raises(StateError, match="is done; only a failed or interrupted"):
            ledger.retry_target(done.id)
        with pytest.raises(StateError, match="no task 'task_nope'"):
            ledger.retry_target("task_nope")
