"""Rows written the way older versions of the sessions database stored them (migration tests)."""

from __future__ import annotations

import json
import sqlite3

from crmarena_tui.storage import Store
from crmarena_tui.storage.leases import LeaseBook
from crmarena_tui.tasks.model import Task


def v1_session(
    conn: sqlite3.Connection,
    participant_id: int,
    task: Task,
    *,
    parent: int | None = None,
    fork_seq: int | None = None,
) -> int:
    """A session row in the first schema's columns only; returns its id."""
    cur = conn.execute(
        "INSERT INTO sessions (participant_id, task_source, task_idx, task_type, task_json,"
        " org_kind, org_ref, started_at, app_version, settings_key, parent_session_id, fork_seq)"
        " VALUES (?, ?, ?, ?, ?, 'local', 'demo', '2025-01-01T00:00:00.000000Z', '0.1.0', 'k',"
        " ?, ?)",
        (
            participant_id,
            task.source,
            task.idx,
            task.task,
            json.dumps(task.row()),
            parent,
            fork_seq,
        ),
    )
    conn.commit()
    return int(cur.lastrowid or 0)


def integrity(store: Store) -> str:
    """`PRAGMA integrity_check` of the store's file: "ok" for a healthy one."""
    return "; ".join(r[0] for r in store.db.tuples("PRAGMA integrity_check"))


def holder_of(book: LeaseBook, attempt: str) -> str | None:
    """Who holds the live lease on `attempt` in `book`; None when no lease on it is live."""
    rows = book.store.db.tuples(
        "SELECT holder FROM leases WHERE attempt = ? AND expires_at > ?", (attempt, book.clock())
    )
    return str(rows[0][0]) if rows else None
