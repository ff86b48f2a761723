"""Reciprocal rank fusion of the full-text and vector lists, and the relevance threshold.

RRF (``score = Σ w_i / (k + rank_i)``, ranks from 1) carries rank only, so the threshold is
applied to the real signals before fusion: a passage found only by the vector list must reach
``min_similarity`` (cosine); one found by full text matched at least one selective query word
(see ``lexical.py``) and must reach ``min_bm25``. Ties go to the vector list (semantic first).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Fused:
    chunk_id: int
    score: float
    bm25: float | None = None
    similarity: float | None = None
    best_rank: int = 1 << 30


def rrf(
    text_hits: list[tuple[int, float]],
    vector_hits: list[tuple[int, float]],
    *,
    text_weight: float = 1.0,
    vector_weight: float = 1.0,
    k: float = 60.0,
    min_similarity: float = 0.0,
    min_bm25: float = 0.0,
) -> list[Fused]:
    """Fuse both lists (each best first) into one, best first, after the threshold."""
    fused: dict[int, Fused] = {}
    for rank, (cid, sim) in enumerate(vector_hits, 1):
        item = fused.setdefault(cid, Fused(cid, 0.0))
        item.similarity = sim
        item.score += vector_weight / (k + rank)
        item.best_rank = min(item.best_rank, rank)
    for rank, (cid, bm25) in enumerate(text_hits, 1):
        item = fused.setdefault(cid, Fused(cid, 0.0))
        item.bm25 = bm25
        item.score += text_weight / (k + rank)
        item.best_rank = min(item.best_rank, rank)
    kept = [f for f in fused.values() if _relevant(f, min_similarity, min_bm25)]
    # Semantic first: on equal scores, a passage with a similarity (and a higher one) wins.
    kept.sort(key=lambda f: (-f.score, f.similarity is None, -(f.similarity or 0.0), f.best_rank))
    return kept


def _relevant(item: Fused, min_similarity: float, min_bm25: float) -> bool:
    if item.bm25 is not None and item.bm25 >= min_bm25 and item.bm25 > 0:
        return True
    return item.similarity is not None and item.similarity >= min_similarity
