"""The knowledge base end to end on real SQLite with sqlite-vec: ingest, sync, search."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orkas_nb.memory.kb import KBSettings, KnowledgeBase, format_hits

from .conftest import HashEmbedder


def _write(ws: Path, rel: str, text: str) -> Path:
    p = ws / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_ingest_a_folder_and_cite_file_and_lines(kb: KnowledgeBase, workspace: Path) -> None:
    _write(
        workspace,
        "docs/deploy.md",
        "# Deploy\n\nWe deploy with docker compose.\nMigrations run first.\n",
    )
    _write(workspace, "docs/team.md", "# Team\nAlice owns the billing service.\n")
    report = kb.add("docs")
    assert sorted(report.added) == ["docs/deploy.md", "docs/team.md"]
    hits = kb.search("who owns billing?")
    assert hits[0].path == "docs/team.md" and hits[0].citation == "docs/team.md:1-2"
    assert hits[0].bm25 is not None and hits[0].similarity is None
    assert "[1] docs/team.md:1-2" in format_hits(hits)
    assert kb.search("docker")[0].citation == "docs/deploy.md:1-4"


def test_resync_reingests_only_changed_files_and_deletes_removed(
    kb: KnowledgeBase, workspace: Path
) -> None:
    a = _write(workspace, "notes/a.txt", "apples are red\n")
    b = _write(workspace, "notes/b.txt", "bananas are yellow\n")
    kb.add("notes")
    assert kb.sync().unchanged == 2
    os.utime(a, ns=(1, 1))  # new mtime, same bytes: hashed, not re-chunked
    report = kb.sync()
    assert report.unchanged == 2 and report.updated == [] and report.chunks_written == 0
    b.write_text("bananas are green when unripe\n")
    report = kb.sync()
    assert report.updated == ["notes/b.txt"] and report.chunks_written == 1
    assert kb.search("unripe")[0].path == "notes/b.txt"
    assert kb.search("yellow") == []
    a.unlink()
    report = kb.sync()
    assert report.removed == ["notes/a.txt"]
    assert kb.search("apples") == []
    assert kb.stats()["documents"] == 1


def test_remove_source_keeps_documents_another_source_covers(
    kb: KnowledgeBase, workspace: Path
) -> None:
    _write(workspace, "d/x.txt", "xylophone\n")
    _write(workspace, "d/y.txt", "yodel\n")
    kb.add("d/x.txt")
    kb.add("d")
    assert kb.stats()["documents"] == 2
    kb.remove("d/x.txt")
    assert kb.search("xylophone")[0].path == "d/x.txt"  # still covered by "d"
    kb.remove("d")
    assert kb.stats()["documents"] == 0 and kb.sources() == []


def test_sources_listing(kb: KnowledgeBase, workspace: Path) -> None:
    _write(workspace, "one.md", "one\ntwo\n")
    kb.add("one.md")
    (src,) = kb.sources()
    assert (src.path, src.kind, src.documents, src.chunks) == ("one.md", "file", 1, 1)
    (workspace / "one.md").unlink()
    assert kb.sources()[0].kind == "missing"
    assert [d.path for d in kb.documents()] == ["one.md"]


def test_bad_input_is_a_clear_error(kb: KnowledgeBase) -> None:
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        kb.add("nope/")
    with pytest.raises(KeyError, match="not a knowledge source"):
        kb.remove("never-added")
    with pytest.raises(ValueError, match="needs an embedder"):
        kb.search("x", mode="vector")
    assert kb.search("   ") == [] and kb.search("x", k=0) == []


def test_binary_hidden_oversize_and_state_files_are_skipped(workspace: Path) -> None:
    kb = KnowledgeBase.open(workspace, settings=KBSettings(max_file_bytes=1000))
    _write(workspace, "ok.txt", "fine text\n")
    (workspace / "blob.dat").write_bytes(b"\x00\x01binary" * 10)
    _write(workspace, ".hidden/secret.txt", "hidden text\n")
    _write(workspace, "big.txt", "big " * 1000)
    report = kb.add(".")
    assert report.added == ["ok.txt"]
    assert set(report.skipped) == {"blob.dat", "big.txt"}
    assert report.skipped["blob.dat"] == "binary file"
    assert not any(d.path.startswith(".orkas") for d in kb.documents())
    kb.close()


def test_office_documents_use_the_extractor_or_are_skipped_with_a_reason(
    kb: KnowledgeBase, workspace: Path
) -> None:
    (workspace / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    report = kb.add("broken.pdf")
    assert report.added == [] and "broken.pdf" in report.skipped
    reason = report.skipped["broken.pdf"]
    assert "extract" in reason or "extractor" in reason


def test_hybrid_search_fuses_both_lists(vec_kb: KnowledgeBase, workspace: Path) -> None:
    _write(workspace, "a.txt", "the pump overheats under load\n")
    _write(workspace, "b.txt", "pump maintenance schedule and checklist\n")
    _write(workspace, "c.txt", "unrelated gardening advice\n")
    report = vec_kb.add(".")
    assert report.embedded == 3 and vec_kb.stats()["vectors"] == 3
    hits = vec_kb.search("pump overheats", k=3)
    assert hits[0].path == "a.txt"
    assert hits[0].bm25 is not None and hits[0].similarity is not None
    vector_only = vec_kb.search("pump overheats", k=3, mode="vector")
    assert all(h.bm25 is None for h in vector_only)
    # the threshold drops vector-only passages with a low similarity
    assert all(h.path != "c.txt" or (h.similarity or 0) >= 0.2 for h in hits)


def test_embedder_change_drops_old_vectors_and_reembeds(
    workspace: Path, embedder: HashEmbedder
) -> None:
    _write(workspace, "a.txt", "alpha beta\n")
    kb = KnowledgeBase.open(workspace)
    kb.add("a.txt")
    assert kb.stats()["vectors"] == 0
    kb.close()
    kb = KnowledgeBase.open(workspace, embedder=embedder)
    assert kb.sync().embedded == 1
    kb.close()

    class Other(HashEmbedder):
        id = "test:other"

    kb = KnowledgeBase.open(workspace, embedder=Other())
    assert kb.stats()["vectors"] == 0
    assert kb.sync().embedded == 1
    kb.close()


def test_persistent_file_and_in_memory_engines(workspace: Path) -> None:
    _write(workspace, "a.txt", "persistent knowledge\n")
    kb = KnowledgeBase.open(workspace)
    kb.add("a.txt")
    assert "sqlite-vec" in kb.engine and str(workspace / ".orkas" / "knowledge.db") in kb.engine
    kb.close()
    again = KnowledgeBase.open(workspace)
    assert again.search("knowledge")[0].path == "a.txt"
    again.close()
    mem = KnowledgeBase.open(workspace, in_memory=True)
    assert "in memory" in mem.engine and mem.search("knowledge") == []
    mem.add("a.txt")
    assert mem.search("knowledge")[0].path == "a.txt"
    mem.close()


def test_results_dedup_by_document_and_start_line(kb: KnowledgeBase, workspace: Path) -> None:
    _write(workspace, "long.txt", "Z" * 2500 + "\n")  # one line cut into three pieces
    kb.add("long.txt")
    hits = kb.search("Z" * 10 + " " + "z" * 2500, k=5)
    assert len({(h.path, h.start_line) for h in hits}) == len(hits)


def test_files_outside_the_workspace_keep_absolute_paths(kb: KnowledgeBase, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "o.txt").write_text("outside the workspace\n")
    kb.add(outside)
    assert kb.search("outside")[0].path == (outside / "o.txt").resolve().as_posix()


def test_open_knowledge_base_shares_one_instance_per_workspace(
    workspace: Path, embedder: HashEmbedder
) -> None:
    from orkas_nb.memory import open_knowledge_base

    a = open_knowledge_base(workspace)
    b = open_knowledge_base(str(workspace) + "/.")
    assert a is b and a.embedder is None
    c = open_knowledge_base(workspace, embedder=embedder)
    assert c is a and a.embedder is embedder


def test_fallback_driver_without_sqlite_vec_still_searches(
    workspace: Path, embedder: HashEmbedder
) -> None:
    from orkas_nb.memory.store import SqliteStore

    store = SqliteStore(":memory:")
    store.db.vec_version = None  # what a driver that cannot load extensions gives
    kb = KnowledgeBase(workspace, store, embedder=embedder)
    assert "no sqlite-vec (NumPy vectors)" in kb.engine
    _write(workspace, "a.txt", "pump overheats under load\n")
    _write(workspace, "b.txt", "garden roses need water\n")
    kb.add(".")
    assert kb.search("pump overheats")[0].path == "a.txt"
    assert kb.search("pump overheats", mode="vector")[0].path == "a.txt"
    kb.close()


def test_has_knowledge_base_does_not_create_one(workspace: Path) -> None:
    from orkas_nb.memory import has_knowledge_base, open_knowledge_base

    assert not has_knowledge_base(workspace)
    assert not (workspace / ".orkas").exists()
    open_knowledge_base(workspace)
    assert has_knowledge_base(workspace)


def test_searches_from_threads_while_ingesting(vec_kb: KnowledgeBase, workspace: Path) -> None:
    import threading

    for i in range(30):
        _write(workspace, f"t/{i}.txt", f"document {i} about pumps and valves number{i}\n")
    vec_kb.add("t")
    errors: list[BaseException] = []
    stop = threading.Event()

    def searcher() -> None:
        try:
            while not stop.is_set():
                assert vec_kb.search("pumps valves", k=3)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=searcher) for _ in range(3)]
    for t in threads:
        t.start()
    for round_ in range(5):
        for i in range(30):
            _write(workspace, f"t/{i}.txt", f"document {i} round {round_} pumps valves n{i}\n")
        vec_kb.sync()
    stop.set()
    for t in threads:
        t.join(timeout=10)
    assert errors == []
    assert vec_kb.stats()["vectors"] == vec_kb.stats()["chunks"] == 30


def test_open_knowledge_base_reopens_after_close(workspace: Path) -> None:
    from orkas_nb.memory import open_knowledge_base

    first = open_knowledge_base(workspace)
    first.close()
    first.close()  # idempotent
    second = open_knowledge_base(workspace)
    assert second is not first and not second.closed
    assert second.stats()["documents"] == 0


def test_a_new_chunk_size_rechunks_every_document_on_the_next_sync(
    workspace: Path, embedder: HashEmbedder
) -> None:
    # Unchanged files are skipped by stat and hash, so without a record of the chunking a
    # new chunk size would only reach files edited later (and a kept benchmark workspace
    # would silently measure the old chunks).
    text = "\n".join(f"line {i} about wing flutter and heat transfer" for i in range(40))
    _write(workspace, "a/one.txt", text)
    _write(workspace, "b/two.txt", text)
    with KnowledgeBase.open(workspace, embedder=embedder) as first:
        first.add("a")
        first.add("b")
        before = first.stats()["chunks"]
    small = KBSettings(chunk_chars=120, overlap_lines=0)
    with KnowledgeBase.open(workspace, embedder=embedder, settings=small) as second:
        report = second.add("a")  # adding (or syncing) one source re-chunks every source
        assert sorted(report.updated) == ["a/one.txt", "b/two.txt"]
        stats = second.stats()
        assert stats["chunks"] > before and stats["vectors"] == stats["chunks"]
        for hit in second.search("wing flutter", k=20):
            assert len(hit.text) <= 120
        assert not second.sync().updated  # recorded: the next sync skips them again
        with KnowledgeBase.open(workspace, embedder=embedder, settings=small) as third:
            assert third.store.use_chunking("chars=120 overlap_lines=0") is False
