"""Trials: several attempts of one configuration at one task (`run --trials K`).

Each attempt carries its trial number (`sessions.trial`, from 1); trial 1 is what every attempt
was before trials existed, so older databases read as one trial per task."""

from __future__ import annotations

import sqlite3


def v14_trials(db: sqlite3.Connection) -> None:
    """Schema 14: the trial number of an attempt. Every older session is trial 1; the index lets
    a configuration's trials of a task be found and grouped without reading the settings."""
    db.execute(
        "ALTER TABLE sessions ADD COLUMN trial INTEGER NOT NULL DEFAULT 1 CHECK (trial >= 1)"
    )
    db.execute(
        "CREATE INDEX sessions_by_trial ON sessions (participant_id, task_source, task_idx, trial)"
    )
