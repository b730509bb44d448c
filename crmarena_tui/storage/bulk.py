"""Many sessions written at once: rows collected in memory, then `executemany` per table inside
the caller's write transaction (`Store.transaction()`), for the import of upstream result files.

The events' search index (storage/search_index.py) is either left to the next search (the
sessions recorded as pending: the default) or, with `index=True` (the `import` command), written
with them in the same transaction: each event's indexed text and facets, computed in Python
(storage/search_text.py, by the import's reading processes when they give them), inserted by
`executemany` beside the events, so nothing reads the stored JSON back to index it.

The Store's one-row methods read back every row they write and fsync each transaction; an import
of thousands of sessions needs neither. Session ids are allocated here: the caller holds the
database's write lock (BEGIN IMMEDIATE) for the whole batch, so no other writer can take the same
ids. Secrets are scrubbed from every payload and settings dict before encoding, with the same rule
as the Store's own writes (`convert.scrubbed_json`: the key test memoised, a value with nothing to
drop encoded without a copy). Rows may come already encoded (`upstream_rows.py`).
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Sequence
from contextlib import nullcontext
from operator import itemgetter
from typing import Any, cast

from crmarena_tui import __version__
from crmarena_tui.storage.convert import dumps, scrubbed_json
from crmarena_tui.storage.event_cap import DEFAULT_LIMIT, WHOLE_KINDS, cap_json
from crmarena_tui.storage.models import settings_protocol
from crmarena_tui.storage.schema_summary import summary_after
from crmarena_tui.storage.search_index import (
    INDEX_EVENT,
    KEY_SHIFT,
    defer,
    untriggered,
    write_in_bulk,
)
from crmarena_tui.storage.search_text import index_values

SESSION_COLUMNS = (
    "id",
    "participant_id",
    "task_source",
    "task_idx",
    "task_type",
    "task_json",
    "org_kind",
    "org_ref",
    "interactive",
    "aided",
    "blind",
    "status",
    "started_at",
    "ended_at",
    "active_seconds",
    "app_version",
    "settings_key",
    "settings",
    "user_simulator",
    "parent_session_id",
    "fork_seq",
    "kind",
    "protocol",
    "uuid",
    "study_id",
    "trial",
)
GRADE_COLUMNS = (
    "session_id",
    "answer",
    "parsed_answer",
    "reward",
    "metrics",
    "grader",
    "grader_version",
    "judge_model",
    "judge_raw",
    "extraction",
    "imported",
    "graded_at",
    "protocol",
)
_DEFAULTS: dict[str, Any] = {
    "org_kind": "",
    "org_ref": "",
    "interactive": 0,
    "aided": 0,
    "blind": 1,
    "status": "submitted",
    "ended_at": None,
    "active_seconds": None,
    "app_version": __version__,
    "user_simulator": None,
    "parent_session_id": None,
    "fork_seq": None,
    "kind": "attempt",
    "study_id": None,
    "trial": 1,
}
ANNOTATION_COLUMNS = ("session_id", "event_seq", "kind", "label", "note", "annotator", "created_at")


_NO_GRADE = dict.fromkeys(GRADE_COLUMNS)  # (a grade's columns not given are NULL)
# A row's values in column order, picked at C speed (thousands of rows a second).
_session_row = itemgetter(*SESSION_COLUMNS)
_grade_row = itemgetter(*GRADE_COLUMNS)
_annotation_row = itemgetter(*ANNOTATION_COLUMNS)
_payload = itemgetter(5)  # (an event row's payload)


class BulkWriter:
    """Collects sessions, events and grades; `flush()` writes them on `conn`, whose write
    transaction the caller holds."""

    def __init__(
        self, conn: sqlite3.Connection, text_limit: int = DEFAULT_LIMIT, index: bool = False
    ) -> None:
        if not conn.in_transaction:
            raise RuntimeError("BulkWriter needs the caller's write transaction")
        self.conn = conn
        self.text_limit = text_limit  # an event's longest text stored whole (event_cap.py)
        self.next_id = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM sessions").fetchone()[0])
        self.flushed_id = self.next_id  # sessions up to this id were written before this batch
        self.older_events = False  # events queued for a session of an earlier batch
        self.sessions: list[tuple[Any, ...]] = []
        self.events: list[tuple[Any, ...]] = []
        self.grades: list[tuple[Any, ...]] = []
        self.annotations: list[tuple[Any, ...]] = []
        self.index = index  # index the events with them (else leave them to the next search)
        self.indexed: list[tuple[int, str, str]] = []  # (key, body, facets) of queued events
        self.unindexed: list[tuple[int, int]] = []  # (session, seq): indexed by SQL instead

    def session(self, row: dict[str, Any]) -> int:
        """Queue a session (`task_json` and `settings` as Python values, or as their JSON text
        with `protocol` given); returns its new id."""
        self.next_id += 1
        values = {**_DEFAULTS, **row, "id": self.next_id}
        values["uuid"] = values.get("uuid") or uuid.uuid4().hex
        if type(values["task_json"]) is not str:  # (else encoded already)
            values["task_json"] = dumps(values["task_json"])
        settings = values.get("settings") or {}
        if type(settings) is not str:  # (else encoded already, and `protocol` given)
            values["protocol"] = settings_protocol(settings)
            values["settings"] = scrubbed_json(settings)
        self.sessions.append(_session_row(values))
        return self.next_id

    def events_of(
        self,
        session_id: int,
        events: Sequence[tuple[str, str, dict[str, Any] | str]],
        ts: str | None = None,
        index: Sequence[tuple[str, str] | None] | None = None,
    ) -> None:
        """Queue a session's events, (actor, kind, payload) each, numbered from 1. A payload is a
        dict, or text already encoded by `scrubbed_json` (a payload is never a JSON string).
        A text longer than `text_limit` is stored cut, as `Store.append_event` cuts it. `index`:
        each event's (body, facets) for the search index (`search_text.index_values` of its
        payload, None where it gave none), for payloads given as text."""
        limit = self.text_limit
        if session_id <= self.flushed_id:
            self.older_events = True
        start = len(self.events)
        self.events += [
            (
                session_id,
                seq,
                ts,
                actor,
                kind,
                cap_json(payload if type(payload) is str else scrubbed_json(payload), limit, kind),
                None,
            )
            for seq, (actor, kind, payload) in enumerate(events, start=1)
        ]
        if self.index:
            self._index(session_id, events, self.events[start:], index)

    def _index(
        self,
        session_id: int,
        events: Sequence[tuple[str, str, dict[str, Any] | str]],
        rows: list[tuple[Any, ...]],
        given: Sequence[tuple[str, str] | None] | None,
    ) -> None:
        """Queue the index rows of a session's events just queued (`rows`, as stored)."""
        base = session_id << KEY_SHIFT
        if given is not None and None not in given and self._whole(rows):  # (most sessions)
            self.indexed += [
                (base | seq, body, facets)
                for seq, (body, facets) in enumerate(cast(list[tuple[str, str]], given), start=1)
            ]
            return
        for n, ((actor, kind, payload), row) in enumerate(zip(events, rows, strict=True)):
            if given is not None:
                values = given[n]
            elif type(payload) is dict:
                values = index_values(kind, actor, payload)
            else:
                values = None
            long = len(row[5]) > self.text_limit and kind not in WHOLE_KINDS  # (maybe cut)
            if values is None or long:  # (SQL indexes what is stored)
                self.unindexed.append((session_id, n + 1))
            else:
                self.indexed.append((base | (n + 1), *values))

    def _whole(self, rows: list[tuple[Any, ...]]) -> bool:
        """Whether no payload of `rows` is longer than the text limit (none was cut)."""
        return not rows or max(map(len, map(_payload, rows))) <= self.text_limit

    def timed_events(
        self,
        session_id: int,
        events: Sequence[tuple[str, str, dict[str, Any] | str, str | None, float | None]],
        index: Sequence[tuple[str, str] | None] | None = None,
    ) -> None:
        """Queue a session's events as `events_of` does (a payload a dict or its `scrubbed_json`
        text; `index` as there), each with its own time and duration: (actor, kind, payload, ts,
        duration_ms), numbered from 1 (trajectories read from other harnesses' files,
        `interchange/`)."""
        limit = self.text_limit
        if session_id <= self.flushed_id:
            self.older_events = True
        start = len(self.events)
        self.events += [
            (
                session_id,
                seq,
                ts,
                actor,
                kind,
                cap_json(payload if type(payload) is str else scrubbed_json(payload), limit, kind),
                ms,
            )
            for seq, (actor, kind, payload, ts, ms) in enumerate(events, start=1)
        ]
        if self.index:
            shown = [(actor, kind, payload) for actor, kind, payload, _, _ in events]
            self._index(session_id, shown, self.events[start:], index)

    def annotation(self, row: dict[str, Any]) -> None:
        """Queue a label or note (the `annotations` table's columns but its id)."""
        self.annotations.append(_annotation_row(row))

    def grade(self, row: dict[str, Any]) -> None:
        """Queue a grade (`parsed_answer` and `metrics` as Python values, or both as JSON text)."""
        values = {**_NO_GRADE, **row}
        if type(values["metrics"]) is not str:  # (else both encoded already)
            values["parsed_answer"] = dumps(values["parsed_answer"])
            values["metrics"] = scrubbed_json(values["metrics"] or {})
        self.grades.append(_grade_row(values))

    def flush(self) -> int:
        """Write what is queued; returns the number of sessions written."""
        conn, written = self.conn, len(self.sessions)
        if not self.sessions:
            self._write()
            return 0
        ids = [row[0] for row in self.sessions]
        with summary_after(conn, min(ids), max(ids)):  # (the summary's rows in one statement)
            self._write()
        return written

    def _write(self) -> None:
        conn = self.conn
        conn.executemany(
            f"INSERT INTO sessions ({', '.join(SESSION_COLUMNS)})"
            f" VALUES ({', '.join('?' * len(SESSION_COLUMNS))})",
            self.sessions,
        )
        if self.index and not self.older_events:
            write_in_bulk(conn)
            with untriggered(conn) if self.events else nullcontext():
                self._write_events()
            conn.executemany(
                "INSERT INTO event_search (rowid, body, facets) VALUES (?, ?, ?)", self.indexed
            )
            conn.executemany(INDEX_EVENT, self.unindexed)
        else:
            # the batch's events are indexed by the next search, not now (search_index.py), and
            # not even looked at by the index's trigger when they are all the batch's sessions'
            defer(conn, self.flushed_id, self.next_id)
            with nullcontext() if self.older_events or not self.events else untriggered(conn):
                self._write_events()
        conn.executemany(
            f"INSERT INTO grades ({', '.join(GRADE_COLUMNS)})"
            f" VALUES ({', '.join('?' * len(GRADE_COLUMNS))})",
            self.grades,
        )
        if self.annotations:  # (after the events they may refer to)
            conn.executemany(
                f"INSERT INTO annotations ({', '.join(ANNOTATION_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(ANNOTATION_COLUMNS))})",
                self.annotations,
            )
        self.sessions, self.events, self.grades, self.annotations = [], [], [], []
        self.indexed, self.unindexed = [], []
        self.flushed_id, self.older_events = self.next_id, False

    def _write_events(self) -> None:
        self.conn.executemany(
            "INSERT INTO events (session_id, seq, ts, actor, kind, payload, duration_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            self.events,
        )
