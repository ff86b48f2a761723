"""Sessions: the record of a conversation, in memory or as a JSONL file that survives kill -9.

File format: one message a line, UTF-8 JSON, ``\\n``-terminated. Guarantees:

- ``append`` writes the whole line with one ``write`` on an ``O_APPEND`` descriptor, then
  ``fsync``s before returning; a line is on disk, or the torn tail is cut at the next open.
- ``rewrite`` (compaction, clear) goes through a temp file, ``fsync``, ``rename``, and an
  ``fsync`` of the folder: a crash leaves the old file or the new one, never a mix.
- One writer per file: an advisory ``flock`` on ``<file>.lock``; a second writer gets
  :class:`SessionLockedError` naming the holder. ``readonly=True`` opens a view without it.
- Every load repairs (``repair.py``); the repaired history is what the model sees next.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Callable, Protocol, Sequence

from pydantic import TypeAdapter, ValidationError

from ..core.errors import SessionLockedError, StateError
from ..core.messages import Message
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
    messages: list[Message] = []
    notes: list[str] = []
    lines = data.split(b"\n")
    torn_tail = lines.pop()  # text after the last newline: a torn write, or b""
    if torn_tail.strip():
        notes.append(f"dropped a torn last line ({len(torn_tail)} bytes)")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            messages.append(_MESSAGE.validate_json(raw))
        except (ValidationError, ValueError) as exc:
            notes.append(f"dropped unreadable line {number}: {str(exc).splitlines()[0][:120]}")
    return messages, notes


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


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class JsonlSession:
    """A persistent session file, repaired on load, written durably, one writer at a time."""

    def __init__(
        self, path: str | os.PathLike[str], *, readonly: bool = False, durable: bool = True
    ) -> None:
        self.path = Path(path)
        self.name = self.path.stem
        self.readonly = readonly
        self.durable = durable
        self._fd: int | None = None
        self._lock_fd: int | None = None
        self.repair_notes: list[str] = []
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._acquire_lock()
        try:
            self._messages = self._load()
            if not readonly:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except BaseException:
            self.close()
            raise

    # -- loading -----------------------------------------------------------------------------

    def _load(self) -> list[Message]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StateError(f"cannot read session {self.path}: {exc}") from exc
        messages, notes = decode_lines(data)
        repaired = repair(messages)
        if repaired != messages:
            notes.append("repaired tool-call pairing")
        self.repair_notes = notes
        if notes and not self.readonly:
            # Persist the repair so the next append extends a clean file (a torn tail
            # would otherwise glue itself to the next line).
            self._write_atomically(repaired)
        return repaired

    # -- locking -----------------------------------------------------------------------------

    def _acquire_lock(self) -> None:
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            finally:
                os.close(fd)
            raise SessionLockedError(
                f"session {self.path.name!r} is open for writing in another process "
                f"(pid {holder}); close it there, or open it read-only"
            ) from None
        holder = str(os.getpid()).encode()
        # Written then cut to length: truncating to 0 first makes ext4 flush the file when it
        # is closed (its guard for replace-by-truncate), ~10-30 us at every close.
        os.pwrite(fd, holder, 0)
        os.ftruncate(fd, len(holder))
        self._lock_fd = fd

    # -- the contract ------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    def append(self, message: Message) -> None:
        if self._fd is None:
            raise StateError(f"session {self.path.name!r} is read-only or closed")
        line = encode_line(message)
        try:
            written = os.write(self._fd, line)
            if written != len(line):  # short write: disk full; cut it so the file stays clean
                raise OSError(f"short write ({written} of {len(line)} bytes)")
            _hook("append:written")
            if self.durable:
                os.fsync(self._fd)
        except OSError as exc:
            raise StateError(f"could not save to session {self.path.name!r}: {exc}") from exc
        self._messages.append(message)

    def rewrite(self, messages: Sequence[Message]) -> None:
        if self._fd is None:
            raise StateError(f"session {self.path.name!r} is read-only or closed")
        try:
            self._write_atomically(messages)
            os.close(self._fd)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise StateError(f"could not rewrite session {self.path.name!r}: {exc}") from exc
        self._messages = list(messages)

    def _write_atomically(self, messages: Sequence[Message]) -> None:
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            f.write(b"".join(encode_line(m) for m in messages))
            f.flush()
            _hook("rewrite:temp-written")
            os.fsync(f.fileno())
        _hook("rewrite:temp-synced")
        os.replace(tmp, self.path)
        _hook("rewrite:renamed")
        _fsync_dir(self.path.parent)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def __enter__(self) -> "JsonlSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def session_path(workspace: str | os.PathLike[str], name: str) -> Path:
    """Where a named session of a workspace lives."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    while ".." in safe:
        safe = safe.replace("..", "_")
    safe = safe.strip(".") or "default"
    return Path(workspace) / ".orkas" / "sessions" / f"{safe}.jsonl"


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

