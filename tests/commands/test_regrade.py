"""`crmarena-tui regrade`: a stored answer graded again (here: now with a judge), the new grade
stored beside the old one; sessions without an answer are named and skipped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.loaders import load_tasks
from crmarena_tui.tasks.model import Task
from tests.support.app_support import SAMPLE, FakeOrg
from tests.support.judge_support import ANSWER, IDX, JUDGE, judge_configured, quote_task


@pytest.fixture
def task() -> Task:
    return quote_task()


@pytest.fixture
def judge(task: Task, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    with judge_configured(task, monkeypatch) as asked:
        yield asked


def sessions(db: Path, task: Any) -> tuple[int, int]:
    """A session submitted (and graded without a judge: reward 0) and one still in progress."""
    other = next(t for t in load_tasks(str(SAMPLE)) if t.idx != IDX)
    with Store(db) as store:
        ann = store.participant("human", "ann")
        done = Episode.start(store, SessionSpec(task, FakeOrg(), ann))
        assert done.submit(ANSWER).reward == 0.0
        open_one = Episode.start(store, SessionSpec(other, FakeOrg(), ann))
        return done.session_id, open_one.session_id


def regrade(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    capsys.readouterr()
    code = main(["regrade", *args, "--format", "json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_regrade_with_the_configured_judge_keeps_the_old_grade(
    task: Any,
    judge: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "s.db"
    done, _ = sessions(db, task)
    code, rows, err = regrade(capsys, "--db", str(db))  # every submitted session
    assert code == 0 and err == ""
    assert rows == [
        {
            "session": done,
            "task": f"quote_approval #{IDX}",
            "old_reward": 0.0,
            "reward": 1.0,
            "parsed_answer": task.gold,
            "extraction": "llm",
            "judge_model": JUDGE,
            "protocol": "upstream",
        }
    ]
    store = Store(db)
    assert [(g.reward, g.extraction) for g in store.grades(done)] == [
        (0.0, "deterministic"),
        (1.0, "llm"),
    ]
    assert store.grade(done).reward == 1.0  # the newest grade is the session's
    grades = [e for e in store.events(done) if e.kind == "grade"]
    assert [g.payload["reward"] for g in grades] == [0.0, 1.0]


def test_judge_option_and_sessions_without_an_answer(
    task: Any,
    judge: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CRMARENA_TUI_JUDGE_MODEL")
    db = tmp_path / "s.db"
    done, in_progress = sessions(db, task)
    code, rows, err = regrade(capsys, str(done), str(in_progress), "999", "--db", str(db))
    assert code == 1
    assert [r["reward"] for r in rows] == [0.0]  # no judge now: the same deterministic grade
    assert f"not re-graded: session {in_progress} is in_progress: nothing to re-grade\n" in err
    assert "not re-graded: no session 999\n" in err and "error" not in err  # (the rest was done)
    code, rows, _ = regrade(capsys, str(done), "--judge", JUDGE, "--db", str(db))
    assert code == 0 and [(r["old_reward"], r["reward"]) for r in rows] == [(0.0, 1.0)]
    assert len(Store(db).events(in_progress)) == 0  # a skipped session is left as it was


def test_a_missing_database_or_judge_is_a_message(tmp_path: Path, capsys) -> None:
    assert main(["regrade", "--db", str(tmp_path / "none.db")]) == 1
    assert "no sessions database" in capsys.readouterr().err
    Store(tmp_path / "s.db").close()
    assert main(["regrade", "--db", str(tmp_path / "s.db"), "--judge", "scripted/nope"]) == 1
    assert "cannot set up judge 'scripted/nope'" in capsys.readouterr().err
