"""Sessions: the record of a conversation, in memory or as a JSONL file that survives kill -9.

File format: one message a line, UTF-8 JSON, ``\\n``-terminated. Guarantees (the machinery
lives in ``durable.py``, shared with the team's bus and ledger):

- ``append`` writes the whole line with one ``write`` on an ``O_APPEND`` descriptor, then
  ``fsync``s before returning; a line is on disk, or the torn tail is cut at the next open.
- ``rewrite`` (compaction, clear) goes through a temp file, ``fsync``, ``rename``, and an
  ``fsync`` of the folder: a crash leaves the old file or the new one, never a mix.
- One writer per file: an advisory ``flock`` on ``<file>.lock``; a second writer gets
  :class:`SessionLockedError` naming the holder. ``readonly=True`` opens a view without it.
- Every load repairs (``repair.py``); the repaired history is what the model sees next.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Protocol, Sequence

from pydantic import TypeAdapter

from ..core.errors import StateError
from ..core.messages import Message
from .durable import DurableJsonl, decode_jsonl
from .repair import repair

_MESSAGE = TypeAdapter(Message)

# Test seam for the crash test: called with a label at the dangerous points of the write
# paths ("append:written", "rewrite:temp-synced" ...). None in production.
crash_hook: Callable[[str], None] | None = None


def _hook(label: str) -> None:
    if crash_hook is not None:
        crash_hook(label)


def encode_line(message: Message) -> bytes:
    """A message's session line, cached on the (immutable) message."""
    cache = message.wire_cache
    line = cache.get("session_line")
    if line is None:
        line = message.model_dump_json().encode("utf-8") + b"\n"
        cache["session_line"] = line
    return line


def decode_lines(data: bytes) -> tuple[list[Message], list[str]]:
    """Parse session bytes. Returns the messages and notes about what was dropped."""
    return decode_jsonl(data, _MESSAGE)


class Session(Protocol):
    """Where a conversation lives. ``messages`` is the repaired history."""

    name: str

    @property
    def messages(self) -> list[Message]: ...

    def append(self, message: Message) -> None: ...

    def rewrite(self, messages: Sequence[Message]) -> None: ...

    def close(self) -> None: ...


class InMemorySession:
    """A session for tests and throwaway use; same contract as the file session."""

    def __init__(self, name: str = "memory", messages: Sequence[Message] = ()) -> None:
        self.name = name
        self._messages: list[Message] = repair(list(messages))
        self.repair_notes: list[str] = []

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    def append(self, message: Message) -> None:
        self._messages.append(message)

    def rewrite(self, messages: Sequence[Message]) -> None:
        self._messages = list(messages)

    def close(self) -> None:
        pass

    def __enter__(self) -> "InMemorySession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class JsonlSession:
    """A persistent session file, repaired on load, written durably, one writer at a time."""

    def __init__(
        self, path: str | os.PathLike[str], *, readonly: bool = False, durable: bool = True
    ) -> None:
        self.path = Path(path)
        self.name = self.path.stem
        self.readonly = readonly
        self.durable = durable
        self.repair_notes: list[str] = []
        self._file = DurableJsonl(self.path, readonly=readonly, durable=durable, what="session",
                                  hook=_hook)
        try:
            self._messages = self._load()
            if not readonly:
                self._file.open_for_append()
        except BaseException:
            self.close()
            raise

    def _load(self) -> list[Message]:
        messages, notes = decode_lines(self._file.read())
        repaired = repair(messages)
        if repaired != messages:
            notes.append("repaired tool-call pairing")
        self.repair_notes = notes
        if notes and not self.readonly:
            # Persist the repair so the next append extends a clean file (a torn tail
            # would otherwise glue itself to the next line).
            self._file.rewrite(encode_line(m) for m in repaired)
        return repaired

    # -- the contract ------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    def append(self, message: Message) -> None:
        self._file.append(encode_line(message))
        self._messages.append(message)

    def rewrite(self, messages: Sequence[Message]) -> None:
        if not self._file.writable:
            raise StateError(f"session {self.path.name!r} is read-only or closed")
        self._file.rewrite(encode_line(m) for m in messages)
        self._messages = list(messages)

    def close(self) -> None:
        file = getattr(self, "_file", None)
        if file is not None:
            file.close()

    def __enter__(self) -> "JsonlSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def safe_name(name: str) -> str:
    """``name`` as one file-name component confined to its folder (no ``/``, no ``..``)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    while ".." in safe:
        safe = safe.replace("..", "_")
    return safe.strip(".") or "default"


def session_path(workspace: str | os.PathLike[str], name: str) -> Path:
    """Where a named session of a workspace lives."""
    return Path(workspace) / ".orkas" / "sessions" / f"{safe_name(name)}.jsonl"


def list_sessions(workspace: str | os.PathLike[str]) -> list[dict[str, object]]:
    """Sessions of a workspace with size and last use, newest first."""
    folder = Path(workspace) / ".orkas" / "sessions"
    rows = []
    for p in folder.glob("*.jsonl"):
        st = p.stat()
        rows.append({"name": p.stem, "bytes": st.st_size, "modified": st.st_mtime, "path": str(p)})
    return sorted(rows, key=lambda r: -float(r["modified"]))  # type: ignore[arg-type]


def dump_messages(messages: Sequence[Message]) -> str:
    """Messages as pretty JSON (for debugging and ``%agent show``)."""
    return json.dumps([json.loads(encode_line(m)) for m in messages], indent=2, ensure_ascii=False)

