"""A JSONL file that survives kill -9: the write machinery shared by every state file.

Sessions (``session.py``) and the team's bus and ledger (``orkas_nb.team``) are all one record
a line. This module holds what they share, so there is one implementation of each guarantee:

- ``append`` writes the whole line with one ``write`` on an ``O_APPEND`` descriptor, then
  ``fsync``s before returning; a line is on disk, or the torn tail is cut at the next open.
- ``rewrite`` goes through a temp file, ``fsync``, ``rename``, and an ``fsync`` of the folder:
  a crash leaves the old file or the new one, never a mix.
- One writer per file: an advisory ``flock`` on ``<file>.lock``; a second writer gets
  :class:`SessionLockedError` naming the holder. ``readonly=True`` opens a view without it.
  A child this process is forking holds a copy of every descriptor until it execs (close-on-exec
  closes it only then), so a lock this process has just released can look taken for a moment:
  when the file names this process and no object of ours holds it, the lock is retried briefly.
  A second writer in this same process is refused at once, as one in another process is.

What a line means is the owner's business: :func:`decode_jsonl` parses with the owner's
pydantic type and says what it dropped; the owner repairs and calls ``rewrite`` if it must.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from pydantic import TypeAdapter, ValidationError

from ..core.errors import SessionLockedError, StateError

T = TypeVar("T")

# Lock files this process holds through a DurableJsonl (by device and inode): a second writer
# here is a bug or a double open, told at once; anything else naming our pid is a fork's copy.
_HELD: set[tuple[int, int]] = set()
_HELD_GUARD = threading.Lock()
FORK_COPY_WAIT = 2.0  # seconds: a fork's copy lasts until its exec, well under this

# Test seam for crash tests: called with a label at the dangerous points of the write paths
# ("append:written", "rewrite:temp-synced" ...). None in production. An owner may pass its own.
crash_hook: Callable[[str], None] | None = None


def _hook(label: str) -> None:
    if crash_hook is not None:
        crash_hook(label)


def decode_jsonl(data: bytes, adapter: TypeAdapter[T]) -> tuple[list[T], list[str]]:
    """Parse JSONL bytes with ``adapter``. Returns the records and notes about what was dropped."""
    records: list[T] = []
    notes: list[str] = []
    lines = data.split(b"\n")
    torn_tail = lines.pop()  # text after the last newline: a torn write, or b""
    if torn_tail.strip():
        notes.append(f"dropped a torn last line ({len(torn_tail)} bytes)")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            records.append(adapter.validate_json(raw))
        except (ValidationError, ValueError) as exc:
            notes.append(f"dropped unreadable line {number}: {str(exc).splitlines()[0][:120]}")
    return records, notes


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class DurableJsonl:
    """One JSONL file, one writer: locked, appended durably, rewritten atomically.

    ``what`` names the file in errors ("session", "bus" ...). Open it, ``read()`` what is there,
    then ``append``/``rewrite``; errors are :class:`StateError` with the file named.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        durable: bool = True,
        what: str = "file",
        hook: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.durable = durable
        self.what = what
        self._hook = hook or _hook
        self._fd: int | None = None
        self._lock_fd: int | None = None
        self._lock_key: tuple[int, int] = (-1, -1)
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._acquire_lock()

    def read(self) -> bytes:
        """The file's bytes (b"" when it does not exist yet)."""
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise StateError(f"cannot read {self.what} {self.path}: {exc}") from exc

    def open_for_append(self) -> None:
        """Start appending (after the owner has read and, if needed, repaired the file)."""
        if self.readonly:
            raise StateError(f"{self.what} {self.path.name!r} is read-only")
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    @property
    def writable(self) -> bool:
        return self._fd is not None

    # -- locking -----------------------------------------------------------------------------

    def _acquire_lock(self) -> None:
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._lock_key = self._take_lock(fd)
        except BaseException:
            os.close(fd)
            raise
        holder = str(os.getpid()).encode()
        # Written then cut to length: truncating to 0 first makes ext4 flush the file when it
        # is closed (its guard for replace-by-truncate), ~10-30 us at every close.
        os.pwrite(fd, holder, 0)
        os.ftruncate(fd, len(holder))
        self._lock_fd = fd

    def _take_lock(self, fd: int) -> tuple[int, int]:
        info = os.fstat(fd)
        key = (info.st_dev, info.st_ino)
        deadline = time.monotonic() + FORK_COPY_WAIT
        pause = 0.001
        while True:
            with _HELD_GUARD:
                mine = key in _HELD
                if not mine:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        pass
                    else:
                        _HELD.add(key)
                        return key
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            ours = holder == str(os.getpid())
            if mine or not ours or time.monotonic() >= deadline:
                where = (f"already open for writing in this process (pid {holder})" if mine
                         else f"still held by a process started by this one (pid {holder})" if ours
                         else f"open for writing in another process (pid {holder})")
                raise SessionLockedError(
                    f"{self.what} {self.path.name!r} is {where}; close it there, or open it "
                    f"read-only"
                ) from None
            time.sleep(pause)  # a child of ours between fork and exec still holds the copy
            pause = min(pause * 2, 0.05)

    # -- writing -----------------------------------------------------------------------------

    def append(self, line: bytes) -> None:
        """Write one ``\\n``-terminated line; on disk (fsynced) when this returns."""
        if self._fd is None:
            raise StateError(f"{self.what} {self.path.name!r} is read-only or closed")
        try:
            written = os.write(self._fd, line)
            if written != len(line):  # short write: disk full; the next load cuts the tail
                raise OSError(f"short write ({written} of {len(line)} bytes)")
            self._hook("append:written")
            if self.durable:
                os.fsync(self._fd)
        except OSError as exc:
            raise StateError(f"could not save to {self.what} {self.path.name!r}: {exc}") from exc

    def rewrite(self, lines: Iterable[bytes]) -> None:
        """Replace the whole file atomically; appends continue on the new file."""
        if self.readonly:
            raise StateError(f"{self.what} {self.path.name!r} is read-only or closed")
        try:
            self._write_atomically(b"".join(lines))
            if self._fd is not None:
                os.close(self._fd)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise StateError(f"could not rewrite {self.what} {self.path.name!r}: {exc}") from exc

    def _write_atomically(self, data: bytes) -> None:
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            self._hook("rewrite:temp-written")
            os.fsync(f.fileno())
        self._hook("rewrite:temp-synced")
        os.replace(tmp, self.path)
        self._hook("rewrite:renamed")
        fsync_dir(self.path.parent)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            with _HELD_GUARD:  # closing releases the flock (once forked copies are gone too)
                os.close(self._lock_fd)
                self._lock_fd = None
                _HELD.discard(self._lock_key)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
