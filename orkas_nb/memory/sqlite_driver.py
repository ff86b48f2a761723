"""Open SQLite through a driver that can load sqlite-vec, and say which one is in use.

The stdlib ``sqlite3`` of many Python builds (pyenv's among them) has no
``enable_load_extension``, so sqlite-vec cannot load through it. Drivers are tried in order:
``apsw`` (newest SQLite, well kept), ``pysqlite3`` (pysqlite3-binary), ``sqlean`` (sqlean-py),
then the stdlib. The first that opens a database *with* sqlite-vec loaded wins; if none can, the
first that opens at all is used without vectors (search is then full text plus NumPy vectors),
and :attr:`Database.engine` says so.

:class:`Database` is a small common surface over apsw and DB-API drivers: autocommit mode,
explicit ``BEGIN IMMEDIATE``/``COMMIT`` through :meth:`Database.transaction`.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DRIVER_ORDER = ("apsw", "pysqlite3", "sqlean", "sqlite3")


def _load_vec(conn: Any, driver: str) -> str | None:
    """Load sqlite-vec into ``conn``; return its version or None when it cannot load."""
    try:
        import sqlite_vec
    except ImportError:
        return None
    try:
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
        row = conn.execute("select vec_version()").fetchone()
        return str(row[0])
    except Exception:  # AttributeError (no load support) or the driver's own error type
        return None


def _connect_raw(driver: str, path: str) -> Any:
    if driver == "apsw":
        import apsw

        return apsw.Connection(path)
    module = importlib.import_module(
        {"pysqlite3": "pysqlite3.dbapi2", "sqlean": "sqlean.dbapi2", "sqlite3": "sqlite3"}[driver]
    )
    # isolation_level=None: autocommit; transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
    return module.connect(path, isolation_level=None, check_same_thread=False)


class Database:
    """One SQLite connection with sqlite-vec loaded when the driver allows it.

    ``engine`` reads like ``"SQLite 3.54.1 via apsw, sqlite-vec v0.1.9"`` and is what the user
    is told. Calls are serialised by a lock, so a tool thread and the kernel thread can share it.
    """

    def __init__(self, conn: Any, driver: str, vec_version: str | None) -> None:
        self.conn = conn
        self.driver = driver
        self.vec_version = vec_version
        self.lock = threading.RLock()
        self.sqlite_version = str(self.one("select sqlite_version()")[0])

    @property
    def has_vec(self) -> bool:
        return self.vec_version is not None

    @property
    def engine(self) -> str:
        vec = f"sqlite-vec {self.vec_version}" if self.has_vec else "no sqlite-vec (NumPy vectors)"
        return f"SQLite {self.sqlite_version} via {self.driver}, {vec}"

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            return [tuple(r) for r in self.conn.execute(sql, tuple(params))]

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self.lock:
            row = self.conn.execute(sql, tuple(params)).fetchone()
            return tuple(row) if row is not None else None

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.lock:
            self.conn.executemany(sql, rows)

    def script(self, sql: str) -> None:
        """Run several statements (schema creation)."""
        with self.lock:
            if self.driver == "apsw":
                self.conn.execute(sql)
            else:
                self.conn.executescript(sql)

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on any exception (or a crash)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator["Database"]:
        """A read transaction: every read inside sees one state of the database."""
        with self.lock:
            self.conn.execute("BEGIN")
            try:
                yield self
            finally:
                self.conn.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self.conn.close()


def connect(path: str | Path, *, drivers: Sequence[str] = DRIVER_ORDER) -> Database:
    """Open ``path`` (``":memory:"`` for a throwaway database) with the best driver available."""
    fallback: tuple[Any, str] | None = None
    problems: list[str] = []
    for driver in drivers:
        try:
            conn = _connect_raw(driver, str(path))
        except ImportError:
            continue
        except Exception as exc:  # the driver's own error type: a bad path, a locked file
            problems.append(f"{driver}: {exc}")
            continue
        version = _load_vec(conn, driver)
        if version is not None:
            if fallback is not None:
                fallback[0].close()
            return Database(conn, driver, version)
        if fallback is None:
            fallback = (conn, driver)
        else:
            conn.close()
    if fallback is not None:
        return Database(fallback[0], fallback[1], None)
    raise RuntimeError(f"no SQLite driver could open {str(path)!r}: {'; '.join(problems)}")
