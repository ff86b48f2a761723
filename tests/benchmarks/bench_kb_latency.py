"""Knowledge-base speed: search latency at 100,000 chunks, and ingest throughput.

    python tests/benchmarks/bench_kb_latency.py [--chunks 100000] [--queries 200] [--ingest-mb 40]

Search: a synthetic corpus (topic-structured text with a Zipf vocabulary and English function
words; 384-d unit vectors clustered by topic) is written through the store, then 200
natural-language queries of 5-15 words (function words, a few topic words, a few common
words — the shape of the Cranfield queries) are timed, query embedding excluded (the query
vectors are precomputed). Baselines measured in the same run: FTS5 with the plain OR query
(no pruning), sqlite-vec's vec0 brute-force KNN, and exact NumPy brute force; the pruned
BM25 list and the prefiltered vector list are compared with the exact ones (overlap@10).

Ingest: synthetic text files in a folder, ``KnowledgeBase.add`` without an embedder, MB/s
against a read+hash-only baseline.

The machine's load average is printed before and after: figures on a loaded 2-core machine
are noisy.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from orkas_nb.memory.chunking import Chunk
from orkas_nb.memory.kb import KnowledgeBase
from orkas_nb.memory.lexical import fts_phrase, query_words
from orkas_nb.memory.store import SqliteStore

FUNCTION_WORDS = [
    "the",
    "of",
    "a",
    "and",
    "to",
    "in",
    "is",
    "for",
    "that",
    "on",
    "with",
    "by",
    "are",
    "as",
    "be",
    "this",
    "at",
    "from",
    "an",
    "which",
    "it",
    "or",
    "was",
    "were",
    "can",
    "has",
    "have",
    "its",
    "been",
    "these",
    "their",
    "such",
    "than",
    "also",
    "may",
    "not",
    "but",
    "when",
    "what",
    "how",
    "there",
    "into",
    "other",
]
QUESTION_HEADS = [
    "what are the",
    "how does the",
    "what is known about",
    "is there any",
    "what methods exist for",
    "how can one determine the",
    "why do",
]


def vocabulary(n: int, rng: np.random.Generator) -> np.ndarray:
    cons, vow = list("bcdfghklmnprstvz"), list("aeiou")
    words: set[str] = set()
    while len(words) < n:
        k = int(rng.integers(2, 5))
        w = "".join(rng.choice(cons) + rng.choice(vow) for _ in range(k))
        words.add(w + ("" if rng.random() < 0.7 else str(rng.choice(["ing", "ed", "s", "ion"]))))
    return np.array(sorted(words))


class Corpus:
    """Topic-structured synthetic chunks and queries (see the module docstring)."""

    def __init__(self, n_chunks: int, seed: int = 0, dim: int = 384, topics: int = 300) -> None:
        rng = np.random.default_rng(seed)
        self.rng = rng
        self.vocab = vocabulary(30000, rng)
        ranks = np.arange(1, len(self.vocab) + 1)
        self.p = 1.0 / ranks**1.07
        self.p /= self.p.sum()
        self.topic_words = rng.integers(300, len(self.vocab), size=(topics, 60))
        self.centres = rng.standard_normal((topics, dim)).astype(np.float32)
        self.topic_of = rng.integers(0, topics, n_chunks)
        self.n = n_chunks
        self.dim = dim

    def texts(self) -> list[str]:
        rng, out = self.rng, []
        lengths = rng.integers(60, 140, self.n)
        glob = rng.choice(len(self.vocab), size=int(lengths.sum()), p=self.p)
        pos = 0
        fw = np.array(FUNCTION_WORDS)
        for i in range(self.n):
            L = int(lengths[i])
            words = self.vocab[glob[pos : pos + L]].copy()
            pos += L
            topical = rng.random(L) < 0.3
            words[topical] = self.vocab[
                rng.choice(self.topic_words[self.topic_of[i]], topical.sum())
            ]
            funcs = rng.random(L) < 0.45
            words[funcs] = fw[rng.integers(0, len(fw), funcs.sum())]
            lines = [" ".join(words[j : j + 12]) for j in range(0, L, 12)]
            out.append("\n".join(lines))
        return out

    def vectors(self) -> np.ndarray:
        x = self.centres[self.topic_of] + 1.1 * self.rng.standard_normal((self.n, self.dim)).astype(
            np.float32
        )
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    def queries(self, n: int) -> tuple[list[str], np.ndarray]:
        rng, texts, vecs = self.rng, [], []
        for _ in range(n):
            t = int(rng.integers(0, len(self.centres)))
            parts = QUESTION_HEADS[int(rng.integers(0, len(QUESTION_HEADS)))].split()
            target = int(rng.integers(5, 16))
            while len(parts) < target:
                r = rng.random()
                if r < 0.35:
                    parts.append(str(self.vocab[rng.choice(self.topic_words[t])]))
                elif r < 0.65:
                    parts.append(str(rng.choice(FUNCTION_WORDS)))
                else:
                    parts.append(str(self.vocab[rng.choice(len(self.vocab), p=self.p)]))
            texts.append(" ".join(parts[:target]))
            v = self.centres[t] + 1.1 * rng.standard_normal(self.dim).astype(np.float32)
            vecs.append(v / np.linalg.norm(v))
        return texts, np.array(vecs, dtype=np.float32)


class LookupEmbedder:
    """Query vectors computed beforehand: the timings exclude query embedding."""

    id = "bench:lookup:384"

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def embed(self, texts):  # type: ignore[no-untyped-def]
        return np.array([self.table[t] for t in texts], dtype=np.float32)


def pct(samples: list[float]) -> str:
    a = np.array(samples) * 1000
    return f"p50 {np.percentile(a, 50):7.2f} ms  p95 {np.percentile(a, 95):7.2f} ms  p99 {np.percentile(a, 99):7.2f} ms"


def timed(fn, items) -> tuple[list[float], list]:  # type: ignore[no-untyped-def]
    times, results = [], []
    for item in items:
        t = time.perf_counter()
        results.append(fn(item))
        times.append(time.perf_counter() - t)
    return times, results


def overlap(a: list[list[int]], b: list[list[int]], k: int = 10) -> float:
    return float(
        np.mean([len(set(x[:k]) & set(y[:k])) / max(1, min(k, len(y))) for x, y in zip(a, b) if y])
    )


def bench_search(n_chunks: int, n_queries: int, workdir: Path) -> None:
    print(f"== search at {n_chunks:,} chunks, {n_queries} queries")
    corpus = Corpus(n_chunks)
    t0 = time.perf_counter()
    texts, vectors = corpus.texts(), corpus.vectors()
    print(f"generated corpus in {time.perf_counter() - t0:.1f} s")
    store = SqliteStore(workdir / "kb.db")
    store.use_embedder(LookupEmbedder.id)
    sid = store.add_source("synthetic")
    t0 = time.perf_counter()
    per_doc = 100
    for d in range(0, n_chunks, per_doc):
        chunks = [
            Chunk(1 + 10 * j, 10 + 10 * j, texts[d + j]) for j in range(min(per_doc, n_chunks - d))
        ]
        store.replace_document(
            f"doc{d // per_doc:05d}.txt",
            sid,
            1,
            1,
            f"h{d}",
            chunks,
            vectors=vectors[d : d + len(chunks)],
        )
    print(
        f"wrote {n_chunks:,} chunks with vectors in {time.perf_counter() - t0:.1f} s ({store.db.engine})"
    )
    queries, qvecs = corpus.queries(n_queries)
    print("query examples:", *[f"  {q!r}" for q in queries[:3]], sep="\n")
    table = dict(zip(queries, qvecs))
    kb = KnowledgeBase(workdir, store, embedder=LookupEmbedder(table))
    store.text_search("warm up", 5)  # load the frequency and bit caches once
    store.vector_search(qvecs[0], 5)
    pool = kb.settings.pool

    # Interleaved, three rounds: a burst of load from other processes hits all three alike.
    # Per query, the fastest of the three rounds is the "min-of-3" figure (scheduling noise
    # removed); all 600 runs are the "raw" figure.
    rounds: dict[str, list[list[float]]] = {"text": [], "vec": [], "hyb": []}
    r_text: list[list[int]] = []
    r_vec: list[list[int]] = []
    for rnd in range(3):
        for name in rounds:
            rounds[name].append([])
        for q, v in zip(queries, qvecs):
            t = time.perf_counter()
            kb.search(q, k=10)
            t1 = time.perf_counter()
            text = store.text_search(q, pool)
            t2 = time.perf_counter()
            vec = store.vector_search(v, pool)
            t3 = time.perf_counter()
            rounds["hyb"][-1].append(t1 - t)
            rounds["text"][-1].append(t2 - t1)
            rounds["vec"][-1].append(t3 - t2)
            if rnd == 0:
                r_text.append([c for c, _ in text])
                r_vec.append([c for c, _ in vec])
    best = {k: list(np.min(np.array(v), axis=0)) for k, v in rounds.items()}
    raw = {k: [x for r in v for x in r] for k, v in rounds.items()}
    t_text, t_vec, t_hyb = best["text"], best["vec"], best["hyb"]

    # Baselines, same data, same run.
    db = store.db

    def fts_plain(q: str) -> list[int]:
        expr = " OR ".join(fts_phrase(w) for w in query_words(q))
        return [
            int(r[0])
            for r in db.execute(
                "SELECT rowid FROM chunk_text WHERE chunk_text MATCH ? ORDER BY "
                "bm25(chunk_text, 1.0, 0.5) LIMIT ?",
                (expr, pool),
            )
        ]

    t_plain, r_plain = timed(fts_plain, queries[: max(20, n_queries // 4)])
    ids = np.array([r[0] for r in db.execute("SELECT chunk_id FROM vectors ORDER BY chunk_id")])
    unit = vectors  # already unit length, same order as the chunk ids
    t_np, r_np = timed(lambda v: [int(ids[i]) for i in np.argsort(-(unit @ v))[:pool]], qvecs)
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS bench_vec0 USING vec0(embedding float[384] distance_metric=cosine)"
    )
    with db.transaction():
        db.executemany(
            "INSERT INTO bench_vec0(rowid, embedding) VALUES (?, ?)",
            ((int(ids[i]), unit[i].tobytes()) for i in range(len(ids))),
        )
    t_vec0, _ = timed(
        lambda v: db.execute(
            "SELECT rowid FROM bench_vec0 WHERE embedding MATCH ? AND k = ?", (v.tobytes(), pool)
        ),
        qvecs[:40],
    )

    print("per query, fastest of 3 interleaved rounds:")
    print(f"hybrid (kb.search, k=10)   {pct(t_hyb)}")
    print(f"BM25, pruned               {pct(t_text)}")
    print(f"vectors, prefilter+rescore {pct(t_vec)}")
    print(f"baseline FTS5 plain OR     {pct(t_plain)}")
    print(f"baseline sqlite-vec vec0   {pct(t_vec0)}")
    print(f"baseline NumPy brute force {pct(t_np)}")
    print("raw, all 3 rounds (includes the machine's scheduling noise):")
    print(f"hybrid (kb.search, k=10)   {pct(raw['hyb'])}")
    print(f"BM25, pruned               {pct(raw['text'])}")
    print(f"vectors, prefilter+rescore {pct(raw['vec'])}")

    def p95(t: list[float]) -> float:
        return float(np.percentile(t, 95))

    print(
        f"ratios (p95): plain OR / pruned BM25 = {p95(t_plain) / p95(t_text):.1f}x; "
        f"vec0 / ours = {p95(t_vec0) / p95(t_vec):.1f}x; NumPy brute / ours = {p95(t_np) / p95(t_vec):.1f}x"
    )
    print(
        f"quality of the fast paths: BM25 pruned vs plain overlap@10 = "
        f"{overlap(r_text, r_plain):.3f}; vector prefilter vs exact recall@10 = {overlap(r_vec, r_np):.3f}"
    )
    store.close()


def bench_ingest(megabytes: int, workdir: Path) -> None:
    print(f"== ingest of ~{megabytes} MB of text, no embedder")
    corpus = Corpus(megabytes * 1000, seed=5)
    texts = corpus.texts()
    folder = workdir / "files"
    folder.mkdir()
    size = 0
    per_file = 20
    for i in range(0, len(texts), per_file):
        body = "\n\n".join(texts[i : i + per_file]) + "\n"
        (folder / f"f{i // per_file:05d}.md").write_text(body)
        size += len(body.encode())
    t0 = time.perf_counter()
    import hashlib

    for p in sorted(folder.iterdir()):
        hashlib.sha256(p.read_bytes()).hexdigest()
    base = time.perf_counter() - t0
    kb = KnowledgeBase.open(workdir)
    report = kb.add("files")
    mbps = size / 1e6 / report.seconds
    print(
        f"{size / 1e6:.1f} MB in {len(report.added)} files -> {report.chunks_written:,} chunks "
        f"in {report.seconds:.2f} s = {mbps:.1f} MB/s (read+hash only: {size / 1e6 / base:.0f} MB/s; "
        f"ingest costs {report.seconds / base:.1f}x that)"
    )
    t0 = time.perf_counter()
    again = kb.sync()
    print(
        f"re-sync with nothing changed: {again.unchanged} files in {time.perf_counter() - t0:.3f} s"
    )
    kb.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ingest-mb", type=int, default=40)
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--skip-ingest", action="store_true")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="kbl-") as tmp:
        if not args.skip_search:
            (Path(tmp) / "s").mkdir()
            bench_search(args.chunks, args.queries, Path(tmp) / "s")
        if not args.skip_ingest:
            (Path(tmp) / "i").mkdir()
            bench_ingest(args.ingest_mb, Path(tmp) / "i")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
