"""`Store`: the one facade over the sessions database. Screens, the Episode and commands call it;
no SQL lives anywhere else.

Durability and concurrency:
- WAL journal, `synchronous=FULL`: every write is its own transaction and is fsynced before the
  method returns, so an event survives the process being killed and the machine losing power
  right after `append_event` returns (NORMAL would survive a killed process but could lose the last
  commits on power loss; benchmarks/bench_storage.py measures the price of FULL).
- Every write runs in `BEGIN IMMEDIATE`, so two processes (or threads) serialise on SQLite's write
  lock and wait for each other up to the busy timeout instead of failing; event sequence numbers
  are allocated inside that transaction, so concurrent appends to one session never collide.
- Opening validates before writing anything: a file that is not SQLite, is corrupt, holds
  someone else's tables or has a newer schema version is refused and left untouched.

Plain `sqlite3`, nothing heavier: `sqlite_utils` imports pandas, numpy and pyarrow when it is
imported (about 0.35 s and 60 MB), and the Store needs only queries and inserts. The file stays an
ordinary SQLite database that Datasette and the sqlite-utils CLI read.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui import __version__
from crmarena_tui.settings import locations
from crmarena_tui.storage import convert, event_cap, search_index
from crmarena_tui.storage.connection import Durability, open_sessions_db
from crmarena_tui.storage.convert import dumps, iso, scrub_secrets
from crmarena_tui.storage.errors import NotFound, StorageError
from crmarena_tui.storage.models import (
    ACTORS,
    EVENT_KINDS,
    SESSION_KINDS,
    STATUSES,
    Event,
    GradeRow,
    Participant,
    Session,
    SessionSpec,
    settings_protocol,
)
from crmarena_tui.storage.session_annotations import SessionAnnotations
from crmarena_tui.storage.session_db import SessionDb
from crmarena_tui.storage.suggestions import Suggestions

if TYPE_CHECKING:
    pass


class Store:
    """The sessions database at `path` (default: `locations.default_db_path()`); its labels and
    notes are `annotations` (storage/session_annotations.py), model scanners' readings are
    `suggestions` (storage/suggestions.py), both sharing the store's connection."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        busy_timeout: float = 30.0,
        durability: Durability = "full",
        clock: Callable[[], float] = time.time,
        text_limit: int | None = None,
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else locations.default_db_path()
        # the longest text an event stores whole (storage/event_cap.py; None: the setting)
        self.text_limit = text_limit if text_limit is not None else event_cap.text_limit()
        conn = open_sessions_db(self.path, busy_timeout=busy_timeout, durability=durability)
        self.db = SessionDb(conn, clock)
        self.annotations = SessionAnnotations(self.db)
        self.suggestions = Suggestions(self.db)
        # (an index that skips pending sessions, since schema 12: live sessions wait for their end)
        self._live_pending = bool(
            self.db.tuples("SELECT 1 FROM sqlite_master WHERE name = 'search_pending'")
        )

    @property
    def clock(self) -> Callable[[], float]:
        """The clock that stamps rows (injectable: tests pass a fixed one)."""
        return self.db.clock

    # -- transactions ------------------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """Group several writes into one transaction (all or nothing); Store methods join it."""
        return self.db.write()

    def in_bulk(self) -> AbstractContextManager[None]:
        """Around a command's bulk writes, outside any transaction: SQLite's temporary files in
        memory and a larger page cache (`SessionDb.in_bulk`: a sixth less CPU for an import)."""
        return self.db.in_bulk()

    def read(self, sql: str, params: tuple | dict = ()) -> list[tuple[Any, ...]]:
        """Rows of a read-only query as tuples: for the storage package's bulk readers
        (`storage/listing.py`), which need no domain model per row."""
        return self.db.tuples(sql, params)

    def check_damage(self) -> None:
        """Raise `DamagedDatabase` when the file is damaged (`PRAGMA quick_check`): the commands
        that write in bulk call it first, whatever the file's size."""
        from crmarena_tui.storage.connection import check_damage

        check_damage(self.db.conn, self.path)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self.db.tuples("PRAGMA user_version")[0][0]

    # -- participants ------------------------------------------------------------------------

    def participant(
        self, kind: str, name: str, model: str | None = None, settings: dict[str, Any] | None = None
    ) -> Participant:
        """The participant with exactly these fields, created on first use (secrets scrubbed)."""
        if kind not in ("human", "agent"):
            raise ValueError(f"participant kind must be 'human' or 'agent', not {kind!r}")
        key = _participant_key(kind, name, model, settings)
        with self.db.write():
            rows = self.db.rows(f"SELECT * FROM participants WHERE {_PARTICIPANT}", key)
            if not rows:
                self.db.insert("participants", {**key, "created_at": self.db.now()})
                rows = self.db.rows(f"SELECT * FROM participants WHERE {_PARTICIPANT}", key)
        return convert.participant_from_row(rows[0])

    def find_participant(
        self, kind: str, name: str, model: str | None = None, settings: dict[str, Any] | None = None
    ) -> Participant | None:
        """The participant with exactly these fields, or None (nothing is created)."""
        key = _participant_key(kind, name, model, settings)
        rows = self.db.rows(f"SELECT * FROM participants WHERE {_PARTICIPANT}", key)
        return convert.participant_from_row(rows[0]) if rows else None

    def get_participant(self, participant_id: int) -> Participant:
        rows = self.db.rows("SELECT * FROM participants WHERE id = ?", (participant_id,))
        if not rows:
            raise NotFound(f"no participant with id {participant_id}")
        return convert.participant_from_row(rows[0])

    def participants(self, kind: str | None = None) -> list[Participant]:
        sql, params = "SELECT * FROM participants", tuple[Any, ...]()
        if kind is not None:
            sql, params = sql + " WHERE kind = ?", (kind,)
        return [convert.participant_from_row(r) for r in self.db.rows(sql + " ORDER BY id", params)]

    # -- sessions ----------------------------------------------------------------------------

    def create_session(
        self,
        spec: SessionSpec,
        *,
        settings_key: str | None = None,
        status: str = "in_progress",
        started_at: float | None = None,
        ended_at: float | None = None,
        active_seconds: float | None = None,
        app_version: str = __version__,
    ) -> Session:
        """A new session of `spec` (storage/models.py), snapshotting its task (ground truth
        included), with a fresh uuid; `settings_key` is the key it resumes by (default: its
        settings' own key). The rest is the row's state: status, times, the app's version."""
        _check_status(status)
        if spec.kind not in SESSION_KINDS:
            raise ValueError(
                f"unknown session kind {spec.kind!r}; expected one of {sorted(SESSION_KINDS)}"
            )
        if spec.trial < 1 or (spec.study_id is not None and spec.trial != 1):
            raise ValueError(
                f"trial {spec.trial}: a trial counts from 1, and a study's expert makes one "
                "attempt per task (trial 1)"
            )
        task, participant_id = spec.task, spec.participant.id
        clean = scrub_secrets(spec.settings or {})
        row = {
            "participant_id": participant_id,
            "task_source": task.source,
            "task_idx": task.idx,
            "task_type": task.task,
            "task_json": dumps(task.row()),
            "org_kind": spec.org.kind,
            "org_ref": spec.org.ref,
            "interactive": int(task.interactive),
            "aided": int(spec.aided),
            "blind": None if spec.blind is None else int(spec.blind),
            "status": status,
            "started_at": self.db.now(started_at),
            "ended_at": iso(ended_at) if ended_at is not None else None,
            "active_seconds": active_seconds,
            "app_version": app_version,
            "settings_key": settings_key or convert.settings_key(clean),
            "settings": dumps(clean),
            "user_simulator": spec.user,
            "parent_session_id": spec.parent_id,
            "fork_seq": spec.fork_seq,
            "kind": spec.kind,
            "protocol": settings_protocol(clean),
            "uuid": uuid.uuid4().hex,
            "study_id": spec.study_id,
        }
        if spec.trial != 1:  # the column's default (schema 14) is trial 1
            row["trial"] = spec.trial
        with self.db.write() as conn:
            try:
                session_id = self.db.insert("sessions", row)
            except sqlite3.IntegrityError as exc:
                raise NotFound(
                    f"cannot create session: participant {participant_id}, parent session "
                    f"{spec.parent_id} or study {spec.study_id} does not exist ({exc})"
                ) from exc
            if self._live_pending:
                search_index.defer_session(conn, int(session_id))  # (indexed when it ends)
        return self.session(int(session_id))

    def index_session(self, session_id: int) -> bool:
        """A session written live, once it has ended: its events indexed for search in one
        transaction (storage/search_index.py); False when it was indexed already."""
        if not self._live_pending:
            return False
        with self.db.lock:  # (read first: a re-grade of an indexed session takes no write lock)
            if search_index.pending_range(self.db.conn, session_id) is None:
                return False
        with self.db.write() as conn:
            return search_index.index_session(conn, session_id)

    def session(self, session_id: int) -> Session:
        rows = self.db.rows("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise NotFound(f"no session with id {session_id}")
        return convert.session_from_row(rows[0])

    def find_session(
        self,
        participant_id: int,
        task_source: str,
        task_idx: int,
        settings_key: str,
        *,
        status: str | None = None,
    ) -> Session | None:
        """The latest of this participant's own attempts on this task with these settings (forks
        and take-overs are continuations of other sessions, never resumed as an attempt)."""
        sql = (
            "SELECT * FROM sessions WHERE participant_id = ? AND task_source = ? AND task_idx = ?"
            " AND settings_key = ? AND kind = 'attempt'"
        )
        params: tuple = (participant_id, task_source, task_idx, settings_key)
        if status is not None:
            sql, params = sql + " AND status = ?", (*params, status)
        rows = self.db.rows(sql + " ORDER BY id DESC LIMIT 1", params)
        return convert.session_from_row(rows[0]) if rows else None

    def sessions(
        self,
        participant_id: int | None = None,
        task_source: str | None = None,
        task_idx: int | None = None,
        status: str | None = None,
    ) -> list[Session]:
        clauses, params = [], []
        for column, value in (
            ("participant_id", participant_id),
            ("task_source", task_source),
            ("task_idx", task_idx),
            ("status", status),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.rows(f"SELECT * FROM sessions{where} ORDER BY id", tuple(params))
        return [convert.session_from_row(r) for r in rows]

    def set_status(
        self,
        session_id: int,
        status: str,
        *,
        ended_at: float | None = None,
        active_seconds: float | None = None,
    ) -> Session:
        """Set the status; a finished status also stamps `ended_at` (now unless given)."""
        _check_status(status)
        updates: dict[str, Any] = {"status": status}
        if status == "in_progress":
            updates["ended_at"] = None
        else:
            updates["ended_at"] = self.db.now(ended_at)
        if active_seconds is not None:
            updates["active_seconds"] = float(active_seconds)
        assignments = ", ".join(f"{k} = :{k}" for k in updates)
        with self.db.write() as conn:
            cursor = conn.execute(
                f"UPDATE sessions SET {assignments} WHERE id = :id", {**updates, "id": session_id}
            )
            if cursor.rowcount == 0:
                raise NotFound(f"no session with id {session_id}")
        return self.session(session_id)

    # -- events ------------------------------------------------------------------------------

    def append_event(
        self,
        session_id: int,
        actor: str,
        kind: str,
        payload: dict[str, Any] | None = None,
        duration_ms: float | None = None,
        *,
        ts: float | None = None,
    ) -> Event:
        """Append one event; it is on disk (fsynced) when this returns. A text of the payload
        longer than `text_limit` is stored cut, the cut recorded, except a query's observation
        (storage/event_cap.py). The event returned holds the payload as stored, without decoding
        the text just encoded unless the encoding changed it (a cut text, a value JSON holds
        otherwise: `convert.reads_back`)."""
        if actor not in ACTORS:
            raise ValueError(f"unknown actor {actor!r}; expected one of {sorted(ACTORS)}")
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {kind!r}; expected one of {sorted(EVENT_KINDS)}")
        clean = scrub_secrets(payload or {})
        encoded = dumps(clean)
        body = event_cap.cap_json(encoded, self.text_limit, kind)
        stored = clean if body is encoded and convert.reads_back(clean) else None
        stamp = self.db.now(ts)
        with self.db.write() as conn:
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            try:
                conn.execute(
                    "INSERT INTO events (session_id, seq, ts, actor, kind, payload, duration_ms)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (session_id, seq, stamp, actor, kind, body, duration_ms),
                )
            except sqlite3.IntegrityError as exc:
                raise NotFound(f"no session with id {session_id}") from exc
        return convert.event_from_row(
            {
                "session_id": session_id,
                "seq": seq,
                "ts": stamp,
                "actor": actor,
                "kind": kind,
                "payload": body if stored is None else stored,
                "duration_ms": duration_ms,
            }
        )

    def events(self, session_id: int, *, after_seq: int = 0) -> list[Event]:
        """The session's events in order (only those after `after_seq`, for tailing a live run)."""
        rows = self.db.rows(
            "SELECT * FROM events WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after_seq),
        )
        return [convert.event_from_row(r) for r in rows]

    def copy_events(self, from_session: int, to_session: int, upto_seq: int) -> int:
        """Copy events 1..upto_seq of one session into another (a fork); returns how many."""
        with self.db.write() as conn:
            if conn.execute("SELECT 1 FROM events WHERE session_id = ?", (to_session,)).fetchone():
                raise StorageError(f"session {to_session} already has events; cannot copy into it")
            cursor = conn.execute(
                "INSERT INTO events (session_id, seq, ts, actor, kind, payload, duration_ms)"
                " SELECT ?, seq, ts, actor, kind, payload, duration_ms FROM events"
                " WHERE session_id = ? AND seq <= ? ORDER BY seq",
                (to_session, from_session, upto_seq),
            )
            return cursor.rowcount

    # -- grades ------------------------------------------------------------------------------

    def add_grade(self, session_id: int, grade: Any, *, graded_at: float | None = None) -> GradeRow:
        """Store a `crmarena_tui.graders.Grade` for the session (a session may be re-graded)."""
        row = convert.grade_to_row(session_id, grade, self.db.now(graded_at))
        with self.db.write():
            try:
                grade_id = self.db.insert("grades", row)
            except sqlite3.IntegrityError as exc:
                raise NotFound(f"no session with id {session_id}") from exc
        rows = self.db.rows("SELECT * FROM grades WHERE id = ?", (grade_id,))
        return convert.grade_from_row(rows[0])

    def grade(self, session_id: int) -> GradeRow | None:
        """The session's latest grade, or None."""
        rows = self.db.rows(
            "SELECT * FROM grades WHERE session_id = ? ORDER BY id DESC LIMIT 1", (session_id,)
        )
        return convert.grade_from_row(rows[0]) if rows else None

    def grades(self, session_id: int | None = None) -> list[GradeRow]:
        sql, params = "SELECT * FROM grades", tuple[Any, ...]()
        if session_id is not None:
            sql, params = sql + " WHERE session_id = ?", (session_id,)
        return [convert.grade_from_row(r) for r in self.db.rows(sql + " ORDER BY id", params)]


def _check_status(status: str) -> None:
    if status not in STATUSES:
        raise ValueError(f"unknown session status {status!r}; expected one of {sorted(STATUSES)}")


_PARTICIPANT = "kind = :kind AND name = :name AND model = :model AND settings = :settings"


def _participant_key(
    kind: str, name: str, model: str | None, settings: dict[str, Any] | None
) -> dict[str, str]:
    """What identifies a participant row (its settings as stored: secrets scrubbed)."""
    return {
        "kind": kind,
        "name": name,
        "model": model or "",
        "settings": dumps(scrub_secrets(settings or {})),
    }
