"""The conversation bus (SPEC §11, seed 003 §3): one per team conversation, the only way work
reaches a member.

Every message has a sender and the set of members who can see it. A member's context is
replayed from :meth:`MessageBus.view` of its own name; the commander sees everything; the sender
always sees its own messages. The bus is durable like a session (it is written by the same
machinery, :mod:`orkas_nb.harness.durable`): a :meth:`MessageBus.post` that returned is on
disk, a torn tail left by kill -9 is cut at the next open, one process writes at a time.

Layout of a conversation's state folder (``team_folder``)::

    .orkas/teams/<conversation>/bus.jsonl              this bus
    .orkas/teams/<conversation>/ledger.jsonl           floor holder and task ledger (ledger.py)
    .orkas/teams/<conversation>/members/<member>.jsonl one session per member
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path
from typing import Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_serializer, model_validator

from ..core.errors import StateError
from ..core.messages import new_id
from ..harness.durable import decode_jsonl
from ..harness.session import safe_name
from .durable_log import DurableLog

log = logging.getLogger(__name__)

USER = "user"
COMMANDER = "commander"
SYSTEM = "system"  # the orchestrator itself (notices such as an interrupted task)
RESERVED = frozenset({USER, COMMANDER, SYSTEM})  # no agent may be called so (any case)

# What a member may be called: short, and addressable as ``@name`` (see handback.py).
MEMBER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")

MessageKind = Literal["task", "result", "chat", "floor", "system"]
Visibility = frozenset[str] | Literal["all"]


def check_member_name(name: object) -> str:
    """``name`` if it can be a member of a conversation (the reserved ones included)."""
    if not isinstance(name, str) or not MEMBER_NAME.fullmatch(name):
        raise ValueError(f"member name {name!r} is not valid: use 1 to 64 letters, digits, '_' "
                         f"or '-', starting with a letter or digit")
    return name


def check_agent_name(name: object) -> str:
    """``name`` if an agent may take it: a valid member name that is not reserved."""
    check_member_name(name)
    assert isinstance(name, str)
    if name.lower() in RESERVED:
        raise ValueError(f"{name!r} is reserved for the conversation itself "
                         f"({', '.join(sorted(RESERVED))}); give the agent another name")
    return name


class BusMessage(BaseModel):
    """One message of the conversation. ``seq`` is its place on the bus (1, 2, ...)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    seq: int = Field(ge=1)
    sender: str
    visible_to: Visibility
    kind: MessageKind = "chat"
    text: str
    to: str | None = None  # the member who must act on it (a task's assignee), if any
    task_id: str | None = None  # the ledger task it belongs to
    created_at: float

    @model_validator(mode="after")
    def _sender_sees_its_own(self) -> "BusMessage":
        check_member_name(self.sender)
        if self.to is not None:
            check_member_name(self.to)
        if self.visible_to != "all":
            for name in self.visible_to:
                check_member_name(name)
            if self.sender not in self.visible_to:
                object.__setattr__(self, "visible_to", self.visible_to | {self.sender})
        return self

    @field_serializer("visible_to")
    def _sorted(self, value: Visibility) -> list[str] | str:
        # Sorted, so a line's bytes do not depend on the hash seed.
        return value if value == "all" else sorted(value)

    def visible_for(self, member: str) -> bool:
        return member == COMMANDER or self.visible_to == "all" or member in self.visible_to


_MESSAGE = TypeAdapter(BusMessage)
Listener = Callable[[BusMessage], None]


class MessageBus(DurableLog):
    """The bus of one conversation: in memory (``path=None``) or a durable JSONL file."""

    what = "bus"

    def _reset(self) -> None:
        self._messages: list[BusMessage] = []
        self._listeners: list[Listener] = []

    def _load(self) -> None:
        assert self._file is not None
        loaded, notes = decode_jsonl(self._file.read(), _MESSAGE)
        messages: list[BusMessage] = []
        for m in loaded:
            if messages and m.seq <= messages[-1].seq:
                notes.append(f"dropped message {m.id} whose seq {m.seq} does not follow "
                              f"{messages[-1].seq}")
                continue
            messages.append(m)
        self._messages = messages
        self.repair_notes = notes
        if self.readonly:
            return
        if notes:  # cut the torn tail now, or the next post would glue itself to it
            self._file.rewrite(_line(m) for m in messages)
        self._file.open_for_append()

    # -- writing -----------------------------------------------------------------------------

    def post(
        self,
        sender: str,
        text: str,
        *,
        visible_to: Visibility | set[str] | list[str] | tuple[str, ...] = "all",
        kind: MessageKind = "chat",
        to: str | None = None,
        task_id: str | None = None,
    ) -> BusMessage:
        """Add a message; it is on disk when this returns (then listeners are told)."""
        if self.readonly:
            raise StateError(f"bus {self.path} is open read-only")
        scope: Visibility = visible_to if visible_to == "all" else frozenset(visible_to)
        with self._lock:
            seq = self._messages[-1].seq + 1 if self._messages else 1
            message = BusMessage(
                id=new_id("bus"), seq=seq, sender=sender, visible_to=scope, kind=kind,
                text=text, to=to, task_id=task_id, created_at=time.time(),
            )
            if self._file is not None:
                self._file.append(_line(message))
            self._messages.append(message)
        for listener in list(self._listeners):
            try:
                listener(message)
            except Exception:  # a display must not undo a saved message
                log.exception("a bus listener failed on message %s", message.id)
        return message

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after each post; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- reading -----------------------------------------------------------------------------

    @property
    def messages(self) -> list[BusMessage]:
        """Every message, in bus order (the commander's view)."""
        return list(self._messages)

    def view(self, member: str, *, after: int = 0) -> list[BusMessage]:
        """What ``member`` may see, in bus order; ``after`` a seq, for what is new since."""
        return [m for m in self._messages if m.seq > after and m.visible_for(member)]

    def get(self, message_id: str) -> BusMessage | None:
        return next((m for m in self._messages if m.id == message_id), None)



def _line(message: BusMessage) -> bytes:
    return message.model_dump_json().encode("utf-8") + b"\n"


# -- where things live -------------------------------------------------------------------------


def team_folder(workspace: str | os.PathLike[str], conversation: str) -> Path:
    """The state folder of a team conversation (bus, ledger, member sessions)."""
    return Path(workspace) / ".orkas" / "teams" / safe_name(conversation)


def bus_path(workspace: str | os.PathLike[str], conversation: str) -> Path:
    return team_folder(workspace, conversation) / "bus.jsonl"


def member_session_path(workspace: str | os.PathLike[str], conversation: str, member: str) -> Path:
    """The session of one member in one conversation (SPEC §9: one writer per file)."""
    check_member_name(member)
    return team_folder(workspace, conversation) / "members" / f"{safe_name(member)}.jsonl"
