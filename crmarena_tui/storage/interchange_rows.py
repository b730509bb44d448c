"""The reads an import of other harnesses' trajectories needs (`interchange/writer.py`): which
sessions are present already (by uuid), the ids of sessions by uuid, and which of them still
want a grade. The writes go through `storage/bulk.py`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable


def present_uuids(conn: sqlite3.Connection) -> set[str]:
    """Every session's uuid."""
    return {uuid for (uuid,) in conn.execute("SELECT uuid FROM sessions")}


def parent_ids(conn: sqlite3.Connection, uuids: Iterable[str]) -> dict[str, int]:
    """Session id by uuid, of the sessions among `uuids` that are present."""
    wanted = list(dict.fromkeys(uuids))
    found: dict[str, int] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        found.update(
            conn.execute(
                f"SELECT uuid, id FROM sessions WHERE uuid IN ({', '.join('?' * len(chunk))})",
                chunk,
            ).fetchall()
        )
    return found


def ungraded(conn: sqlite3.Connection, uuids: Iterable[str]) -> list[int]:
    """Ids of the sessions among `uuids` that were submitted with an answer (a `submit` event)
    and have no grade, in id order."""
    ids: list[int] = []
    wanted = list(dict.fromkeys(uuids))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        ids += [
            session_id
            for (session_id,) in conn.execute(
                "SELECT s.id FROM sessions s WHERE s.status = 'submitted'"
                f" AND s.uuid IN ({', '.join('?' * len(chunk))})"
                " AND NOT EXISTS (SELECT 1 FROM grades g WHERE g.session_id = s.id)"
                " AND EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id"
                " AND e.kind = 'submit')",
                chunk,
            )
        ]
    return sorted(ids)
