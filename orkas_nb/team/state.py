"""One team conversation's durable state, opened together: bus, ledger, member sessions.

:class:`TeamState` is what the commander's tools and the notebook hold. Opening it (a kernel
start, a reload) reconciles what a crash left: the ledger has turned unfinished tasks into
``interrupted``, and each one the commander was not yet told of becomes a ``system`` message on
the bus, visible to the commander only — so a dispatch in flight when the kernel died is
reported, never silently run again.

It also keeps the conversation's plan executor (:attr:`TeamState.plan`, made by
:func:`~orkas_nb.agent.plan.plan_for` for the first team built over this state): the plan's
file has one writer per process (SPEC §9), so a team rebuilt over the same state (each
``%%agent`` cell) re-attaches that executor instead of opening the file again, and a plan
running steps keeps running across the rebuild. :attr:`TeamState.commander_lock` keeps the
commander's turns (the user's and the plan's wake-ups, whichever team runs them) one at a time
on its one session.

It also holds the two routing rules of the floor (seed 003 §3):

- :meth:`TeamState.route_user_message`: ``@name`` at the start goes to that member;
  ``@commander`` also takes the floor back; anything else goes to the floor holder.
- :meth:`TeamState.read_reply`: a floor holder's reply ending in a real ``<handback />``
  returns the floor to the commander, who then resumes ``ledger.unfinished()``.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..harness.session import InMemorySession, JsonlSession, Session
from .bus import (
    COMMANDER,
    SYSTEM,
    USER,
    BusMessage,
    MessageBus,
    bus_path,
    check_member_name,
    member_session_path,
    team_folder,
)
from .handback import Handback, parse_address, split_handback
from .ledger import Task, TaskLedger, ledger_path

if TYPE_CHECKING:
    from .plan_executor import PlanExecutor


def interrupted_notice(task: Task) -> str:
    """What the commander is told of a task that was cut short and will not run by itself."""
    if task.assignee == COMMANDER:
        return (f"The user's request {task.id} was interrupted ({task.reason}) before you "
                f"finished it; nothing of it runs again by itself. Decide now: carry it on in "
                f"this turn (dispatch_to with retry_of for an agent's interrupted part), or tell "
                f"the user what was left undone. The request was: {task.text}")
    return (f"Task {task.id} for {task.assignee} was interrupted ({task.reason}) and did not "
            f"finish; it will not run again unless you decide so: run it anew with "
            f"retry_of={task.id!r} (dispatch_to, or run_worker for a worker), or tell the user. "
            f"The task was: {task.text}")


@dataclass(frozen=True)
class Route:
    """Where a user's message goes."""

    member: str
    text: str
    addressed: bool  # the user wrote ``@member``; False: it went to the floor holder


class TeamState:
    """Bus, ledger and member sessions of one conversation (``workspace=None``: in memory)."""

    def __init__(
        self,
        workspace: str | os.PathLike[str] | None,
        conversation: str = "default",
        *,
        durable: bool = True,
    ) -> None:
        self.workspace = Path(workspace) if workspace is not None else None
        self.conversation = conversation
        self.durable = durable
        self._sessions: dict[str, Session] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.commander_lock = asyncio.Lock()  # one commander turn at a time, see the module docs
        self.plan: PlanExecutor | None = None  # the conversation's plan executor, see above
        if self.workspace is None:
            self.folder: Path | None = None
            self.bus = MessageBus.in_memory()
            self.ledger = TaskLedger.in_memory()
        else:
            self.folder = team_folder(self.workspace, conversation)
            self.bus = MessageBus(bus_path(self.workspace, conversation), durable=durable)
            try:
                self.ledger = TaskLedger(ledger_path(self.workspace, conversation), durable=durable)
            except BaseException:
                self.bus.close()
                raise
        try:
            self.notices = self._tell_commander(self.ledger.needs_notice())
        except BaseException:
            self.close()
            raise

    @classmethod
    def in_memory(cls, conversation: str = "memory") -> "TeamState":
        return cls(None, conversation)

    def _tell_commander(self, tasks: list[Task]) -> list[BusMessage]:
        notices = []
        for task in tasks:
            notices.append(self.bus.post(SYSTEM, interrupted_notice(task), visible_to={COMMANDER},
                                         kind="system", task_id=task.id))
        # After the notices are saved: a crash in between repeats a notice, never loses one.
        self.ledger.mark_noticed(t.id for t in tasks)
        return notices

    # -- members -----------------------------------------------------------------------------

    def session_path(self, member: str) -> Path | None:
        if self.workspace is None:
            return None
        return member_session_path(self.workspace, self.conversation, member)

    def session(self, member: str) -> Session:
        """The member's own session (opened once; its file is locked to this process)."""
        check_member_name(member)
        if member not in self._sessions:
            path = self.session_path(member)
            self._sessions[member] = (InMemorySession(member) if path is None
                                      else JsonlSession(path, durable=self.durable))
        return self._sessions[member]

    def member_lock(self, member: str) -> asyncio.Lock:
        """Held while a member runs: dispatches to one member queue behind each other."""
        check_member_name(member)
        return self._locks.setdefault(member, asyncio.Lock())

    # -- the floor ---------------------------------------------------------------------------

    def pass_floor(self, holder: str, *, by: str = COMMANDER, reason: str = "") -> BusMessage | None:
        """Move the floor (the ledger first: it is the truth) and announce it on the bus, where
        every client sees it; None when ``holder`` already has it."""
        if self.ledger.floor.holder == holder:
            return None
        self.ledger.pass_floor(holder, by=by, reason=reason)
        text = (f"{holder} has the floor" + (f": {reason}" if reason else "")
                if holder != COMMANDER else "the floor is back with the commander")
        return self.bus.post(SYSTEM, text, kind="floor", to=holder)

    def route_user_message(self, text: str, members: Iterable[str]) -> Route:
        """Who gets the user's ``text``. ``members``: the agents of the conversation."""
        known = {COMMANDER, *members}
        addressed = parse_address(text, known)
        if addressed is None:
            return Route(self.ledger.floor.holder, text, False)
        if addressed.member == COMMANDER:
            self.pass_floor(COMMANDER, by=USER)
        return Route(addressed.member, addressed.text, True)

    def read_reply(self, member: str, text: str) -> Handback:
        """A member's reply to the user; a real hand-back from the floor holder returns the floor."""
        result = split_handback(text)
        if result.handed_back and self.ledger.floor.holder == member:
            self.pass_floor(COMMANDER, by=member)
        return result

    def close(self) -> None:
        if self.plan is not None:  # first: it may still record a step's end on the bus
            self.plan.close()
            self.plan = None
        for session in self._sessions.values():
            session.close()
        self._sessions.clear()
        self.ledger.close()
        self.bus.close()

    def __enter__(self) -> "TeamState":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
