"""Vector search: exact for small indexes, binary prefilter + exact rescoring for large ones."""

from __future__ import annotations

import numpy as np

from orkas_nb.memory.chunking import Chunk
from orkas_nb.memory.store import SqliteStore


def _clustered(n: int, dim: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((50, dim)).astype(np.float32)
    x = centres[rng.integers(0, 50, n)] + 0.8 * rng.standard_normal((n, dim)).astype(np.float32)
    return x, centres


def _fill(store: SqliteStore, matrix: np.ndarray) -> list[int]:
    sid = store.add_source(".")
    store.replace_document(
        "v.txt",
        sid,
        1,
        1,
        "h",
        [Chunk(i + 1, i + 1, f"c{i}") for i in range(len(matrix))],
        vectors=matrix,
    )
    return [int(r[0]) for r in store.db.execute("SELECT id FROM chunks ORDER BY id")]


def _exact(matrix: np.ndarray, ids: list[int], q: np.ndarray, k: int) -> list[int]:
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    scores = unit @ (q / np.linalg.norm(q))
    return [ids[i] for i in np.argsort(-scores)[:k]]


def test_small_index_is_searched_exactly_in_memory() -> None:
    store = SqliteStore(":memory:")
    assert store.db.has_vec
    x, centres = _clustered(500, 32)
    ids = _fill(store, x)
    for q in centres[:10]:
        got = [cid for cid, _ in store.vector_search(q, 10)]
        assert got == _exact(x, ids, q, 10)


def test_sqlite_vec_and_numpy_rescoring_agree() -> None:
    x, centres = _clustered(300, 48, seed=3)
    # exact_limit=0: the prefilter path, every chunk a candidate, rescored by each engine
    with_vec = SqliteStore(":memory:", exact_limit=0)
    plain = SqliteStore(":memory:", exact_limit=0)
    plain.db.vec_version = None  # force the NumPy path on the same data
    _fill(with_vec, x)
    _fill(plain, x)
    ids = [int(r[0]) for r in with_vec.db.execute("SELECT id FROM chunks ORDER BY id")]
    for q in centres[:5]:
        a = with_vec.vector_search(q, 8)
        assert [c for c, _ in a] == _exact(x, ids, q, 8)
        b = plain.vector_search(q, 8)
        assert [c for c, _ in a] == [c for c, _ in b]
        assert np.allclose([s for _, s in a], [s for _, s in b], atol=1e-5)


def test_prefilter_recall_on_a_large_index() -> None:
    store = SqliteStore(":memory:", exact_limit=1000)
    store.vectors.min_candidates = 300
    x, _ = _clustered(6000, 64, seed=7)
    ids = _fill(store, x)
    rng = np.random.default_rng(11)
    recalls = []
    for i in rng.integers(0, len(x), 30):
        q = x[i] + 0.3 * rng.standard_normal(x.shape[1]).astype(np.float32)
        got = [cid for cid, _ in store.vector_search(q, 10)]
        recalls.append(len(set(got) & set(_exact(x, ids, q, 10))) / 10)
        assert got[0] == _exact(x, ids, q, 1)[0]
    assert np.mean(recalls) >= 0.95


def test_dimension_mismatch_is_a_clear_error() -> None:
    store = SqliteStore(":memory:")
    _fill(store, np.ones((3, 8), dtype=np.float32))
    import pytest

    with pytest.raises(ValueError, match="dimensions"):
        store.vector_search(np.ones(4, dtype=np.float32), 3)


def test_similarities_are_cosines() -> None:
    store = SqliteStore(":memory:")
    _fill(store, np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0]], dtype=np.float32))
    hits = dict(store.vector_search(np.array([1, 0, 0, 0], dtype=np.float32), 3))
    ids = sorted(hits)
    assert np.isclose(hits[ids[0]], 1.0) and np.isclose(hits[ids[1]], 0.0, atol=1e-6)
    assert np.isclose(hits[ids[2]], 2**-0.5)


def test_bit_count_without_numpy2_popcount_gives_the_same_counts(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """NumPy 1.x has no ``np.bitwise_count``; the table fallback must count the same bits."""
    from orkas_nb.memory import vectors

    rng = np.random.default_rng(5)
    words64 = rng.integers(0, 2**63, 2000, dtype=np.uint64) ^ np.uint64(2**63)
    words8 = rng.integers(0, 256, 2000, dtype=np.uint8)
    expected64 = [bin(int(w)).count("1") for w in words64]
    expected8 = [bin(int(w)).count("1") for w in words8]
    assert vectors.bit_count(words64).tolist() == expected64
    monkeypatch.delattr(np, "bitwise_count", raising=False)  # as on NumPy 1.26
    assert vectors.bit_count(words64).tolist() == expected64
    assert vectors.bit_count(words8).tolist() == expected8
    test_prefilter_recall_on_a_large_index()  # the whole large-index path, without the popcount
