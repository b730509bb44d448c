"""`crmarena-tui run --trials 3` on demo tasks with the reference agent, killed twice (SIGKILL,
at a chosen call: tests/cli/test_fault_kill.py's driver) and resumed: exactly three graded attempts
per task, the interrupted trial resumed, never started again; a later `--trials 5` adds two."""

from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from tests.cli.test_fault_kill import _kill_at

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="the kill driver reads /proc"),
]
SUBMIT = "crmarena_tui.session.episode:Episode.submit"


def attempts(db: Path) -> list[tuple[int, int, str, int]]:
    """(task idx, trial, status, grades) of every session, in task and trial order."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(
            "SELECT s.task_idx, s.trial, s.status, COUNT(g.id) FROM sessions s"
            " LEFT JOIN grades g ON g.session_id = s.id WHERE s.kind = 'attempt'"
            " GROUP BY s.id ORDER BY s.task_idx, s.trial"
        ).fetchall()


def test_a_run_of_three_trials_killed_twice_stores_three_graded_attempts_per_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"

    def command(trials: int) -> list[str]:
        return ["run", "--agent", "reference", "--tasks", "demo:small", "--limit", "3"] + [
            "--trials", str(trials), "--db", str(db), "--format", "json"
        ]  # fmt: skip

    argv = command(3)

    _kill_at(tmp_path, SUBMIT, 2, argv)  # killed as trial 1 of the second task submits
    first = attempts(db)
    assert [(trial, status) for _, trial, status, _ in first] == [
        (1, "submitted"),
        (1, "in_progress"),
    ]

    _kill_at(tmp_path, SUBMIT, 5, argv)  # resumed: then killed in trial 2 of the third task
    second = attempts(db)
    assert len(second) == 6 and [row[2] for row in second].count("in_progress") == 1
    assert {row[1] for row in second} == {1, 2}
    left = next(row for row in second if row[2] == "in_progress")

    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["tasks"], summary["trials"], summary["attempts"]) == (3, 3, 9)
    assert summary["outcomes"] == {"skipped": 5, "resumed": 1, "submitted": 3}
    done = attempts(db)
    tasks = sorted({idx for idx, *_ in done})
    assert len(tasks) == 3
    assert [(idx, trial) for idx, trial, _, _ in done] == [(i, t) for i in tasks for t in (1, 2, 3)]
    assert {(status, grades) for _, _, status, grades in done} == {("submitted", 1)}
    with closing(sqlite3.connect(db)) as conn:  # the trial left in progress was resumed
        (count,) = conn.execute(
            "SELECT COUNT(*) FROM sessions WHERE task_idx = ? AND trial = ?", left[:2]
        ).fetchone()
    assert count == 1

    assert main(command(5)) == 0  # two more trials
    summary = json.loads(capsys.readouterr().out)
    assert summary["outcomes"] == {"skipped": 9, "submitted": 6}
    assert [(i, t) for i, t, _, _ in attempts(db)] == [(i, t) for i in tasks for t in range(1, 6)]


@pytest.mark.parametrize("command", ["run", "mcp"])
def test_trials_below_one_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    args = [command, "--trials", "0", "--db", str(tmp_path / "s.db")]
    assert main([*args, "--agent", "reference"] if command == "run" else args) == 2
    assert "--trials must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()
