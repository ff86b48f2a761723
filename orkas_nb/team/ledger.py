"""The team's minimal state (seed 003 §3): who holds the floor, and a light task ledger.

Persisted beside the bus as an append-only log of events (``ledger.jsonl``), folded on load.
Why a log and not a rewritten snapshot: every change is one fsynced line through the same
machinery as sessions and the bus (:mod:`orkas_nb.harness.durable`: one ``fsync`` instead of a
temp file, two ``fsync``s and a rename), a kill -9 can only tear the last line, which the next
open cuts, and the log doubles as the record of what happened (a task started at most once).

Only the orchestrator writes here (SPEC §3.2): a status changes through a method that checks the
transition, and the change is on disk before the method returns (§3.6)::

    pending -> running -> done | failed | interrupted
    pending -> failed | interrupted
    running -> waiting -> running | done | failed | interrupted

``waiting`` is the commander's own request while the floor is away (a hand-off): nothing runs
for it, so a restart leaves it as it is, and the commander resumes it when the floor returns.

Durable resume (SPEC §11): a writer that opens the ledger turns every task it finds ``pending``
or ``running`` (not ``waiting``) into ``interrupted`` — the process that would have run it is
gone, and no task is ever run again without the commander deciding so (a retry is a new task,
``parent`` = the old one, at most one retry a task: :meth:`TaskLedger.retry_target`). :meth:`TaskLedger.needs_notice` lists interrupted tasks the commander has not been told
of yet; :meth:`TaskLedger.mark_noticed` records that it has (after the notice is on the bus, so
a crash between the two repeats a notice rather than losing it).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..core.errors import StateError
from ..core.messages import new_id
from ..harness.durable import decode_jsonl
from .bus import COMMANDER, check_member_name, team_folder
from .durable_log import DurableLog

# What of a member's final text reaches the commander (its tool result and the ledger): enough
# for a report, small enough that eight parallel results do not flood its context. The full
# text stays on the bus.
SUMMARY_CHARS = 4000


def cap(text: str, limit: int = SUMMARY_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters on the bus]"


TaskStatus = Literal["pending", "running", "waiting", "done", "failed", "interrupted"]
FINISHED: frozenset[str] = frozenset({"done", "failed", "interrupted"})
RETRYABLE: frozenset[str] = frozenset({"failed", "interrupted"})
_ALLOWED: dict[str, frozenset[str]] = {
    "pending": frozenset({"running", "failed", "interrupted"}),
    "running": frozenset({"waiting", "done", "failed", "interrupted"}),
    "waiting": frozenset({"running", "done", "failed", "interrupted"}),
}


class Task(BaseModel):
    """What was asked of whom, and how it went."""

    model_config = ConfigDict(extra="forbid")

    id: str
    assignee: str
    text: str
    requester: str = COMMANDER
    parent: str | None = None  # the task this one came from (a retry, a sub-task)
    call_id: str = ""  # the commander's tool call that asked for it (one call, one task)
    status: TaskStatus = "pending"
    summary: str = ""
    output_files: list[str] = Field(default_factory=list)
    reason: str = ""  # why it failed or was interrupted
    noticed: bool = False  # the commander was told it was interrupted
    created_at: float
    updated_at: float


class Floor(BaseModel):
    """Who the user's messages without ``@name`` go to."""

    holder: str = COMMANDER
    by: str | None = None  # who passed it
    reason: str = ""  # what the hand-off was for
    since: float = 0.0


class _Created(BaseModel):
    type: Literal["task"] = "task"
    task: Task


class _Status(BaseModel):
    type: Literal["status"] = "status"
    task_id: str
    status: TaskStatus
    summary: str | None = None
    output_files: list[str] | None = None
    reason: str | None = None
    at: float


class _FloorChange(BaseModel):
    type: Literal["floor"] = "floor"
    floor: Floor


class _Noticed(BaseModel):
    type: Literal["noticed"] = "noticed"
    task_ids: list[str]
    at: float


LedgerEvent = Annotated[_Created | _Status | _FloorChange | _Noticed, Field(discriminator="type")]
_EVENT: TypeAdapter[LedgerEvent] = TypeAdapter(LedgerEvent)


def ledger_path(workspace: str | os.PathLike[str], conversation: str) -> Path:
    return team_folder(workspace, conversation) / "ledger.jsonl"


class TaskLedger(DurableLog):
    """Floor holder and tasks of one conversation: in memory (``path=None``) or durable."""

    what = "ledger"

    def _reset(self) -> None:
        self.interrupted_at_load: list[Task] = []  # what this open found unfinished
        self._tasks: dict[str, Task] = {}
        self._floor = Floor()

    # -- loading -----------------------------------------------------------------------------

    def _load(self) -> None:
        assert self._file is not None
        events, notes = decode_jsonl(self._file.read(), _EVENT)
        kept: list[LedgerEvent] = []
        for event in events:
            problem = self._apply(event)
            if problem:
                notes.append(f"dropped an event: {problem}")
            else:
                kept.append(event)
        self.repair_notes = notes
        if self.readonly:
            return
        if notes:  # cut a torn tail (or a bad line) before appending after it
            self._file.rewrite(_line(e) for e in kept)
        self._file.open_for_append()
        for task in [t for t in self._tasks.values() if t.status in ("pending", "running")]:
            was = task.status
            why = ("the kernel stopped while it ran" if was == "running"
                   else "the kernel stopped before it started")
            self.interrupted_at_load.append(self._set(task.id, "interrupted", reason=why))

    def _apply(self, event: LedgerEvent) -> str | None:
        """Fold one event into the state; a reason when it cannot apply (nothing changes)."""
        if isinstance(event, _Created):
            if event.task.id in self._tasks:
                return f"task {event.task.id} created twice"
            self._tasks[event.task.id] = event.task
        elif isinstance(event, _Status):
            task = self._tasks.get(event.task_id)
            if task is None:
                return f"status for unknown task {event.task_id}"
            if event.status not in _ALLOWED.get(task.status, frozenset()):
                return f"task {task.id} cannot go from {task.status} to {event.status}"
            update: dict[str, object] = {"status": event.status, "updated_at": event.at}
            for name in ("summary", "output_files", "reason"):
                value = getattr(event, name)
                if value is not None:
                    update[name] = value
            self._tasks[task.id] = task.model_copy(update=update)
        elif isinstance(event, _FloorChange):
            self._floor = event.floor
        else:
            for task_id in event.task_ids:
                if task_id in self._tasks:
                    self._tasks[task_id] = self._tasks[task_id].model_copy(update={"noticed": True})
        return None

    def _record(self, event: LedgerEvent) -> None:
        """Save, then apply: the state never shows what is not on disk."""
        if self.readonly:
            raise StateError(f"ledger {self.path} is open read-only")
        if self._file is not None:
            self._file.append(_line(event))
        problem = self._apply(event)
        assert problem is None, problem  # checked by the caller before saving

    # -- tasks -------------------------------------------------------------------------------

    def create(self, assignee: str, text: str, *, requester: str = COMMANDER,
               parent: str | None = None, call_id: str = "") -> Task:
        """A new pending task; saved when this returns."""
        check_member_name(assignee)
        check_member_name(requester)
        if parent is not None and parent not in self._tasks:
            raise StateError(f"no task {parent!r} to derive from")
        now = time.time()
        task = Task(id=new_id("task"), assignee=assignee, text=text, requester=requester,
                    parent=parent, call_id=call_id, created_at=now, updated_at=now)
        with self._lock:
            self._record(_Created(task=task))
        return task

    def start(self, task_id: str) -> Task:
        return self._set(task_id, "running")

    def finish(self, task_id: str, summary: str = "", output_files: Iterable[str] = ()) -> Task:
        return self._set(task_id, "done", summary=summary, output_files=list(output_files))

    def wait(self, task_id: str, reason: str = "") -> Task:
        """The commander's request waits for the floor to come back (nothing runs for it)."""
        return self._set(task_id, "waiting", reason=reason)

    def fail(self, task_id: str, reason: str, summary: str = "") -> Task:
        return self._set(task_id, "failed", reason=reason, summary=summary)

    def interrupt(self, task_id: str, reason: str) -> Task:
        """Stopped (group stop, Ctrl-C): it will not run again unless the commander retries it."""
        return self._set(task_id, "interrupted", reason=reason)

    def _set(self, task_id: str, status: TaskStatus, **fields: object) -> Task:
        with self._lock:
            task = self._tasks.get(task_id)
            if task is None:
                raise StateError(f"no task {task_id!r} in the ledger")
            if status not in _ALLOWED.get(task.status, frozenset()):
                raise StateError(f"task {task_id} is {task.status}; it cannot become {status}")
            self._record(_Status(task_id=task_id, status=status, at=time.time(), **fields))  # type: ignore[arg-type]
            return self._tasks[task_id]

    def get(self, task_id: str) -> Task | None:
        return self._tasks.get(task_id)

    @property
    def tasks(self) -> list[Task]:
        """Every task, in the order they were asked."""
        return list(self._tasks.values())

    def unfinished(self) -> list[Task]:
        """Pending, running or waiting: the work the commander resumes when the floor returns."""
        return [t for t in self._tasks.values() if t.status not in FINISHED]

    def retry_target(self, task_id: str) -> Task:
        """The task a retry derives from: it must exist, have ended without success, and not
        have been retried already (a StateError says which rule it breaks)."""
        task = self._tasks.get(task_id)
        if task is None:
            raise StateError(f"no task {task_id!r} in the ledger")
        if task.status not in RETRYABLE:
            raise StateError(f"task {task_id} is {task.status}; only a failed or interrupted "
                             f"task can be retried")
        again = next((t for t in self._tasks.values() if t.parent == task_id), None)
        if again is not None:
            raise StateError(f"task {task_id} was already retried as {again.id} ({again.status})")
        return task

    def needs_notice(self) -> list[Task]:
        """Interrupted tasks the commander has not been told of."""
        return [t for t in self._tasks.values() if t.status == "interrupted" and not t.noticed]

    def mark_noticed(self, task_ids: Iterable[str]) -> None:
        ids = [i for i in task_ids if i in self._tasks and not self._tasks[i].noticed]
        if ids:
            with self._lock:
                self._record(_Noticed(task_ids=ids, at=time.time()))

    # -- the floor ---------------------------------------------------------------------------

    @property
    def floor(self) -> Floor:
        return self._floor

    def pass_floor(self, holder: str, *, by: str = COMMANDER, reason: str = "") -> Floor:
        """``holder`` gets the user's messages without ``@name`` until the floor returns."""
        check_member_name(holder)
        with self._lock:
            self._record(_FloorChange(floor=Floor(holder=holder, by=by, reason=reason,
                                                  since=time.time())))
        return self._floor

    def return_floor(self, *, by: str) -> Floor:
        """The floor goes back to the commander (a hand-back, or the user addressing it)."""
        if self._floor.holder == COMMANDER:
            return self._floor
        return self.pass_floor(COMMANDER, by=by)


def _line(event: LedgerEvent) -> bytes:
    return event.model_dump_json().encode("utf-8") + b"\n"
