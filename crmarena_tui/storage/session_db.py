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

BULK_CACHE = 16 * 1024 * 1024  # bytes of page cache while a command writes in bulk (`in_bulk`)


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

    @contextmanager
    def in_bulk(self) -> Iterator[None]:
        """While a command writes in bulk (an import, a merge; outside any transaction): SQLite's
        temporary files kept in memory (`PRAGMA temp_store`) and a larger page cache (`BULK_CACHE`),
        then both as they were.

        Inside a transaction, a statement that may fail halfway keeps an undo record of each page
        it changes (a statement journal). Inserting a session changes some thirty pages (its row,
        its indexes, its trigger's update), more than the 64 KiB such a journal holds in memory,
        so from then on every statement of the transaction wrote its records to a temporary
        file, each page in three system calls: an import's statement journals were about a
        sixth of its CPU (benchmarks/bench_atif.py, "import only"). The setting also keeps
        temporary tables and the spill of large sorts in memory, so it is not left on for the
        queries of the app and the reports. The default cache (2 MB) made an import read back
        the pages of the indexes it writes some 270,000 times for 10,000 sessions; 16 MB reads a
        quarter as often, for about 5% less CPU."""
        with self.lock:
            cache = self.conn.execute("PRAGMA cache_size").fetchone()[0]
            self.conn.execute("PRAGMA temp_store = MEMORY")
            self.conn.execute(f"PRAGMA cache_size = {-BULK_CACHE // 1024}")
        try:
            yield
        finally:
            with self.lock:
                self.conn.execute("PRAGMA temp_store = DEFAULT")
                self.conn.execute(f"PRAGMA cache_size = {int(cache)}")

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
