from __future__ import annotations

import pytest

from orkas_nb.memory.sqlite_driver import connect


def test_best_driver_loads_sqlite_vec() -> None:
    db = connect(":memory:")
    assert db.has_vec, db.engine
    assert "sqlite-vec v" in db.engine and db.driver in db.engine
    assert db.one("SELECT vec_length(?)", (b"\x00" * 16,)) == (4,)


def test_stdlib_fallback_says_it_has_no_vectors() -> None:
    import sqlite3

    db = connect(":memory:", drivers=("sqlite3",))
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        pytest.skip("this Python's sqlite3 can load extensions; no fallback to show")
    assert not db.has_vec
    assert "no sqlite-vec" in db.engine


def test_unknown_drivers_are_skipped_and_the_next_one_used() -> None:
    db = connect(":memory:", drivers=("no_such_driver_module", "apsw"))
    assert db.driver == "apsw"


def test_transaction_rolls_back_on_error() -> None:
    db = connect(":memory:")
    db.execute("CREATE TABLE t(x)")
    with pytest.raises(RuntimeError), db.transaction():
        db.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("boom")
    assert db.one("SELECT count(*) FROM t") == (0,)


def test_unopenable_path_is_a_clear_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "a-folder"
    target.mkdir()
    with pytest.raises(RuntimeError, match="no SQLite driver could open"):
        connect(target)
