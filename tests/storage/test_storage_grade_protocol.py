"""Each stored grade records its grading protocol; older databases are migrated and backfilled."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.graders import grade, imported_grade
from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec
from tests.support.storage_support import v1_session

TASK = Task(
    idx=7,
    task="best_region_identification",
    query="Which state closed cases fastest?",
    answer=["OR"],
    reward_metric="exact_match",
)


def test_a_grade_keeps_its_protocol(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        who = store.participant("human", "ana")
        first = store.create_session(session_spec(who, TASK, "local", "demo"))
        second = store.create_session(session_spec(who, TASK, "local", "demo"))
        store.add_grade(first.id, grade(TASK, "OR"))
        store.add_grade(second.id, grade(TASK, "OR", protocol="workbench"))
        assert store.grade(first.id).protocol == "upstream"  # type: ignore[union-attr]
        assert store.grade(second.id).protocol == "workbench"  # type: ignore[union-attr]


def test_grades_stored_before_the_column_existed_are_backfilled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:1])
        old.setattr(schema_mod, "SCHEMA_VERSION", 1)
        with Store(path) as store:
            who = store.participant("agent", "gpt-4o/react")
    # Written the way the first stage wrote them: no protocol column.
    with closing(sqlite3.connect(path)) as conn:
        played, brought = (v1_session(conn, who.id, TASK) for _ in range(2))
        conn.execute(
            "INSERT INTO grades (session_id, answer, reward, grader, imported, graded_at)"
            " VALUES (?, 'OR', 1, 'exact_match', 0, '2025-01-01T00:00:00.000000Z'),"
            " (?, 'OR', 1, 'exact_match', 1, '2025-01-01T00:00:00.000000Z')",
            (played, brought),
        )
        conn.commit()
    with Store(path) as store:
        assert store.schema_version == len(schema_mod.MIGRATIONS)
        assert store.grade(played).protocol == "workbench"  # type: ignore[union-attr]
        assert store.grade(brought).protocol == "upstream"  # type: ignore[union-attr]


def test_imported_grades_are_upstream_grades() -> None:
    assert imported_grade("exact_match", "OR", 1.0).protocol == "upstream"
