"""Vector search: exact for small indexes; quantised prefilters then exact rescoring for large.

Vectors live in the ``vectors`` table as unit-length float32 blobs (sqlite-vec's own vector
format). Measured at 100,000 chunks on this machine, sqlite-vec's ``vec0`` KNN scans take
~50-120 ms (float and bit vectors alike), and a NumPy scan of the float32 matrix ~5-15 ms, so:

- Up to ``exact_limit`` chunks (20,000: 30 MB of float32), the vectors are held in memory and
  searched exactly by one matrix product.
- Above it, three stages, each exact on what the previous kept:

  1. Hamming distance between sign bits (one bit a dimension: 4.8 MB at 100,000 x 384-d),
     keeping ``candidate_fraction`` of the index (at least ``min_candidates``);
  2. cosine over a float16 copy of those candidates (the copy is 77 MB at 100,000 x 384-d),
     keeping twice the list asked for;
  3. exact cosine by sqlite-vec's ``vec_distance_cosine`` in SQL (NumPy without sqlite-vec).

  Sign bits alone rank MiniLM vectors poorly (measured on Cranfield's 2,250 chunks: the exact
  top 10 is 93% inside the Hamming-nearest 2% and 98% inside the nearest 5%), hence the wide
  first stage (2% by default) and the float16 middle stage that makes it affordable.

The in-memory copies are rebuilt from the table when the index generation changes (about a
second at 100,000 chunks, paid by the first search after a write).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from .sqlite_driver import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors(chunk_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
"""


def normalise(matrix: Any) -> np.ndarray:
    """Rows scaled to unit length (float32), so cosine similarity is a dot product."""
    import numpy as np

    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32)


def sign_words(matrix: np.ndarray) -> np.ndarray:
    """Sign bits packed into uint64 words (uint8 when the width is not a multiple of 64)."""
    import numpy as np

    packed = np.packbits(matrix > 0, axis=1)
    return packed.view(np.uint64) if packed.shape[1] % 8 == 0 else packed


def bit_count(words: np.ndarray) -> np.ndarray:
    """Set bits of each element of a 1-d unsigned integer array (uint8 counts).

    ``np.bitwise_count`` (one popcount instruction per word) came with NumPy 2.0; on NumPy 1.x
    the bytes go through a 256-entry table instead (a few times slower, same answer).
    """
    import numpy as np

    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    return _bit_count_by_table(words)


def _bit_count_by_table(words: np.ndarray) -> np.ndarray:
    import numpy as np

    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    per_byte = table[np.ascontiguousarray(words).view(np.uint8)]
    return per_byte.reshape(words.shape[0], -1).sum(axis=1, dtype=np.uint8)


@dataclass(frozen=True)
class Neighbourhood:
    """The candidates one search scored (ids and vectors), reused by the feedback pass.

    ``exact`` is True when ``matrix`` holds the stored float32 vectors (small index).
    """

    ids: np.ndarray
    matrix: np.ndarray
    exact: bool


@dataclass(frozen=True)
class _Snapshot:
    """The in-memory copy of one index generation (replaced whole, never mutated)."""

    generation: int
    ids: np.ndarray
    matrix: np.ndarray  # float32 (small index) or float16 (large index)
    words: np.ndarray | None  # sign bits, word-major (large index only)


class VectorIndex:
    """Cosine search over the ``vectors`` table (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        *,
        exact_limit: int = 20000,
        min_candidates: int = 1000,
        candidate_fraction: float = 0.02,
    ) -> None:
        self.db = db
        self.exact_limit = exact_limit
        self.min_candidates = min_candidates
        self.candidate_fraction = candidate_fraction
        self._snapshot: _Snapshot | None = None
        self._lock = threading.Lock()  # one reload at a time; searches read a whole snapshot

    def rows(self, chunk_ids: list[int], matrix: np.ndarray) -> list[tuple[int, bytes]]:
        """Rows to insert for these chunks (vectors normalised here)."""
        unit = normalise(matrix)
        return [(cid, unit[i].tobytes()) for i, cid in enumerate(chunk_ids)]

    def _load(self, generation: int) -> _Snapshot:
        import numpy as np

        snap = self._snapshot
        if snap is not None and snap.generation == generation:
            return snap
        with self._lock:
            snap = self._snapshot
            if snap is not None and snap.generation == generation:
                return snap
            rows = self.db.execute("SELECT chunk_id, embedding FROM vectors ORDER BY chunk_id")
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            words = None
            if not rows:
                matrix = np.zeros((0, 0), dtype=np.float32)
            else:
                flat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
                matrix = flat.reshape(len(rows), -1)
                if len(rows) > self.exact_limit:
                    # Word-major bits: the distance is then a few long vector operations.
                    words = np.ascontiguousarray(sign_words(matrix).T)
                    matrix = matrix.astype(np.float16)
            self._snapshot = _Snapshot(generation, ids, matrix, words)
            return self._snapshot

    def count(self, generation: int) -> int:
        return int(self._load(generation).ids.shape[0])

    def search(self, vector: Any, limit: int, generation: int) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) best first."""
        return self.search_near(vector, limit, generation)[0]

    def search_near(
        self, vector: Any, limit: int, generation: int
    ) -> tuple[list[tuple[int, float]], Neighbourhood | None]:
        """Like :meth:`search`, also returning the scored candidates for :meth:`rescore`."""
        snap = self._load(generation)
        if limit <= 0 or snap.ids.shape[0] == 0:
            return [], None
        query = normalise(vector)[0]
        if snap.matrix.shape[1] != query.shape[0]:
            raise ValueError(
                f"query has {query.shape[0]} dimensions, the index {snap.matrix.shape[1]}"
            )
        if snap.words is None:  # small index: exact, in memory
            near = Neighbourhood(snap.ids, snap.matrix, exact=True)
        else:
            rows = self._hamming_nearest(snap, query, limit)
            near = Neighbourhood(snap.ids[rows], snap.matrix[rows].astype("float32"), exact=False)
        return self.rescore(near, query, limit), near

    def rescore(self, near: Neighbourhood, vector: Any, limit: int) -> list[tuple[int, float]]:
        """Exact scores for ``vector`` over an earlier search's candidates (feedback)."""
        query = normalise(vector)[0]
        approx = _top(near.ids, near.matrix @ query, limit if near.exact else 2 * limit)
        if near.exact:
            return approx  # the stored float32 vectors: already exact
        return self._exact([cid for cid, _ in approx], query, limit)

    def _hamming_nearest(self, snap: _Snapshot, query: np.ndarray, pool: int) -> np.ndarray:
        """Row numbers of the Hamming-nearest chunks (by sign bits)."""
        import numpy as np

        assert snap.words is not None
        total = snap.ids.shape[0]
        wanted = int(max(self.min_candidates, 8 * pool, self.candidate_fraction * total))
        qwords = sign_words(query[None, :])[0]
        distance = bit_count(snap.words[0] ^ qwords[0]).astype(np.uint16)
        for row, qword in zip(snap.words[1:], qwords[1:]):
            distance += bit_count(row ^ qword)
        if wanted >= total:
            return np.arange(total)
        # Distances are small integers with many ties, where a selection sort can degrade;
        # a histogram gives the cut-off distance in one pass instead.
        counts = np.cumsum(np.bincount(distance))
        cutoff = int(np.searchsorted(counts, wanted))
        inside = np.flatnonzero(distance < cutoff)
        on_edge = np.flatnonzero(distance == cutoff)[: wanted - inside.shape[0]]
        return np.concatenate([inside, on_edge])

    def _exact(self, ids: list[int], query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        import numpy as np

        if not ids:
            return []
        marks = ",".join(map(str, ids))
        if self.db.has_vec:
            rows = self.db.execute(
                "SELECT chunk_id, 1.0 - vec_distance_cosine(embedding, ?) AS s FROM vectors "
                f"WHERE chunk_id IN ({marks}) ORDER BY s DESC, chunk_id LIMIT ?",
                (query.tobytes(), limit),
            )
            return [(int(c), float(s)) for c, s in rows]
        rows = self.db.execute(
            f"SELECT chunk_id, embedding FROM vectors WHERE chunk_id IN ({marks})"
        )
        found = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        return _top(found, matrix.reshape(len(rows), -1) @ query, limit)


def _top(ids: np.ndarray, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
    import numpy as np

    top = min(limit, scores.shape[0])
    if top <= 0:
        return []
    best = np.argpartition(-scores, top - 1)[:top]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [(int(ids[i]), float(scores[i])) for i in best]
