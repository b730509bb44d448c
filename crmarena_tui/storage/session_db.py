"""`SessionDb`: the open sessions database that the `Store` and its parts share: one connection,
the lock that serialises its use across threads, and the clock that stamps rows.

Every write runs in one `BEGIN IMMEDIATE` transaction (`write()`), reentrant: a part's write inside
another's transaction (`Store.transaction()`) joins it, so the store and its annotations
(storage/session_annotations.py) commit together or not at all.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from crmarena_tui.storage.convert import iso


class SessionDb:
    """`conn` (autocommit mode, from `storage/connection.py`), guarded by `lock`; `clock` stamps."""

    def __init__(self, conn: sqlite3.Connection, clock: Callable[[], float]) -> None:
        self.conn = conn
        self.clock = clock
        self.lock = threading.RLock()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction (reentrant: nested calls join the outer one)."""
        with self.lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def tuples(self, sql: str, params: tuple | dict = ()) -> list[tuple[Any, ...]]:
        """Rows of a read-only query as tuples."""
        with self.lock:
            return self.conn.execute(sql, params).fetchall()

    def rows(self, sql: str, params: tuple | dict = ()) -> list[dict[str, Any]]:
        """Rows of a query as dicts, column name -> value."""
        with self.lock:
            cursor = self.conn.execute(sql, params)
            names = [column[0] for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def insert(self, table: str, row: dict[str, Any]) -> int:
        """Insert `row` (column -> value, names from the storage package only); the new row's id."""
        columns = ", ".join(row)
        values = ", ".join(f":{name}" for name in row)
        with self.lock:
            cursor = self.conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({values})", row)
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def now(self, ts: float | None = None) -> str:
        """`ts` (the clock's time when None) as the ISO text rows store."""
        return iso(self.clock() if ts is None else ts)

    def close(self) -> None:
        with self.lock:
            self.conn.close()
