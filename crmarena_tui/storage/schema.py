"""Table schema and migrations of the sessions database, keyed on `PRAGMA user_version`.

`MIGRATIONS[i]` takes the database from version `i` to `i + 1`. Add a function at the end to change
the schema; never edit one that has shipped. Each migration runs inside the caller's write
transaction, so a crash mid-migration leaves the file at the previous version.

Event kinds are validated by the domain model rather than a CHECK constraint: the vocabulary is
expected to grow, and SQLite cannot alter a CHECK constraint without rebuilding the table.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from crmarena_tui.storage.finite import v17_finite_json
from crmarena_tui.storage.schema_dump import v18_dumpable
from crmarena_tui.storage.schema_leases import v16_leases
from crmarena_tui.storage.schema_reviews import v20_review_queues
from crmarena_tui.storage.schema_scans import v19_scans, v21_rubric_shows_answer
from crmarena_tui.storage.schema_studies import v6_studies, v9_study_join_attempts
from crmarena_tui.storage.schema_summary import v22_session_summary, v23_every_column_indexed
from crmarena_tui.storage.schema_trials import v14_trials, v15_trial_listed
from crmarena_tui.storage.schema_views import v10_browsing
from crmarena_tui.storage.search_index import v11_event_search, v12_search_pending

Migration = Callable[[sqlite3.Connection], None]

_V1 = [
    """
    CREATE TABLE participants (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('human', 'agent')),
        name TEXT NOT NULL,
        model TEXT NOT NULL DEFAULT '',
        settings TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        UNIQUE (kind, name, model, settings)
    )
    """,
    """
    CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        participant_id INTEGER NOT NULL REFERENCES participants(id),
        task_source TEXT NOT NULL,
        task_idx INTEGER NOT NULL,
        task_type TEXT NOT NULL,
        task_json TEXT NOT NULL,
        org_kind TEXT NOT NULL,
        org_ref TEXT NOT NULL,
        interactive INTEGER NOT NULL DEFAULT 0,
        aided INTEGER NOT NULL DEFAULT 0,
        blind INTEGER NOT NULL DEFAULT 1,
        status TEXT NOT NULL DEFAULT 'in_progress'
            CHECK (status IN ('in_progress', 'submitted', 'abandoned')),
        started_at TEXT NOT NULL,
        ended_at TEXT,
        active_seconds REAL,
        app_version TEXT NOT NULL,
        settings_key TEXT NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}',
        user_simulator TEXT,
        parent_session_id INTEGER REFERENCES sessions(id),
        fork_seq INTEGER
    )
    """,
    "CREATE INDEX sessions_by_task ON sessions (task_source, task_idx)",
    "CREATE INDEX sessions_by_participant ON sessions (participant_id, task_source, task_idx, settings_key)",
    """
    CREATE TABLE events (
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        ts TEXT NOT NULL,
        actor TEXT NOT NULL CHECK (actor IN ('human', 'agent', 'user', 'system')),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        duration_ms REAL,
        PRIMARY KEY (session_id, seq)
    )
    """,
    """
    CREATE TABLE grades (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        answer TEXT NOT NULL,
        parsed_answer TEXT,
        reward REAL NOT NULL,
        metrics TEXT NOT NULL DEFAULT '{}',
        grader TEXT NOT NULL,
        grader_version TEXT NOT NULL DEFAULT '',
        judge_model TEXT,
        judge_raw TEXT,
        extraction TEXT,
        imported INTEGER NOT NULL DEFAULT 0,
        graded_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX grades_by_session ON grades (session_id)",
    """
    CREATE TABLE annotations (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        event_seq INTEGER,
        label TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        annotator TEXT NOT NULL,
        created_at TEXT NOT NULL,
        FOREIGN KEY (session_id, event_seq) REFERENCES events(session_id, seq)
    )
    """,
    "CREATE INDEX annotations_by_session ON annotations (session_id, event_seq)",
]


def _v1_initial(db: sqlite3.Connection) -> None:
    for statement in _V1:
        db.execute(statement)


def _v2_grade_protocol(db: sqlite3.Connection) -> None:
    """Each grade records its grading protocol. Grades stored before were graded by this project's
    own rules (`workbench`), except imported ones, which carry upstream's rewards (`upstream`)."""
    db.execute("ALTER TABLE grades ADD COLUMN protocol TEXT")
    db.execute(
        "UPDATE grades SET protocol = CASE WHEN imported = 1 THEN 'upstream' ELSE 'workbench' END"
    )


def _v3_session_kind(db: sqlite3.Connection) -> None:
    """Each session has a kind: an `attempt` (a participant's own try at the task), a `fork` (a
    continuation of another session from one of its steps) or a `takeover` (a human continuing an
    agent's session). Baseline figures count attempts only. Sessions stored before: those with a
    parent are forks, except the ones their parent's log names as taken over."""
    db.execute(
        "ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'attempt'"
        " CHECK (kind IN ('attempt', 'fork', 'takeover'))"
    )
    db.execute("UPDATE sessions SET kind = 'fork' WHERE parent_session_id IS NOT NULL")
    db.execute(
        "UPDATE sessions SET kind = 'takeover' WHERE parent_session_id IS NOT NULL AND id IN ("
        " SELECT CAST(json_extract(payload, '$.session') AS INTEGER) FROM events"
        " WHERE kind = 'system' AND json_extract(payload, '$.event') = 'taken_over')"
    )


_V4_EVENTS = """
    CREATE TABLE events_v4 (
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        ts TEXT,
        actor TEXT NOT NULL CHECK (actor IN ('human', 'agent', 'user', 'system')),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        duration_ms REAL,
        PRIMARY KEY (session_id, seq)
    )
"""
_V4_ANNOTATIONS = """
    CREATE TABLE annotations_v4 (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        event_seq INTEGER,
        kind TEXT NOT NULL DEFAULT 'label' CHECK (kind IN ('label', 'note')),
        label TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        annotator TEXT NOT NULL,
        created_at TEXT NOT NULL,
        FOREIGN KEY (session_id, event_seq) REFERENCES events_v4(session_id, seq)
    )
"""
_NOTE_EVENTS = (
    "kind = 'note' AND json_type(payload, '$.about_seq') IS NOT NULL"
    " AND COALESCE(json_extract(payload, '$.annotator'), '') != ''"
)


def _v4_untimed_events_and_notes(db: sqlite3.Connection) -> None:
    """Events may have no time (`ts` NULL): upstream result files record none, so imported steps
    carry none instead of the file's modification time. Annotations have a kind, `label` or
    `note`: an annotator's note about a step or a session (formerly a `note` event in the
    session's log, carrying `annotator` and `about_seq`) is an annotation, so it no longer sits
    inside the trajectory it comments on. Both tables are rebuilt (SQLite cannot drop a NOT NULL);
    annotations first refer to the new events table, which then takes the old name. The sessions
    list reads its columns from one covering index (`sessions_listed`), never the rows' large
    task snapshots."""
    db.execute(_V4_EVENTS)
    db.execute(
        "INSERT INTO events_v4 SELECT session_id, seq, CASE WHEN session_id IN (SELECT id FROM"
        " sessions WHERE json_extract(settings, '$.imported_from') = 'upstream') THEN NULL"
        " ELSE ts END, actor, kind, payload, duration_ms FROM events"
        f" WHERE NOT ({_NOTE_EVENTS})"
    )
    db.execute(_V4_ANNOTATIONS)
    db.execute(
        "INSERT INTO annotations_v4 (id, session_id, event_seq, kind, label, note, annotator,"
        " created_at) SELECT id, session_id, event_seq, 'label', label, note, annotator,"
        " created_at FROM annotations ORDER BY id"
    )
    db.execute(
        "INSERT INTO annotations_v4 (session_id, event_seq, kind, label, note, annotator,"
        " created_at) SELECT n.session_id, CASE WHEN json_type(n.payload, '$.about_seq') ="
        " 'integer' AND EXISTS (SELECT 1 FROM events_v4 e WHERE e.session_id = n.session_id"
        " AND e.seq = json_extract(n.payload, '$.about_seq'))"
        " THEN json_extract(n.payload, '$.about_seq') END, 'note', '',"
        " COALESCE(json_extract(n.payload, '$.text'), ''), json_extract(n.payload, '$.annotator'),"
        f" n.ts FROM events n WHERE {_NOTE_EVENTS.replace('payload', 'n.payload')}"
        " ORDER BY n.session_id, n.seq"
    )
    db.execute("DROP TABLE annotations")
    db.execute("DROP TABLE events")
    db.execute("ALTER TABLE events_v4 RENAME TO events")
    db.execute("ALTER TABLE annotations_v4 RENAME TO annotations")
    db.execute("CREATE INDEX annotations_by_session ON annotations (session_id, event_seq)")
    db.execute(
        "CREATE INDEX sessions_listed ON sessions (task_source, task_idx, participant_id,"
        " task_type, status, kind, parent_session_id, started_at, active_seconds, interactive,"
        " org_ref)"
    )


def _v5_session_protocol(db: sqlite3.Connection) -> None:
    """Each session's protocol (`upstream` or `workbench`) as a column, so the sessions list reads
    it from its covering index: the one recorded in its settings; an imported upstream run's is
    `upstream`; sessions stored before protocols were recorded ran this project's own loop."""
    db.execute("ALTER TABLE sessions ADD COLUMN protocol TEXT NOT NULL DEFAULT 'workbench'")
    db.execute(
        "UPDATE sessions SET protocol = CASE"
        " WHEN json_extract(settings, '$.protocol') IN ('upstream', 'workbench')"
        " THEN json_extract(settings, '$.protocol')"
        " WHEN json_extract(settings, '$.imported_from') = 'upstream' THEN 'upstream'"
        " ELSE 'workbench' END"
    )
    db.execute("DROP INDEX IF EXISTS sessions_listed")
    db.execute(
        "CREATE INDEX sessions_listed ON sessions (task_source, task_idx, participant_id,"
        " task_type, status, kind, parent_session_id, started_at, active_seconds, interactive,"
        " org_ref, protocol)"
    )


_V7_EVENTS = """
    CREATE TABLE events_v7 (
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        ts TEXT,
        actor TEXT NOT NULL
            CHECK (actor = 'human' OR actor = 'agent' OR actor = 'user' OR actor = 'system'),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        duration_ms REAL,
        PRIMARY KEY (session_id, seq)
    )
"""
_V7_ANNOTATIONS = """
    CREATE TABLE annotations_v7 (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        event_seq INTEGER,
        kind TEXT NOT NULL DEFAULT 'label' CHECK (kind = 'label' OR kind = 'note'),
        label TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        annotator TEXT NOT NULL,
        created_at TEXT NOT NULL,
        FOREIGN KEY (session_id, event_seq) REFERENCES events_v7(session_id, seq)
    )
"""
_EVENT_COLUMNS = "session_id, seq, ts, actor, kind, payload, duration_ms"
_ANNOTATION_COLUMNS = "id, session_id, event_seq, kind, label, note, annotator, created_at"


def _v7_cheaper_event_checks(db: sqlite3.Connection) -> None:
    """The same rule for an event's actor, written as comparisons joined by OR instead of an IN
    list: SQLite builds a small lookup table for an IN list each time a statement is run, so a
    bulk insert (one run per row) paid for it on every event, about a third of the cost of
    writing an imported trajectory. Events and annotations are rebuilt as in version 4
    (annotations refer to the events table, so they move with it); no row changes."""
    db.execute(_V7_EVENTS)
    db.execute(
        f"INSERT INTO events_v7 ({_EVENT_COLUMNS}) SELECT {_EVENT_COLUMNS} FROM events"
        " ORDER BY session_id, seq"
    )
    db.execute(_V7_ANNOTATIONS)
    db.execute(
        f"INSERT INTO annotations_v7 ({_ANNOTATION_COLUMNS}) SELECT {_ANNOTATION_COLUMNS}"
        " FROM annotations ORDER BY id"
    )
    db.execute("DROP TABLE annotations")
    db.execute("DROP TABLE events")
    db.execute("ALTER TABLE events_v7 RENAME TO events")
    db.execute("ALTER TABLE annotations_v7 RENAME TO annotations")
    db.execute("CREATE INDEX annotations_by_session ON annotations (session_id, event_seq)")


_BLIND_NOT_NULL = re.compile(r"\bblind\s+INTEGER\s+NOT\s+NULL\s+DEFAULT\s+1\b", re.IGNORECASE)


def _v8_agents_are_not_blind(db: sqlite3.Connection) -> None:
    """`sessions.blind` may be NULL, and is NULL for the sessions this project's agents ran:
    blind mode is how the task browser lists tasks to a person, so only a human plays blind
    (agent sessions were stored `blind = 1` before; imported upstream runs keep what their import
    wrote). Dropping a NOT NULL rule changes nothing on disk, so the table's stored definition is
    edited in place (SQLite's documented way for such a change, "Making Other Kinds Of Table
    Schema Changes"), inside the caller's transaction: rebuilding the table is not possible
    there, as every other table refers to it and foreign keys are on. The resume key of an
    agent's session is unchanged (`session/episode_log.resume_key`), so runs resume as before."""
    (sql,) = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sessions'"
    ).fetchone()
    relaxed, found = _BLIND_NOT_NULL.subn("blind INTEGER", sql)
    if found != 1:
        raise sqlite3.DatabaseError("sessions.blind is not defined as this migration expects")
    (version,) = db.execute("PRAGMA schema_version").fetchone()
    db.execute("PRAGMA writable_schema = ON")
    try:
        db.execute(
            "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'sessions'",
            (relaxed,),
        )
        db.execute(f"PRAGMA schema_version = {int(version) + 1}")  # every connection re-reads it
    finally:
        db.execute("PRAGMA writable_schema = RESET")
    db.execute(
        "UPDATE sessions SET blind = NULL"
        " WHERE participant_id IN (SELECT id FROM participants WHERE kind = 'agent')"
        " AND json_extract(settings, '$.imported_from') IS NOT 'upstream'"
    )


def _v13_usage_index(db: sqlite3.Connection) -> None:
    """Schema 13: the `usage` events (one or a few per agent session, of the millions of events
    at 100,000 sessions) indexed by session, so the report's efficiency sums read them without
    scanning every event (a partial index: no other event gets an entry)."""
    db.execute("CREATE INDEX events_usage ON events (session_id) WHERE kind = 'usage'")


# The columns of `sessions` that no index led with before schema 24, but for the two JSON texts
# (`task_json`, a few kilobytes a session; `settings`), which an index would copy whole.
SUGGESTED_SESSION_COLUMNS = (
    "task_idx",
    "task_type",
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
    "user_simulator",
    "parent_session_id",
    "fork_seq",
    "kind",
    "protocol",
    "trial",
)


def _v24_sessions_suggestible(db: sqlite3.Connection) -> None:
    """Schema 24: an index on each column of `sessions` in `SUGGESTED_SESSION_COLUMNS`, as
    schema 23 did for `session_summary`: Datasette's default page of the table suggests facets
    by grouping, and typing, every column (three queries a column, 50 ms each at most), which
    read the whole table at 100,000 sessions (about 2 s a page) and now read one column's
    index (benchmarks/bench_datasette.py). Rerunnable (`IF NOT EXISTS`)."""
    for column in SUGGESTED_SESSION_COLUMNS:
        db.execute(f"CREATE INDEX IF NOT EXISTS sessions_{column} ON sessions ({column})")


MIGRATIONS: list[Migration] = [
    _v1_initial,
    _v2_grade_protocol,
    _v3_session_kind,
    _v4_untimed_events_and_notes,
    _v5_session_protocol,
    v6_studies,  # storage/schema_studies.py: baseline studies, sessions with a uuid
    _v7_cheaper_event_checks,
    _v8_agents_are_not_blind,
    v9_study_join_attempts,  # storage/schema_studies.py: every try at a join screen
    v10_browsing,  # storage/schema_views.py: views for browsing, annotation level, ISO times
    v11_event_search,  # storage/search_index.py: the full-text index of events, saved searches
    v12_search_pending,  # storage/search_index.py: an import's sessions, to index at a search
    _v13_usage_index,  # the usage events the report sums (reports/report_sql.py), indexed
    v14_trials,  # storage/schema_trials.py: the trial number of an attempt
    v15_trial_listed,  # storage/schema_trials.py: the trial where sessions are browsed
    v16_leases,  # storage/schema_leases.py: who works which attempt (storage/leases.py)
    v17_finite_json,  # storage/finite.py: NaN and infinities older versions stored, as null
    v18_dumpable,  # storage/schema_dump.py: Datasette's pages at once, dumps, a version table
    v19_scans,  # storage/schema_scans.py: model scanners' readings and suggestions, rubrics, themes
    v20_review_queues,  # storage/schema_reviews.py: review queues, assignments, decisions
    v21_rubric_shows_answer,  # storage/schema_scans.py: a rubric may show the expected answer
    v22_session_summary,  # storage/schema_summary.py: session_overview from a summary table
    v23_every_column_indexed,  # storage/schema_summary.py: Datasette's facet suggestions
    _v24_sessions_suggestible,  # the same for the `sessions` table's own page
]
SCHEMA_VERSION = len(MIGRATIONS)
TABLES = ("participants", "sessions", "events", "grades", "annotations")  # in every version


def migrate(db: sqlite3.Connection, current: int) -> int:
    """Apply every migration after `current`; the caller holds a write transaction."""
    for version in range(current, SCHEMA_VERSION):
        MIGRATIONS[version](db)
        db.execute(f"PRAGMA user_version = {version + 1}")
    if restored_version(db):  # the copy a dump carries (storage/schema_dump.py)
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    return SCHEMA_VERSION


def restored_version(db: sqlite3.Connection) -> int:
    """The schema version a database records in its `schema_version` table (schema 18 on), for a
    database restored from a dump, which carries no `PRAGMA user_version`; 0 without one."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_version'").fetchone():
        return 0
    found = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(found[0] or 0)
