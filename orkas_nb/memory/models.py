"""Records memory hands out: knowledge-base sources, documents, search hits, ingest reports;
cross-session memory's settings, entries (with their source) and write results."""

from __future__ import annotations

import hashlib
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class SourceInfo(BaseModel):
    """A file or folder the user added; ``path`` is workspace-relative when inside it."""

    model_config = ConfigDict(frozen=True)

    path: str
    kind: Literal["file", "folder", "missing"]
    documents: int = 0
    chunks: int = 0


class DocumentInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str
    source: str
    size: int
    sha256: str
    chunks: int


class SearchHit(BaseModel):
    """One passage: where it is (file and 1-based inclusive lines), its text and its scores.

    ``score`` is the fused RRF score (rank only); ``bm25`` and ``similarity`` are the real
    relevance signals of the lists the passage was found in (None when absent from that list).
    """

    model_config = ConfigDict(frozen=True)

    path: str
    start_line: int
    end_line: int
    text: str
    score: float
    bm25: float | None = None
    similarity: float | None = None

    @property
    def citation(self) -> str:
        if self.start_line == self.end_line:
            return f"{self.path}:{self.start_line}"
        return f"{self.path}:{self.start_line}-{self.end_line}"


class IngestReport(BaseModel):
    """What one sync did; ``skipped`` and ``errors`` carry a reason per path."""

    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = Field(default_factory=list)
    skipped: dict[str, str] = Field(default_factory=dict)
    errors: dict[str, str] = Field(default_factory=dict)
    chunks_written: int = 0
    bytes_read: int = 0
    embedded: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        parts = [
            f"{len(self.added)} added",
            f"{len(self.updated)} updated",
            f"{self.unchanged} unchanged",
            f"{len(self.removed)} removed",
        ]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.errors:
            parts.append(f"{len(self.errors)} failed")
        return ", ".join(parts) + f" ({self.chunks_written} chunks, {self.seconds:.2f} s)"


# -- cross-session memory ----------------------------------------------------------------

JudgeMode = Literal["off", "doubtful", "all"]


class MemorySettings(BaseModel):
    profile_cap: int = 2000
    notes_cap: int = 4000
    entry_max: int = 800
    duplicate_similarity: float = 0.8
    # The optional judge (guard_judge): "doubtful" asks it about entries the detectors could not
    # decide, "all" about every entry they accept. A workspace setting (set_judge) wins.
    judge: JudgeMode = "off"
    judge_model: str | None = None  # provider/model; None: the agent's own model


class EntrySource(BaseModel):
    """Who wrote an entry, from where: what ``%agent memory show`` prints beside it."""

    by: Literal["agent", "user"] = "user"
    session: str | None = None
    turn: str = ""  # id of the user message that started the turn (in the session file)
    call_id: str = ""
    untrusted: list[str] = Field(default_factory=list)  # tools with untrusted output read before
    approved: bool = False  # the user consented to this write (it followed untrusted content)
    judged: bool = False  # the judge was asked and kept it

    def describe(self) -> str:
        if self.by == "user":
            parts = ["by the user"]
        else:
            parts = ["by the agent"]
            if self.session:
                parts.append(f"session {self.session!r}")
            if self.turn:
                parts.append(f"turn {self.turn}")
            if self.call_id:
                parts.append(f"call {self.call_id}")
        if self.untrusted:
            parts.append(f"after reading {', '.join(self.untrusted)}")
        if self.approved:
            parts.append("approved by the user")
        if self.judged:
            parts.append("kept by the judge")
        return " · ".join(parts)


class Entry(BaseModel):
    text: str
    created: float = Field(default_factory=time.time)
    id: str = ""  # short and stable: ``%agent memory forget ID``
    source: EntrySource | None = None  # None: written before sources were recorded

    @model_validator(mode="after")
    def _stable_id(self) -> Entry:
        if not self.id:  # older files: derive it, so it is the same on every read
            self.id = hashlib.sha1(f"{self.created!r}:{self.text}".encode()).hexdigest()[:8]
        return self


class MemoryResult(BaseModel):
    """The outcome of one write; ``message`` is what the model (or the user) is told."""

    ok: bool
    message: str
    trimmed: list[str] = Field(default_factory=list)
