"""The user editing what a named agent wrote: a correction read from the files, not the words.

When a run's file tool writes a file (a ``tool_end`` of ``write_file``/``edit_file`` naming it
in ``output_files``), :meth:`WrittenFiles.claim` records who wrote it and the SHA-256 of what it
wrote. The last writer owns a file: a later write by another run (another agent, the commander,
a worker) takes it over, so that agent's output is no longer the first agent's. At the start of
an agent's next run, :meth:`WrittenFiles.edited` returns each file it owns whose bytes have
changed since (the user edited it) and forgets it, so one edit is one correction. A deleted
file is forgotten without a signal (tidying up is not a correction).

``<workspace>/.orkas/evolution/written.json`` holds the record: replaced atomically (temp file,
``fsync``, rename), so a kill -9 leaves the old record or the new one; an unreadable record is
an empty one. Only names and hashes are kept, never contents.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from .store import EVOLUTION_DIR, atomic_write

__all__ = ["MAX_WRITTEN", "Written", "WrittenFiles", "file_digest"]

MAX_WRITTEN = 500  # files remembered; the oldest claims go first
_LOCK = threading.Lock()


class Written(BaseModel):
    """Who last wrote each file (workspace-relative, or absolute outside it) and its hash."""

    files: dict[str, tuple[str, str]] = Field(default_factory=dict)  # path -> (agent, sha256)


def file_digest(path: Path) -> str | None:
    """The SHA-256 of ``path``'s bytes, or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


class WrittenFiles:
    """The workspace's record of files written by agent runs (see the module doc)."""

    def __init__(self, workspace: str | Path) -> None:
        self.workspace = Path(workspace)
        self.path = self.workspace / EVOLUTION_DIR / "written.json"

    def load(self) -> Written:
        try:
            return Written.model_validate_json(self.path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return Written()

    def _key(self, name: str) -> tuple[str, Path]:
        full = (self.workspace / name).resolve()
        try:
            return str(full.relative_to(self.workspace.resolve())), full
        except ValueError:
            return str(full), full

    def claim(self, writer: str, names: Iterable[str]) -> None:
        """``writer``'s run has just written ``names``: it owns them, with their hashes now."""
        found = [(key, file_digest(full)) for key, full in map(self._key, names)]
        if not found:
            return
        with _LOCK:
            record = self.load()
            for key, digest in found:
                record.files.pop(key, None)  # re-inserted last: the newest claim
                if digest is not None:
                    record.files[key] = (writer, digest)
            while len(record.files) > MAX_WRITTEN:
                record.files.pop(next(iter(record.files)))
            atomic_write(self.path, record.model_dump_json().encode())

    def edited(self, agent: str) -> list[str]:
        """The files ``agent`` wrote that changed since (forgotten once returned)."""
        with _LOCK:
            record = self.load()
            changed, gone = [], []
            for key, (writer, digest) in record.files.items():
                if writer != agent:
                    continue
                now = file_digest(self._key(key)[1])
                if now is None:
                    gone.append(key)
                elif now != digest:
                    changed.append(key)
            if changed or gone:
                for key in (*changed, *gone):
                    record.files.pop(key)
                atomic_write(self.path, record.model_dump_json().encode())
            return changed
