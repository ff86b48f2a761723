"""The knowledge base's storage: one SQLite database (a file, or ``:memory:``).

Tables: ``sources`` (what the user added), ``documents`` (one per ingested file, with its
content hash), ``chunks`` (line ranges; the text lives in the FTS5 table under the same rowid),
``vectors`` (see ``vectors.py``) and ``meta`` (schema version, embedder, generation).

Every change to a document is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``) that also
bumps ``generation``, so a kill -9 at any instant leaves the previous state of that document
and in-memory caches know when to reload. The file uses WAL journaling.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .chunking import Chunk
from .lexical import SCHEMA as LEXICAL_SCHEMA
from .lexical import LexicalIndex
from .sqlite_driver import Database, connect
from .vectors import SCHEMA as VECTOR_SCHEMA
from .vectors import VectorIndex

if TYPE_CHECKING:
    import numpy as np

SCHEMA_VERSION = "1"

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, added_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS documents(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, source_id INTEGER NOT NULL,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL,
    chunks INTEGER NOT NULL, indexed_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS documents_source ON documents(source_id);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
"""
    + LEXICAL_SCHEMA
    + VECTOR_SCHEMA
)


@dataclass
class PendingDocument:
    """A document ready to be written: its record, chunks and (optional) vectors."""

    path: str
    source_id: int
    size: int
    mtime_ns: int
    sha256: str
    chunks: list[Chunk]
    heading: str = ""
    vectors: np.ndarray | None = None


class SqliteStore:
    """Sources, documents, chunks and both indexes in one database."""

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        max_postings: int = 12000,
        exact_limit: int = 20000,
        heading_weight: float = 0.5,
        drivers: Iterable[str] | None = None,
    ) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self.db: Database = connect(self.path, **({"drivers": tuple(drivers)} if drivers else {}))
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.execute("PRAGMA cache_size=-32768")  # 32 MiB: FTS5 segment merges stay in memory
        self.db.script(_SCHEMA)
        with self.db.transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?), ('generation', '0')",
                (SCHEMA_VERSION,),
            )
        self.lexical = LexicalIndex(
            self.db, max_postings=max_postings, heading_weight=heading_weight
        )
        self.vectors = VectorIndex(self.db, exact_limit=exact_limit)

    @property
    def engine(self) -> str:
        where = "in memory" if self.path == ":memory:" else self.path
        return f"{self.db.engine}; {where}"

    # -- meta -------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    @property
    def generation(self) -> int:
        return int(self.meta("generation") or 0)

    def _bump(self) -> None:
        self.db.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
        )

    def use_embedder(self, embedder_id: str | None) -> bool:
        """Record the embedder; vectors of another embedder are dropped. True if they were."""
        current = self.meta("embedder")
        if embedder_id is None or current == embedder_id:
            return False
        with self.db.transaction():
            self.db.execute("DELETE FROM vectors")
            self.db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?)", (embedder_id,)
            )
            self._bump()
        return current is not None

    def use_chunking(self, chunking: str) -> bool:
        """Record how documents are chunked; on a change, every document is marked stale.

        The sync skips a file whose size, mtime and hash match its record, so without this a
        new chunk size would apply only to files edited later, leaving the index a mix of
        both. A stale record (size -1, no hash) makes the next sync re-read and re-chunk each
        file (and re-embed its chunks). True if documents were marked. A database from before
        this record was kept is assumed to use the current chunking.
        """
        current = self.meta("chunking")
        if current == chunking:
            return False
        with self.db.transaction():
            if current is not None:
                self.db.execute("UPDATE documents SET size = -1, sha256 = ''")
            self.db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('chunking', ?)", (chunking,)
            )
            self._bump()
        return current is not None

    # -- sources ----------------------------------------------------------------------------

    def sources(self) -> list[tuple[int, str]]:
        return [
            (int(i), str(p)) for i, p in self.db.execute("SELECT id, path FROM sources ORDER BY id")
        ]

    def add_source(self, path: str) -> int:
        with self.db.transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO sources(path, added_at) VALUES (?, ?)", (path, time.time())
            )
            row = self.db.one("SELECT id FROM sources WHERE path = ?", (path,))
        assert row is not None
        return int(row[0])

    def remove_source(self, source_id: int) -> None:
        with self.db.transaction():
            self.db.execute("DELETE FROM sources WHERE id = ?", (source_id,))
            self._bump()

    # -- documents --------------------------------------------------------------------------

    def documents(self, source_id: int | None = None) -> list[tuple[Any, ...]]:
        sql = "SELECT id, path, source_id, size, mtime_ns, sha256, chunks FROM documents"
        if source_id is None:
            return self.db.execute(sql + " ORDER BY path")
        return self.db.execute(sql + " WHERE source_id = ? ORDER BY path", (source_id,))

    def document(self, path: str) -> tuple[Any, ...] | None:
        return self.db.one(
            "SELECT id, path, source_id, size, mtime_ns, sha256, chunks FROM documents WHERE path = ?",
            (path,),
        )

    def _delete_chunks(self, doc_id: int) -> None:
        ids = [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))]
        if ids:
            self.db.executemany("DELETE FROM chunk_text WHERE rowid = ?", [(i,) for i in ids])
            self.db.executemany("DELETE FROM vectors WHERE chunk_id = ?", [(i,) for i in ids])
            self.db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))

    def replace_document(
        self,
        path: str,
        source_id: int,
        size: int,
        mtime_ns: int,
        sha256: str,
        chunks: list[Chunk],
        vectors: np.ndarray | None = None,
        heading: str = "",
    ) -> None:
        """Write (or rewrite) one document and its chunks atomically."""
        self.write_documents(
            [PendingDocument(path, source_id, size, mtime_ns, sha256, chunks, heading, vectors)]
        )

    def write_documents(self, docs: list[PendingDocument]) -> None:
        """Write (or rewrite) documents and their chunks in one transaction.

        A document's ``heading`` (its first line) is indexed with each of its chunks that does
        not start at line 1, so a passage deep in a document still matches its title.
        """
        if not docs:
            return
        with self.db.transaction():
            start = int(self.db.one("SELECT coalesce(max(id), 0) FROM chunks")[0]) + 1  # type: ignore[index]
            chunk_rows: list[tuple[int, int, int, int]] = []
            text_rows: list[tuple[int, str, str]] = []
            vector_rows: list[tuple[int, bytes]] = []
            for doc in docs:
                old = self.db.one("SELECT id FROM documents WHERE path = ?", (doc.path,))
                if old is not None:
                    self._delete_chunks(int(old[0]))
                    self.db.execute("DELETE FROM documents WHERE id = ?", (old[0],))
                self.db.execute(
                    "INSERT INTO documents(path, source_id, size, mtime_ns, sha256, chunks, "
                    "indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        doc.path,
                        doc.source_id,
                        doc.size,
                        doc.mtime_ns,
                        doc.sha256,
                        len(doc.chunks),
                        time.time(),
                    ),
                )
                doc_id = int(self.db.one("SELECT last_insert_rowid()")[0])  # type: ignore[index]
                ids = list(range(start, start + len(doc.chunks)))
                start += len(doc.chunks)
                for i, c in zip(ids, doc.chunks):
                    chunk_rows.append((i, doc_id, c.start_line, c.end_line))
                    text_rows.append((i, c.text, "" if c.start_line == 1 else doc.heading))
                if doc.vectors is not None and ids:
                    vector_rows.extend(self.vectors.rows(ids, doc.vectors))
            self.db.executemany(
                "INSERT INTO chunks(id, doc_id, start_line, end_line) VALUES (?, ?, ?, ?)",
                chunk_rows,
            )
            self.db.executemany(
                "INSERT INTO chunk_text(rowid, text, heading) VALUES (?, ?, ?)", text_rows
            )
            if vector_rows:
                self.db.executemany(
                    "INSERT INTO vectors(chunk_id, embedding) VALUES (?, ?)", vector_rows
                )
            self._bump()

    def touch_document(self, path: str, size: int, mtime_ns: int, source_id: int) -> None:
        """Same content, new stat (a ``touch``, a copy): remember it so we skip hashing next time."""
        with self.db.transaction():
            self.db.execute(
                "UPDATE documents SET size = ?, mtime_ns = ?, source_id = ? WHERE path = ?",
                (size, mtime_ns, source_id, path),
            )

    def delete_documents(self, paths: Iterable[str]) -> None:
        with self.db.transaction():
            for path in paths:
                row = self.db.one("SELECT id FROM documents WHERE path = ?", (path,))
                if row is not None:
                    self._delete_chunks(int(row[0]))
                    self.db.execute("DELETE FROM documents WHERE id = ?", (row[0],))
            self._bump()

    def reassign(self, paths: Iterable[str], source_id: int) -> None:
        with self.db.transaction():
            self.db.executemany(
                "UPDATE documents SET source_id = ? WHERE path = ?", [(source_id, p) for p in paths]
            )

    # -- vectors for chunks written without them --------------------------------------------

    def chunks_without_vectors(self, limit: int) -> list[tuple[int, str]]:
        """(chunk id, text to embed: heading line + passage) for chunks with no vector yet."""
        return [
            (int(i), f"{h}\n{t}" if h else str(t))
            for i, t, h in self.db.execute(
                "SELECT c.id, t.text, t.heading FROM chunks c JOIN chunk_text t ON t.rowid = c.id "
                "LEFT JOIN vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL "
                "ORDER BY c.id LIMIT ?",
                (limit,),
            )
        ]

    def add_vectors(self, chunk_ids: list[int], matrix: np.ndarray) -> None:
        with self.db.transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO vectors(chunk_id, embedding) VALUES (?, ?)",
                self.vectors.rows(chunk_ids, matrix),
            )
            self._bump()

    # -- reading ----------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        def n(sql: str) -> int:
            row = self.db.one(sql)
            return int(row[0]) if row else 0

        return {
            "sources": n("SELECT count(*) FROM sources"),
            "documents": n("SELECT count(*) FROM documents"),
            "chunks": n("SELECT count(*) FROM chunks"),
            "vectors": n("SELECT count(*) FROM vectors"),
        }

    def chunk_vectors(self, ids: list[int]) -> np.ndarray:
        """The stored (unit) vectors of these chunks, in no particular order."""
        import numpy as np

        rows = (
            self.db.execute(
                f"SELECT embedding FROM vectors WHERE chunk_id IN ({','.join(map(str, ids))})"
            )
            if ids
            else []
        )
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(len(rows), -1)

    def chunk_details(self, ids: list[int]) -> dict[int, tuple[str, int, int, str]]:
        """chunk id -> (document path, start line, end line, text)."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(
            "SELECT c.id, d.path, c.start_line, c.end_line, t.text FROM chunks c "
            "JOIN documents d ON d.id = c.doc_id JOIN chunk_text t ON t.rowid = c.id "
            f"WHERE c.id IN ({marks})",
            ids,
        )
        return {int(r[0]): (str(r[1]), int(r[2]), int(r[3]), str(r[4])) for r in rows}

    def text_search(self, query: str, limit: int) -> list[tuple[int, float]]:
        return self.lexical.search(query, limit, self.generation)

    def vector_search(self, vector: Any, limit: int) -> list[tuple[int, float]]:
        return self.vectors.search(vector, limit, self.generation)

    def vector_search_near(self, vector: Any, limit: int):  # type: ignore[no-untyped-def]
        """(hits, neighbourhood): see :meth:`VectorIndex.search_near`."""
        return self.vectors.search_near(vector, limit, self.generation)

    def check(self) -> list[str]:
        """Integrity problems (empty when the database and its FTS5 index are sound)."""
        problems = [str(r[0]) for r in self.db.execute("PRAGMA integrity_check") if r[0] != "ok"]
        try:
            self.db.execute("INSERT INTO chunk_text(chunk_text) VALUES ('integrity-check')")
        except Exception as exc:  # the driver's error type: FTS5 reports corruption this way
            problems.append(f"fts5: {exc}")
        return problems

    def close(self) -> None:
        self.db.close()
