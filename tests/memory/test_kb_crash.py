"""kill -9 during ingest leaves a database that opens, passes its checks and re-ingests cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orkas_nb.memory.kb import KnowledgeBase

from .conftest import HashEmbedder

INGEST = """
import sys
from orkas_nb.memory.kb import KBSettings, KnowledgeBase
from tests.memory.conftest import HashEmbedder
embedder = HashEmbedder() if sys.argv[3] == "vectors" else None
settings = KBSettings(batch_bytes=int(sys.argv[2]), embed_batch=64)
kb = KnowledgeBase.open(sys.argv[1], settings=settings, embedder=embedder)
print("ready", flush=True)
while True:  # ingest, then touch everything and ingest again: always writing
    kb.sync() if kb.sources() else kb.add("corpus")
    for p in sorted((kb.workspace / "corpus").iterdir()):
        p.write_text(p.read_text() + "x\\n")
"""


def _corpus(ws: Path, files: int = 150) -> None:
    folder = ws / "corpus"
    folder.mkdir()
    for i in range(files):
        lines = [
            f"document {i} line {j} about topic{j % 17} and subject{i % 13}" for j in range(300)
        ]
        (folder / f"doc{i:03d}.txt").write_text("\n".join(lines) + "\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("batch_bytes", "vectors"),
    [
        (1, "text"),
        (4_000_000, "text"),
        (4_000_000, "vectors"),
    ],  # one document a transaction, or many
)
def test_kill_9_during_ingest_leaves_a_sound_database(
    workspace: Path, batch_bytes: int, vectors: str
) -> None:
    _corpus(workspace)
    root = Path(__file__).resolve().parents[2]
    for round_ in range(4):
        proc = subprocess.Popen(
            [sys.executable, "-c", INGEST, str(workspace), str(batch_bytes), vectors],
            stdout=subprocess.PIPE,
            cwd=root,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(0.3 + 0.37 * round_)  # land at different points of the write
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        kb = KnowledgeBase.open(
            workspace, embedder=HashEmbedder() if vectors == "vectors" else None
        )
        assert kb.store.check() == []
        report = kb.sync() if kb.sources() else kb.add("corpus")
        assert not report.errors
        docs = {d.path: d for d in kb.documents()}
        assert len(docs) == 150
        # every document's index matches its file as it is now
        for path in sorted((workspace / "corpus").iterdir()):
            rel = f"corpus/{path.name}"
            assert docs[rel].size == path.stat().st_size
        chunks = kb.stats()["chunks"]
        assert chunks == sum(d.chunks for d in docs.values())
        assert kb.store.db.one("SELECT count(*) FROM chunk_text") == (chunks,)  # no orphan text
        expected_vectors = chunks if vectors == "vectors" else 0
        assert kb.stats()["vectors"] == expected_vectors  # every chunk embedded, none orphaned
        assert kb.search("topic5 subject7", k=3)
        assert kb.store.check() == []
        kb.close()
