"""The report read without task snapshots (issue 30) gives the very report the full session
models gave, on a varied database: imported runs, humans, regrades, infrastructure errors, forks,
labels, other org types and odd snapshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from spec_support import session_spec
from test_report_support import python_report

from crmarena_tui.graders.base import Grade
from crmarena_tui.reports import attempts
from crmarena_tui.reports.filters import ReportFilter
from crmarena_tui.storage import Store
from crmarena_tui.storage.report_reads import SETTINGS_KEYS, report_sessions
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task

UPSTREAM = Path(__file__).parent / "data" / "upstream"


def full_models(store: Store) -> tuple[list[Any], dict[int, Any]]:
    """How the report read before: every session's whole model, then each one's latest grade."""
    sessions = store.sessions()
    grades = {s.id: g for s in sessions if (g := store.grade(s.id)) is not None}
    return sessions, grades


def grade(reward: float, grader: str = "exact_match", **metrics: Any) -> Grade:
    return Grade(
        answer="x", parsed_answer=["x"], reward=reward, grader=grader, extraction="strip",
        metrics=metrics,
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "v.db") as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
        ana = store.participant("human", "ana")
        bot = store.participant("agent", "gpt/react", model="gpt", settings={"strategy": "react"})
        for k in range(12):
            who = ana if k % 3 else bot
            task = Task(
                idx=700 + k % 4, task=("handle_time", "knowledge_qa")[k % 2], query=f"q{k}",
                answer=["x"], reward_metric=("exact_match", "fuzzy_match")[k % 2],
                source=("hf:b2b", "hf:b2c")[k % 3 == 1], org_type=("b2b", "b2c", "original")[k % 3],
                interactive=k % 4 == 0,
            )  # fmt: skip
            sid = store.create_session(session_spec(who, task, "demo", ("demo:b2b", "demo:b2c")[k % 2], aided=k % 5 == 0), status="submitted", started_at=1_700_000_000.0 + k, ended_at=1_700_000_050.0 + k, active_seconds=10.0 * k).id  # fmt: skip
            if k % 6 != 5:
                metric = ("exact_match", "fuzzy_match")[k % 2]
                store.add_grade(sid, grade(0.0 if k % 2 else 1.0, metric))
            if k % 4 == 1:
                store.add_grade(sid, grade(0.7, ("exact_match", "fuzzy_match")[k % 2]))  # regrade
            if k == 8:
                store.add_grade(sid, grade(0.0, infrastructure_error="rate limit"))
            if k % 3 == 0:
                store.annotations.add(sid, "wrong_filter", annotator="bo")
                store.annotations.add(sid, ("wrong_filter", "wrong_field")[k % 2], annotator="cy")
        store.create_session(session_spec(ana, task, "demo", "demo:b2b", parent_id=1, fork_seq=2, kind="fork"), started_at=1_700_100_000.0)  # fmt: skip
        fork = store.read("SELECT MAX(id) FROM sessions")[0][0]
        store.add_grade(fork, grade(1.0))
        # snapshots this project never writes: a numeric org type, a null metric, no org type
        store.db.conn.execute(
            "UPDATE sessions SET task_json = json_set(task_json, '$.org_type', 7) WHERE id = 2"
        )
        store.db.conn.execute(
            "UPDATE sessions SET task_type = 'odd', task_json ="
            " json_set(json_remove(task_json, '$.org_type'), '$.reward_metric', json('null'))"
            " WHERE id = (SELECT MAX(id) - 1 FROM sessions)"
        )
        for sql in (  # settings and metrics the report reads, plain and odd
            "UPDATE sessions SET settings = json_set(settings, '$.infrastructure_error', 'down')"
            " WHERE id = 3",
            "UPDATE sessions SET settings = json_set(settings, '$.strategy', json('[1]'))"
            " WHERE id = 4",
            "UPDATE sessions SET settings = json_set(settings, '$.privacy_aware', json('true'))"
            " WHERE id = 5",
            "UPDATE grades SET metrics = json_set(metrics, '$.no_answer', json('true'))"
            " WHERE session_id = 6",
            "UPDATE grades SET metrics = json_set(metrics, '$.infrastructure_error',"
            " json('{\"a\": 1}')) WHERE session_id = 7",
        ):
            store.db.conn.execute(sql)
        store.db.conn.commit()
        yield store


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"with_infrastructure_errors": True, "fuzzy_threshold": 0.7},
        {"only": ReportFilter(org_type="b2c")},
        {"only": ReportFilter(mode="chat", participants=("ana",))},
        {"versus": ("ana", "gpt/react"), "no_label_as_category": True},
    ],
)
def test_the_report_without_snapshots_is_the_report_of_the_full_models(
    store: Store, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    new = python_report(store, **options)
    monkeypatch.setattr(attempts, "report_sessions", full_models)
    old = python_report(store, **options)
    assert json.dumps(new, sort_keys=True) == json.dumps(old, sort_keys=True)
    assert new["graded_sessions"] > 0 or options.get("only")


def test_report_sessions_keep_only_the_two_task_keys(store: Store) -> None:
    sessions, grades = report_sessions(store)
    full, full_grades = full_models(store)
    assert [s.id for s in sessions] == [s.id for s in full]
    assert all(set(s.task_json) <= {"org_type", "reward_metric"} for s in sessions)
    assert all(set(s.settings) <= set(SETTINGS_KEYS) for s in sessions)
    assert sessions[4].settings["privacy_aware"] is True and sessions[3].settings["strategy"] == [1]
    assert grades[6].metrics["no_answer"] is True
    assert any(len(s.task_json.get("query", "")) for s in full)  # the snapshots were big
    assert {k: g.reward for k, g in grades.items()} == {k: g.reward for k, g in full_grades.items()}
    assert len(attempts.load_attempts(store)) == len(full_grades)
