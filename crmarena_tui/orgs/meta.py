"""An org file's `_sf_meta` table (org type, seed, generator version, ...), read and written without
the schema module: the app reads the demo orgs' metadata before its first frame."""

from __future__ import annotations

import sqlite3


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM _sf_meta"))


def write_meta(conn: sqlite3.Connection, meta: dict[str, str]) -> None:
    conn.executemany("INSERT OR REPLACE INTO _sf_meta VALUES (?, ?)", list(meta.items()))
