"""The reads the exchange of trajectories with other harnesses needs (`interchange/`): for an
import (`interchange/writer.py`), which sessions are present already (by uuid), the ids of
sessions by uuid and which of them still want a grade (the writes go through `storage/bulk.py`);
for an export, every selected session with all it holds (`session_bundles`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.export_schema import CHUNK, _listed

if TYPE_CHECKING:
    from crmarena_tui.storage.models import ListedSession, Participant
    from crmarena_tui.storage.store import Store


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


@dataclass(slots=True)
class SessionBundle:
    """One session as an export to another harness's format reads it: its row (columns as
    stored: times as their ISO text, JSON columns as text), its participant, its events as
    (seq, ts, actor, kind, payload JSON, duration_ms), its grades and annotations (rows, oldest
    first) and its parent's uuid."""

    session: dict[str, Any]
    participant: Participant
    events: list[tuple[Any, ...]]
    grades: list[dict[str, Any]]
    annotations: list[dict[str, Any]]
    parent_uuid: str | None


def session_bundles(
    store: Store,
    keep: Callable[[ListedSession, Participant], bool] | None = None,
    *,
    chunk: int = CHUNK,
    progress: Callable[[int], None] | None = None,
) -> Iterator[SessionBundle]:
    """Every session `keep` keeps (as `export_schema.session_rows` selects them), in id order,
    read `chunk` sessions at a time (events, grades and annotations by one query each)."""
    people = {p.id: p for p in store.participants()}
    last, read = 0, 0
    while True:
        rows = store.db.rows(
            "SELECT * FROM sessions WHERE id > ? ORDER BY id LIMIT ?", (last, chunk)
        )
        if not rows:
            return
        last, read = rows[-1]["id"], read + len(rows)
        if progress is not None:
            progress(read)
        if keep is not None:
            rows = [r for r in rows if keep(_listed(r), people[r["participant_id"]])]
            if not rows:
                continue
        ids = tuple(r["id"] for r in rows)
        marks = ", ".join("?" * len(ids))
        events: dict[int, list[tuple[Any, ...]]] = {i: [] for i in ids}
        for sid, *event in store.read(
            "SELECT session_id, seq, ts, actor, kind, payload, duration_ms FROM events"
            f" WHERE session_id IN ({marks}) ORDER BY session_id, seq",
            ids,
        ):
            events[sid].append(tuple(event))
        grades: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
        for g in store.db.rows(
            f"SELECT * FROM grades WHERE session_id IN ({marks}) ORDER BY id", ids
        ):
            grades[g["session_id"]].append(g)
        notes: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
        for a in store.db.rows(
            f"SELECT * FROM annotations WHERE session_id IN ({marks}) ORDER BY id", ids
        ):
            notes[a["session_id"]].append(a)
        parents = dict(
            store.read(
                "SELECT c.id, p.uuid FROM sessions c JOIN sessions p ON p.id = c.parent_session_id"
                f" WHERE c.id IN ({marks})",
                ids,
            )
        )
        for r in rows:
            sid = r["id"]
            yield SessionBundle(
                r,
                people[r["participant_id"]],
                events[sid],
                grades[sid],
                notes[sid],
                parents.get(sid),
            )
