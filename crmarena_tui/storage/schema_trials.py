"""The schema of trials (`run --trials K`, `mcp --trials K`): each task worked K times as K
distinct attempts of one configuration, each a session with its trial number.

- Schema 14 (`v14_trials`): `sessions.trial`, from 1 (every older session is trial 1), and an
  index to group a configuration's trials of a task.
- Schema 15 (`v15_trial_listed`): the trial where sessions are browsed: `session_overview`
  (`storage/schema_views.py`) made again with `trial` and `user_simulator` (a chat's user model
  is part of its configuration), and the sessions list's covering index (`storage/listing.py`)
  made again with `trial`, so the list shows it without reading the rows' task snapshots.
"""

from __future__ import annotations

import sqlite3

from crmarena_tui.storage.schema_views import SESSION_OVERVIEW

# schema 15: the trial of the attempt (`run --trials K`) and the simulated user of a chat
SESSION_OVERVIEW_V15 = SESSION_OVERVIEW.replace(
    "    s.task_idx,\n", "    s.task_idx,\n    s.trial,\n"
).replace("    s.aided,\n", "    s.aided,\n    s.user_simulator,\n")
LISTED_V15 = (
    "CREATE INDEX sessions_listed ON sessions (task_source, task_idx, participant_id,"
    " task_type, status, kind, parent_session_id, started_at, active_seconds, interactive,"
    " org_ref, protocol, trial)"
)


def v14_trials(db: sqlite3.Connection) -> None:
    """Schema 14: the trial number of an attempt (`run --trials K` works each task K times as K
    distinct attempts of one configuration). Every older session is trial 1; an index lets the
    report group a configuration's trials of a task without reading the settings."""
    db.execute(
        "ALTER TABLE sessions ADD COLUMN trial INTEGER NOT NULL DEFAULT 1 CHECK (trial >= 1)"
    )
    db.execute(
        "CREATE INDEX sessions_by_trial ON sessions (participant_id, task_source, task_idx, trial)"
    )


def v15_trial_listed(db: sqlite3.Connection) -> None:
    """Schema 15: the trial number where sessions are browsed. `session_overview` gains `trial`
    and `user_simulator`; the sessions list's covering index (`storage/listing.py`) gains
    `trial`, so the list shows it without reading the rows' task snapshots."""
    db.execute("DROP VIEW IF EXISTS session_overview")
    db.execute(SESSION_OVERVIEW_V15)
    db.execute("DROP INDEX IF EXISTS sessions_listed")
    db.execute(LISTED_V15)
