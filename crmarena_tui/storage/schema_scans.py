"""Schema 19 (`v19_scans`): what model scanners read and proposed (issue 41), kept beside the
people's labels and never among them (`annotations` is untouched).

- `scans`: one run of a scanner: its name (a resumed run keeps it), what it asks (`kind`:
  `labels`, failure-mode labels from the taxonomy it was given, `taxonomy` as a JSON list; or
  `rubric`, the answer to a question, `rubric` naming it and `question`/`answer_schema` the
  wording it ran with; or `themes`, a pass that grouped reasons and notes), the model, the
  prompt version, the selection it read (`--where`/`--search` text), started and finished times;
  the tokens, cost and seconds of a `themes` pass's own model calls (a labels or rubric scan's
  are its readings').
- `scan_readings`: one row per session a scan read: `ok` (its suggestions are stored) or `failed`
  (the model call failed after its retries: `error`, `attempts`); tokens in and out, cost in
  USD (None: the price is unknown), seconds of the model call(s), when. A resumed scan skips the
  sessions with an `ok` reading and tries the failed ones again.
- `suggestions`: what a reading proposed: a failure-mode `label` with the step it points at
  (`event_seq`, NULL for the whole session) and a one-sentence `reason`, or a rubric's `answer`
  (JSON text, `label` empty). A reading that found nothing wrong stores no suggestion.
- `rubrics`: a question and the JSON Schema of its answer, kept by name (as `saved_searches`).
- `themes` and `theme_members`: the themes a `themes` scan named, each reason (a suggestion's)
  or note (an annotation's) assigned to one, with the session and step it is about.
Every statement is `IF NOT EXISTS`: a database whose version was set back runs it again.

Schema 21 (`v21_rubric_shows_answer`): `rubrics.show_answer`, 1 for a rubric whose transcripts
show the task's expected answer (`scan --save-rubric ... --show-answer`; scans/scanner.py: no
scan shows it otherwise). Added only when missing, so it too runs again safely.
"""

from __future__ import annotations

import sqlite3

_V19 = [
    """
    CREATE TABLE IF NOT EXISTS scans (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind = 'labels' OR kind = 'rubric' OR kind = 'themes'),
        model TEXT NOT NULL,
        prompt_version TEXT NOT NULL,
        rubric TEXT,
        question TEXT,
        answer_schema TEXT,
        taxonomy TEXT NOT NULL DEFAULT '[]',
        selection TEXT NOT NULL DEFAULT '',
        tokens_in INTEGER NOT NULL DEFAULT 0,
        tokens_out INTEGER NOT NULL DEFAULT 0,
        cost REAL,
        seconds REAL NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        finished_at TEXT
    )
    """,
    "CREATE INDEX IF NOT EXISTS scans_by_name ON scans (name)",
    """
    CREATE TABLE IF NOT EXISTS scan_readings (
        scan_id INTEGER NOT NULL REFERENCES scans(id) ON DELETE CASCADE,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        status TEXT NOT NULL CHECK (status = 'ok' OR status = 'failed'),
        tokens_in INTEGER NOT NULL DEFAULT 0,
        tokens_out INTEGER NOT NULL DEFAULT 0,
        cost REAL,
        seconds REAL NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 1,
        error TEXT NOT NULL DEFAULT '',
        read_at TEXT NOT NULL,
        PRIMARY KEY (scan_id, session_id)
    )
    """,
    "CREATE INDEX IF NOT EXISTS scan_readings_by_session ON scan_readings (session_id)",
    """
    CREATE TABLE IF NOT EXISTS suggestions (
        id INTEGER PRIMARY KEY,
        scan_id INTEGER NOT NULL REFERENCES scans(id) ON DELETE CASCADE,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        event_seq INTEGER,
        label TEXT NOT NULL DEFAULT '',
        answer TEXT,
        reason TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        FOREIGN KEY (scan_id, session_id) REFERENCES scan_readings(scan_id, session_id)
            ON DELETE CASCADE
    )
    """,
    "CREATE INDEX IF NOT EXISTS suggestions_by_session ON suggestions (session_id, event_seq)",
    "CREATE INDEX IF NOT EXISTS suggestions_by_scan ON suggestions (scan_id, session_id)",
    """
    CREATE TABLE IF NOT EXISTS rubrics (
        name TEXT PRIMARY KEY,
        question TEXT NOT NULL,
        answer_schema TEXT NOT NULL,
        created_at TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS themes (
        id INTEGER PRIMARY KEY,
        scan_id INTEGER NOT NULL REFERENCES scans(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT ''
    )
    """,
    "CREATE INDEX IF NOT EXISTS themes_by_scan ON themes (scan_id)",
    """
    CREATE TABLE IF NOT EXISTS theme_members (
        theme_id INTEGER NOT NULL REFERENCES themes(id) ON DELETE CASCADE,
        source TEXT NOT NULL CHECK (source = 'suggestion' OR source = 'note'),
        source_id INTEGER NOT NULL,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        event_seq INTEGER,
        text TEXT NOT NULL,
        PRIMARY KEY (theme_id, source, source_id)
    )
    """,
]


def v19_scans(db: sqlite3.Connection) -> None:
    """Schema 19 (module docstring): scans, their readings and suggestions, rubrics, themes."""
    for statement in _V19:
        db.execute(statement)


def v21_rubric_shows_answer(db: sqlite3.Connection) -> None:
    """Schema 21 (module docstring): whether a rubric's transcripts show the expected answer."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(rubrics)")}
    if "show_answer" not in columns:
        db.execute("ALTER TABLE rubrics ADD COLUMN show_answer INTEGER NOT NULL DEFAULT 0")
