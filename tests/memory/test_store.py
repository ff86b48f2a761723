"""The store on every SQLite driver this machine has (the fallback ones included)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from orkas_nb.memory.chunking import Chunk
from orkas_nb.memory.store import SqliteStore


@pytest.mark.parametrize("driver", ["apsw", "pysqlite3", "sqlean", "sqlite3"])
def test_store_works_on_each_driver(driver: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    module = {"pysqlite3": "pysqlite3", "sqlean": "sqlean"}.get(driver, driver)
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{driver} is not installed here")
    store = SqliteStore(tmp_path / "kb.db", drivers=[driver])
    assert store.db.driver == driver and driver in store.engine
    sid = store.add_source(".")
    store.replace_document(
        "a.txt",
        sid,
        1,
        1,
        "h",
        [Chunk(1, 2, "hello world"), Chunk(3, 4, "other words")],
        vectors=np.eye(2, 8, dtype=np.float32),
    )
    assert [c for c, _ in store.text_search("hello", 5)] == [1]
    assert store.vector_search(np.eye(1, 8, 1, dtype=np.float32)[0], 1)[0][0] == 2
    assert store.check() == []
    store.delete_documents(["a.txt"])
    assert store.counts() == {"sources": 1, "documents": 0, "chunks": 0, "vectors": 0}
    store.close()
