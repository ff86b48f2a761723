"""Retrieval quality of the knowledge base: nDCG@10 and recall@10 for BM25, vectors and hybrid.

    python tests/benchmarks/bench_kb_quality.py DATA_DIR [--workdir DIR] [--grid]

DATA_DIR holds ``docs.jsonl`` ({"docid", "title", "text"}), ``queries.jsonl`` ({"qid",
"text"}) and ``qrels.tsv`` (qid, docid, gain; header line) — the layout of the Cranfield
development split. Each document becomes a file ``docs/<docid>.txt`` (title line, then text)
in a workspace, ingested through the real path (chunking, FTS5, ONNX MiniLM vectors in
sqlite-vec's format); a search returns passages, and a document's rank is that of its best
passage. Gains are used linearly (trec_eval's nDCG). ``--workdir`` keeps the workspace so a
second run skips ingest and embedding. ``--grid`` also prints a small sweep of the fusion
settings (tune on the development queries only).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

from orkas_nb.memory.embedders import OnnxMiniLM
from orkas_nb.memory.kb import KBSettings, KnowledgeBase


def load(data: Path) -> tuple[list[dict], list[dict], dict[str, dict[str, int]]]:
    docs = [json.loads(line) for line in (data / "docs.jsonl").read_text().splitlines() if line]
    queries = [
        json.loads(line) for line in (data / "queries.jsonl").read_text().splitlines() if line
    ]
    qrels: dict[str, dict[str, int]] = {}
    for n, line in enumerate((data / "qrels.tsv").read_text().splitlines()):
        parts = line.split("\t")
        if n == 0 and not parts[-1].strip().lstrip("-").isdigit():
            continue  # header
        qid, docid, gain = parts[0], parts[1], int(parts[2])
        if gain > 0:
            qrels.setdefault(qid, {})[docid] = gain
    return docs, queries, qrels


def ndcg_recall(ranked: list[str], judged: dict[str, int], k: int = 10) -> tuple[float, float]:
    dcg = sum(judged.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(judged.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    found = len(set(ranked[:k]) & set(judged))
    return (dcg / idcg if idcg else 0.0), (found / len(judged) if judged else 0.0)


def doc_ranking(kb: KnowledgeBase, query: str, mode: str, k: int = 10) -> list[str]:
    hits = kb.search(query, k=4 * k, mode=mode)  # type: ignore[arg-type]
    out: list[str] = []
    for h in hits:
        docid = Path(h.path).stem
        if docid not in out:
            out.append(docid)
    return out[:k]


def evaluate(kb: KnowledgeBase, queries: list[dict], qrels: dict, mode: str) -> tuple[float, float]:
    scores = [
        ndcg_recall(doc_ranking(kb, q["text"], mode), qrels[q["qid"]])
        for q in queries
        if q["qid"] in qrels
    ]
    return (sum(s[0] for s in scores) / len(scores), sum(s[1] for s in scores) / len(scores))


class CachedEmbedder:
    """The same embedder, remembering query vectors (the grid re-asks the same 112 queries)."""

    def __init__(self, inner: OnnxMiniLM) -> None:
        self.inner = inner
        self.id = inner.id
        self.cache: dict[str, object] = {}

    def embed(self, texts):  # type: ignore[no-untyped-def]
        if len(texts) == 1 and texts[0] in self.cache:
            return self.cache[texts[0]]
        out = self.inner.embed(texts)
        if len(texts) == 1:
            self.cache[texts[0]] = out
        return out


def build(data: Path, workdir: Path, chunk_chars: int) -> KnowledgeBase:
    docs, _, _ = load(data)
    folder = workdir / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for d in docs:
        target = folder / f"{d['docid']}.txt"
        body = f"{d.get('title', '').strip()}\n{d['text']}"
        if not target.exists() or target.read_text() != body:
            target.write_text(body)
    settings = KBSettings(chunk_chars=chunk_chars)
    kb = KnowledgeBase.open(workdir, embedder=CachedEmbedder(OnnxMiniLM()), settings=settings)
    started = time.perf_counter()
    report = kb.add("docs")
    print(
        f"ingest: {report.summary()}; embedded {report.embedded} chunks "
        f"in {time.perf_counter() - started:.1f} s total"
    )
    return kb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", nargs="?", type=Path, help="folder with docs.jsonl, queries.jsonl, qrels.tsv"
    )
    parser.add_argument(
        "--workdir", type=Path, help="keep the workspace here (reused by later runs)"
    )
    parser.add_argument("--chunk-chars", type=int, default=KBSettings().chunk_chars)
    parser.add_argument("--grid", action="store_true", help="also sweep fusion settings")
    args = parser.parse_args(argv)
    if args.data is None:
        parser.print_usage()
        print("give the data folder (e.g. the Cranfield development split)", file=sys.stderr)
        return 2
    _, queries, qrels = load(args.data)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="kbq-"))
    kb = build(args.data, workdir, args.chunk_chars)
    print(kb.engine)
    results = {}
    for mode in ("text", "vector", "hybrid"):
        results[mode] = evaluate(kb, queries, qrels, mode)
    judged = sum(1 for q in queries if q["qid"] in qrels)
    print(f"{judged} judged queries; settings {kb.settings.model_dump()}")
    print(f"{'method':8} {'nDCG@10':>8} {'recall@10':>10}")
    for mode, name in (("text", "BM25"), ("vector", "vector"), ("hybrid", "hybrid")):
        print(f"{name:8} {results[mode][0]:8.4f} {results[mode][1]:10.4f}")
    best_single = max(results["text"][0], results["vector"][0])
    print(f"hybrid / best single (nDCG@10): {results['hybrid'][0] / best_single:.3f}")
    if args.grid:
        base = kb.settings
        for fp in (0, 2, 3, 4):
            for tw in (0.6, 0.8, 1.0):
                for rk in (30.0, 60.0):
                    kb.settings = base.model_copy(
                        update={"feedback_passages": fp, "text_weight": tw, "rrf_k": rk}
                    )
                    n, r = evaluate(kb, queries, qrels, "hybrid")
                    print(f"grid feedback={fp} text_weight={tw} rrf_k={rk}: nDCG {n:.4f} R {r:.4f}")
        kb.settings = base
    kb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
