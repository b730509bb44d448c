"""`crmarena-tui run --agent reference` end to end: demo tasks, demo org, sessions database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.cli import main

ARGS = ["run", "--agent", "reference", "--task", "handle_time", "--limit", "4"]


def sessions(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT s.id, s.task_idx, s.status, g.reward, p.name FROM sessions s "
            "JOIN participants p ON p.id = s.participant_id LEFT JOIN grades g ON g.session_id = s.id "
            "ORDER BY s.id"
        ).fetchall()
    finally:
        conn.close()


def test_run_then_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "runs.db"
    assert main([*ARGS, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "reference: reward by task type" in out
    assert "handle_time" in out and "overall" in out and "1.000" in out
    assert "4 tasks: 4 submitted" in out
    first = sessions(db)
    assert len(first) == 4
    assert {(status, reward, name) for _, _, status, reward, name in first} == {
        ("submitted", 1.0, "reference")
    }
    assert len({idx for _, idx, *_ in first}) == 4

    assert main([*ARGS, "--db", str(db), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["outcomes"] == {"skipped": 4}
    assert summary["by_task"]["handle_time"] == {"n": 4, "mean": 1.0}
    assert sessions(db) == first  # nothing new: every task was already submitted
