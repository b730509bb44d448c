"""Opening the sessions database file safely: validate before writing, then WAL, pragmas, migrate.

A file that is not SQLite, is corrupt, holds someone else's tables or has a newer schema version
is refused with a clear error and left byte-for-byte untouched. Two processes opening a fresh
file at once migrate it once: the migration runs in `BEGIN IMMEDIATE` and re-reads the version.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

from crmarena_tui.errors import is_damage
from crmarena_tui.storage.errors import DamagedDatabase, NotASessionsDatabase, SchemaTooNew
from crmarena_tui.storage.schema import TABLES, migrate

SQLITE_HEADER = b"SQLite format 3\x00"
# `PRAGMA quick_check` runs at every open of a file up to this size: about 0.1 s warm (0.5 s
# cold) for 64 MB; a 1 GB database of 100,000 sessions takes 1.2 s warm and 6.8 s cold, so a
# larger file is checked by the commands that write in bulk (`check_damage`) and otherwise
# found damaged by the first SQLite error that says so.
QUICK_CHECK_BYTES = 64 * 1024 * 1024
Durability = Literal["full", "normal"]
# The files this process has read the header of. It is read once: closing any file descriptor on
# a database file drops every POSIX lock this process holds on it, those of SQLite's open
# connections included (sqlite.org/howtocorrupt.html, 2.2), so a second Store opened while a
# thread's connection writes (`run`'s workers) would let another process write at the same time.
_HEADER_READ: set[str] = set()


def open_sessions_db(
    path: Path, *, busy_timeout: float, durability: Durability
) -> sqlite3.Connection:
    """A validated, migrated connection in autocommit mode (callers open their own transactions)."""
    refuse_non_sqlite(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    target = str(path)
    if on_read_only_mount(path):  # nothing can change it: read as is (SQLite writes no -shm)
        target = f"{path.resolve().as_uri()}?immutable=1"
    conn = sqlite3.connect(
        target,
        timeout=busy_timeout,
        isolation_level=None,
        check_same_thread=False,
        uri=target.startswith("file:"),
    )
    try:
        _prepare(conn, path, durability)
        _HEADER_READ.add(str(path.resolve()))
    except sqlite3.DatabaseError as exc:
        conn.close()
        if is_damage(exc):
            raise DamagedDatabase(path, str(exc)) from exc
        if not writable(path):
            raise NotASessionsDatabase(
                f"{path} cannot be written: it or its folder is read-only ({exc}), and SQLite"
                " writes beside the file even to read it; it was left untouched. Copy it to a"
                " writable folder and pass that copy with --db."
            ) from exc
        raise NotASessionsDatabase(
            f"{path} is not a usable SQLite database ({exc}); it was left untouched."
        ) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def on_read_only_mount(path: Path) -> bool:
    """Whether the existing file `path` lies on a file system mounted read-only (then no process
    can change it, and SQLite may read it as immutable)."""
    import os

    try:
        return path.is_file() and bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # (no statvfs: not POSIX)
        return False


def writable(path: Path) -> bool:
    """Whether `path` (when it exists) and its folder can be written (a read-only mount, or
    permissions, say no)."""
    import os

    return (not path.exists() or os.access(path, os.W_OK)) and os.access(path.parent, os.W_OK)


def _table_names(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _prepare(conn: sqlite3.Connection, path: Path, durability: Durability) -> None:
    from crmarena_tui.storage import schema  # read at call time: tests may add migrations

    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > schema.SCHEMA_VERSION:
        raise SchemaTooNew(str(path), version, schema.SCHEMA_VERSION)
    tables = _table_names(conn)
    if version == 0 and tables and schema.restored_version(conn):  # restored from a dump
        version = min(schema.restored_version(conn), schema.SCHEMA_VERSION)
        conn.execute(f"PRAGMA user_version = {int(version)}")
    if version == 0 and tables:
        raise NotASessionsDatabase(
            f"{path} is a SQLite database but not a crmarena-tui sessions database "
            f"(it holds tables {', '.join(sorted(tables)[:5])}); it was left untouched. "
            "Pass another path with --db."
        )
    if path.exists() and path.stat().st_size <= QUICK_CHECK_BYTES:
        check_damage(conn, path)
    conn.execute("PRAGMA foreign_keys = ON")
    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {'FULL' if durability == 'full' else 'NORMAL'}")
    if version < schema.SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = conn.execute("PRAGMA user_version").fetchone()[
                0
            ]  # another process may have migrated
            if current > schema.SCHEMA_VERSION:
                raise SchemaTooNew(str(path), current, schema.SCHEMA_VERSION)
            migrate(conn, current)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    missing = set(TABLES) - _table_names(conn)
    if missing:
        raise NotASessionsDatabase(
            f"{path} claims schema version {version} but lacks tables {sorted(missing)}; "
            "it was left untouched."
        )


def check_damage(conn: sqlite3.Connection, path: Path) -> None:
    """Raise `DamagedDatabase` when `PRAGMA quick_check` finds a damaged page or index."""
    try:
        found = conn.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as exc:
        raise DamagedDatabase(path, str(exc)) from exc
    if found is None or found[0] != "ok":
        raise DamagedDatabase(path, str(found[0] if found else "no answer to quick_check"))


def refuse_non_sqlite(path: Path) -> None:
    """Refuse, before SQLite touches it, a non-empty file that does not start with SQLite's header."""
    if path.is_dir():
        raise NotASessionsDatabase(f"{path} is a directory, not a sessions database file")
    if not path.exists():
        return
    key = str(path.resolve())
    if key in _HEADER_READ:
        return
    with path.open("rb") as fh:
        head = fh.read(len(SQLITE_HEADER))
    if head == SQLITE_HEADER:
        _HEADER_READ.add(key)
    if head and head != SQLITE_HEADER:
        raise NotASessionsDatabase(
            f"{path} is not a SQLite database (or is corrupt); it was left untouched. "
            "Pass another path with --db."
        )
