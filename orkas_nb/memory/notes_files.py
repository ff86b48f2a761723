"""Where cross-session memory is kept and how its files are written (see :mod:`.notes`).

Every file is rewritten atomically (temp file, fsync, rename, folder fsync), so a kill -9 leaves
the old or the new content; a read-modify-write holds an advisory lock on a ``.lock`` file
beside it, so two kernels never interleave.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path

from ..core.locations import config_dir  # noqa: F401  (one resolution for every layer)
from .models import Entry


def atomic_write(path: Path, data: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the advisory lock of ``path`` (a ``.lock`` file beside it) for a read-modify-write."""
    lock = path.with_name(path.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def read_entries(path: Path) -> list[Entry]:
    """The entries of one store file; none when it does not exist yet."""
    try:
        raw = json.loads(path.read_text("utf-8"))
        return [Entry.model_validate(e) for e in raw.get("entries", [])]
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise ValueError(f"memory file {path} is unreadable: {exc}") from exc


def write_entries(path: Path, entries: list[Entry]) -> None:
    body = {"version": 1, "entries": [e.model_dump() for e in entries]}
    atomic_write(path, json.dumps(body, ensure_ascii=False, indent=1) + "\n")
