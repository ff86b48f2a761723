"""Records the knowledge base hands out: sources, documents, search hits, ingest reports."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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
