"""What one agent's evolution keeps on disk, and how each file survives kill -9.

``<workspace>/.orkas/evolution/<agent>/`` holds

- ``signals.jsonl`` and ``log.jsonl``: one record a line, appended with one ``write`` and an
  ``fsync``; a torn last line (a crash mid-append) is dropped on read and cut before the next
  append, so it never swallows the record after it;
- ``state.json`` (the switch, the last cycle, the tokens spent, the skills this agent created)
  and ``profile.md`` (its skill profile): replaced atomically (temp file, ``fsync``, rename);
- and, in ``<workspace>/.orkas/skills/.private/<agent>/<name>/SKILL.md``, the agent's
  **private** skill library, each file replaced atomically.

Nothing here raises on a damaged file: an unreadable state is the default state, an unreadable
line is dropped, and the agent keeps working.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from ...harness.durable import decode_jsonl, fsync_dir

__all__ = [
    "EVOLUTION_DIR",
    "AgentState",
    "AgentStore",
    "Change",
    "Reflection",
    "SignalKind",
    "SignalRecord",
    "append_record",
    "atomic_write",
    "read_records",
]

EVOLUTION_DIR = Path(".orkas") / "evolution"
PRIVATE_SKILLS_DIR = Path(".orkas") / "skills" / ".private"
SignalKind = Literal["correction", "recovery", "complexity", "weakness", "inefficient_skill"]
_LOCK = threading.Lock()


class SignalRecord(BaseModel):
    """One weighted observation about one run of the agent (a short note, never a transcript)."""

    ts: float
    kind: SignalKind
    weight: float
    note: str = Field(default="", max_length=300)
    task_id: str | None = None


class Change(BaseModel):
    """One file a reflection wrote: the bytes before (None: it did not exist) and after."""

    path: str  # relative to the workspace
    skill: str | None = None  # None: the profile
    before: str | None = None  # exact text before (None: absent)
    after: str
    diff: str = ""


class Reflection(BaseModel):
    """One reflection, as ``%agent evolve log`` shows it."""

    type: Literal["reflection"] = "reflection"
    id: str
    agent: str
    started: float
    ended: float = 0.0
    trigger: str = ""  # threshold, fallback, manual
    status: Literal["done", "failed", "capped", "refused"] = "done"
    reason: str = ""
    signals: dict[str, float] = Field(default_factory=dict)  # kind -> weight summed
    input_tokens: int = 0
    output_tokens: int = 0
    # At the catalog's list price of ``model``, request by request; None: the price is unknown
    # (a local model, an unknown name), never guessed as 0.
    cost_usd: float | None = None
    model: str = ""
    changes: list[Change] = Field(default_factory=list)
    refusals: list[str] = Field(default_factory=list)


class Undo(BaseModel):
    type: Literal["undo"] = "undo"
    id: str  # the reflection undone
    ts: float


LogRecord = Reflection | Undo
_LOG = TypeAdapter(LogRecord)
_SIGNAL = TypeAdapter(SignalRecord)


class AgentState(BaseModel):
    """The small, atomically replaced state of one agent's evolution."""

    enabled: bool = False
    enabled_at: float | None = None
    last_cycle: float | None = None
    tokens_total: int = 0
    created: list[str] = Field(default_factory=list)  # private skills this agent wrote itself
    unseen: list[str] = Field(default_factory=list)  # changes the next run's notice announces
    # The agent's last request, so a retry is seen across cells (the notebook rebuilds its team
    # per cell) and kernel restarts; capped: a summary, not a transcript.
    last_request: str = Field(default="", max_length=500)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: the old file or the new one survive a crash, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def append_record(path: Path, record: BaseModel) -> None:
    """Append one JSON line durably, cutting a torn tail first (see the module doc)."""
    line = record.model_dump_json().encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with _LOCK:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = os.pread(fd, size, 0)
                os.ftruncate(fd, data.rfind(b"\n") + 1)
            os.lseek(fd, 0, os.SEEK_END)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def read_records(path: Path, adapter: TypeAdapter[Any]) -> list[Any]:
    try:
        data = path.read_bytes()
    except OSError:
        return []
    return decode_jsonl(data, adapter)[0]


class AgentStore:
    """The files of one agent's evolution (see the module doc)."""

    def __init__(self, workspace: str | Path, agent: str) -> None:
        self.agent = agent
        self.workspace = Path(workspace)
        self.folder = self.workspace / EVOLUTION_DIR / agent
        # Beside the workspace's skills, in a hidden folder the shared root never lists, so the
        # file tools' read-only exception for .orkas/skills covers it (and nothing else of .orkas).
        self.skills_dir = self.workspace / PRIVATE_SKILLS_DIR / agent
        self.profile_path = self.folder / "profile.md"

    # -- state ------------------------------------------------------------------------------
    def state(self) -> AgentState:
        try:
            return AgentState.model_validate_json((self.folder / "state.json").read_bytes())
        except (OSError, ValidationError, ValueError):
            return AgentState()

    def save_state(self, state: AgentState) -> None:
        atomic_write(self.folder / "state.json", state.model_dump_json(indent=1).encode())

    def set_enabled(self, on: bool, now: float | None = None) -> AgentState:
        state = self.state()
        state.enabled = on
        if on and state.enabled_at is None:
            state.enabled_at = time.time() if now is None else now
        self.save_state(state)
        return state

    # -- signals and log --------------------------------------------------------------------
    def add_signal(self, signal: SignalRecord) -> None:
        append_record(self.folder / "signals.jsonl", signal)

    def signals(self, since: float | None = None) -> list[SignalRecord]:
        found = read_records(self.folder / "signals.jsonl", _SIGNAL)
        return [s for s in found if since is None or s.ts > since]

    def log(self, record: Reflection | Undo) -> None:
        append_record(self.folder / "log.jsonl", record)

    def history(self) -> list[Reflection]:
        """Every reflection, oldest first, those undone marked by a ``refusals`` note."""
        records = read_records(self.folder / "log.jsonl", _LOG)
        undone = {r.id for r in records if isinstance(r, Undo)}
        latest: dict[str, Reflection] = {}  # a reflection's progress records, then its last
        for r in records:
            if isinstance(r, Reflection):
                latest.pop(r.id, None)
                if r.id in undone:
                    r = r.model_copy(update={"reason": (r.reason + " (undone)").strip()})
                latest[r.id] = r
        return list(latest.values())

    def undone(self) -> set[str]:
        return {r.id for r in read_records(self.folder / "log.jsonl", _LOG) if isinstance(r, Undo)}

    # -- private library and profile --------------------------------------------------------
    def skill_path(self, name: str) -> Path:
        return self.skills_dir / name / "SKILL.md"

    def profile(self) -> str:
        try:
            return self.profile_path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return ""


def dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
