"""Fixtures for the memory tests: a knowledge base on real SQLite with sqlite-vec loaded."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from orkas_nb.memory.kb import KnowledgeBase
from orkas_nb.memory.store import SqliteStore
from tests.fakes.fixtures import model_server  # noqa: F401  (the loopback model server)


class HashEmbedder:
    """A deterministic bag-of-words embedder: texts sharing words get close vectors.

    Real enough to exercise the vector path end to end (storage, prefilter, rescoring, fusion)
    without loading a model; the ONNX embedder has its own tests.
    """

    id = "test:hash-bow:64"
    dim = 64

    def embed(self, texts):  # type: ignore[no-untyped-def]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                h = hashlib.blake2b(word.strip(".,;:!?").encode(), digest_size=8).digest()
                rng = np.random.default_rng(int.from_bytes(h, "little"))
                out[i] += rng.standard_normal(self.dim).astype(np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1
        return out / norms


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def kb(workspace: Path):  # type: ignore[no-untyped-def]
    base = KnowledgeBase.open(workspace)
    yield base
    base.close()


@pytest.fixture
def vec_kb(workspace: Path, embedder: HashEmbedder):  # type: ignore[no-untyped-def]
    base = KnowledgeBase.open(workspace, embedder=embedder)
    assert base.store.db.has_vec, base.engine  # the tests run with sqlite-vec loaded
    yield base
    base.close()


def memory_store() -> SqliteStore:
    return SqliteStore(":memory:")
