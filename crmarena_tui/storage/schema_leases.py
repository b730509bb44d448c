"""Schema 16 (`v16_leases`): who works which attempt, kept in the database so that every process
on it agrees (`storage/leases.py`).

A lease row names an attempt by its key (`leases.attempt_key`: participant, task, resume key), the
holder working it (an MCP session, a `run` worker), the pool the holder belongs to (one server or
one run: what `mcp --workers N` counts), the machine and process it runs in (a lease of a process
that is gone from this machine is taken over at once), the session it works once that is open,
and when the lease lapses unless renewed.
"""

from __future__ import annotations

import sqlite3

_V16 = [
    """
    CREATE TABLE leases (
        attempt TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        pool TEXT NOT NULL DEFAULT '',
        host TEXT NOT NULL DEFAULT '',
        pid INTEGER NOT NULL DEFAULT 0,
        session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
        taken_at REAL NOT NULL,
        expires_at REAL NOT NULL
    )
    """,
    "CREATE INDEX leases_by_holder ON leases (holder)",
    "CREATE INDEX leases_by_pool ON leases (pool, expires_at)",
]


def v16_leases(db: sqlite3.Connection) -> None:
    """Schema 16: the `leases` table (storage/leases.py): which holder works which attempt,
    until when, in which session."""
    for statement in _V16:
        db.execute(statement)
