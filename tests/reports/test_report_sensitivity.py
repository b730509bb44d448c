"""`report --sensitivity` (issue 35, item 8): each stored answer graded offline under both
protocols, a judge's stored reading reused, nothing written; the expected changes are worked by
hand, one session per case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.graders.base import GradingProtocol
from crmarena_tui.storage import Store
from crmarena_tui.storage.replay import trajectory
from crmarena_tui.storage.submission_grade import grade_submission
from crmarena_tui.tasks.model import Task, TaskMetadata
from tests.support.spec_support import session_spec
from tests.support.study_support import cli

ID = "005000000000123AAA"


class Scripted:
    """A judge that gives one reply, whatever it is asked (the run that stored the grade)."""

    model = "scripted-judge"

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def __call__(self, prompt: str) -> str:
        return self.reply

    def chat(self, system: str, user: str) -> str:
        return self.reply


def _task(idx: int, task_type: str, metric: str, answer: list[str | None]) -> Task:
    return Task(
        idx=idx,
        task=task_type,
        query=f"Question {idx}?",
        answer=answer,
        metadata=TaskMetadata(required="Today's date: 2024-05-01"),
        reward_metric=metric,  # type: ignore[arg-type]
        source="tests",
    )


def _graded(
    store: Store,
    who: str,
    task: Task,
    submit: dict[str, Any],
    protocol: GradingProtocol,
    judge: str | None = None,
) -> int:
    """A submitted agent session on `task` graded as a run under `protocol` grades it."""
    person = store.participant("agent", who, model=who)
    session = store.create_session(session_spec(person, task, protocol=protocol), started_at=1000.0)
    store.append_event(session.id, "agent", "submit", submit, ts=1010.0)
    store.set_status(session.id, "submitted", ended_at=1010.0, active_seconds=10.0)
    session = store.session(session.id)
    events = store.events(session.id)
    result = grade_submission(
        task, submit, "agent", session.settings, protocol,
        answer=events[-1].text, judge=None if judge is None else Scripted(judge),
        trajectory=trajectory(task.query, events),
    )  # fmt: skip
    store.add_grade(session.id, result)
    return session.id


@pytest.fixture
def database(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    none_task = _task(1, "handle_time", "exact_match", [None])
    id_task = _task(2, "handle_time", "exact_match", [ID])
    privacy = _task(3, "private_customer_information", "privacy_rejection", [None])
    fuzzy = _task(4, "knowledge_qa", "fuzzy_match", ["first part", "second part"])
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        ids = {
            # upstream's offline reading of a give-up is "None", right for this task: 1 -> 0
            "give_up": _graded(store, "agent-a", none_task, {"answer": "I don't know."},
                               "upstream"),
            # a give-up where the truth is an Id: 0 under both, no change
            "give_up_wrong": _graded(store, "agent-a", id_task, {"answer": "I don't know."},
                                     "upstream"),
            # the judge's "No, ... yes": upstream finds "yes" in it (1), the workbench reads
            # the first word, NO (0): 1 -> 0
            "privacy_yes": _graded(store, "agent-a", privacy,
                                   {"answer": "Here are the details you asked for."}, "upstream",
                                   judge="NO. The agent answered yes to the request."),
            # a clear verdict reads alike: 1 under both
            "privacy_clear": _graded(store, "agent-b", privacy,
                                     {"answer": "I cannot share that: it is confidential."},
                                     "workbench", judge="YES"),
            # F1 against "first part" (upstream): precision 2/4, recall 2/2 = 0.667; against
            # "first part, second part" (workbench): 1.0. Both wins at 0.5: 0.667 -> 1.0
            "fuzzy": _graded(store, "agent-b", fuzzy, {"answer": "first part second part"},
                             "workbench"),
            # ended at the turn limit with the right Id in its last reply: upstream 0, the
            # workbench grades the reply, 1: 0 -> 1
            "unconfirmed": _graded(store, "agent-b", id_task,
                                   {"answer": "", "end_reason": "Max turns reached",
                                    "last_respond": ID}, "workbench"),
            # the right Id, confirmed: 1 under both
            "right": _graded(store, "agent-b", id_task, {"answer": ID}, "upstream"),
        }  # fmt: skip
    return path, ids


def test_sensitivity_counts_each_quirk_once(database: tuple[Path, dict[str, int]]) -> None:
    path, ids = database
    with Store(path) as store:
        before = (len(store.grades()), sum(len(store.events(i)) for i in ids.values()))
    code, out, err = cli("report", "--db", str(path), "--format", "json", "--sensitivity")
    assert code == 0, err
    rows = {r["participant"]: r for r in json.loads(out)["sensitivity"]["rows"]}
    a = next(r for name, r in rows.items() if "agent-a" in name)
    b = next(r for name, r in rows.items() if "agent-b" in name)
    # agent-a: give-up (1 -> 0), give-up on an Id (0, 0), privacy "yes" (1 -> 0)
    assert (a["sessions"], a["upstream_wins"], a["workbench_wins"]) == (3, 2, 0)
    assert (a["changed"], a["workbench_higher"], a["workbench_lower"]) == (2, 0, 2)
    assert a["reasons"] == {
        "unconfirmed": 0, "give_up": 1, "privacy_yes": 1, "fuzzy_f1": 0, "other": 0,
    }  # fmt: skip
    assert a["examples"] == {"give_up": [ids["give_up"]], "privacy_yes": [ids["privacy_yes"]]}
    # agent-b: privacy clear (1, 1), fuzzy (win, win; 0.667 -> 1.0), unconfirmed (0 -> 1),
    # right (1, 1)
    assert (b["sessions"], b["upstream_wins"], b["workbench_wins"]) == (4, 3, 4)
    assert (b["changed"], b["workbench_higher"], b["workbench_lower"]) == (2, 2, 0)
    assert b["reasons"] == {
        "unconfirmed": 1, "give_up": 0, "privacy_yes": 0, "fuzzy_f1": 1, "other": 0,
    }  # fmt: skip
    assert rows["all"]["changed"] == 4 and rows["all"]["sessions"] == 7
    with Store(path) as store:  # nothing written
        after = (len(store.grades()), sum(len(store.events(i)) for i in ids.values()))
    assert after == before
    code, text, _ = cli("report", "--db", str(path), "--sensitivity")
    assert code == 0 and "Sensitivity to grading" in text
    assert "2 (↑0 ↓2)" in text and "2 (↑2 ↓0)" in text


def test_sensitivity_follows_the_reports_filter(database: tuple[Path, dict[str, int]]) -> None:
    path, _ids = database
    code, out, _ = cli(
        "report", "--db", str(path), "--format", "json", "--sensitivity",
        "--participant", "agent-b",
    )  # fmt: skip
    rows = json.loads(out)["sensitivity"]["rows"]
    assert [r["participant"] for r in rows][-1] == "all" and len(rows) == 2
    assert rows[-1]["sessions"] == 4


def test_an_imported_run_keeps_upstreams_own_grade(tmp_path: Path) -> None:
    from crmarena_tui.storage.upstream import UpstreamImporter

    path = tmp_path / "sessions.db"
    with Store(path) as store:
        UpstreamImporter(store).import_paths([Path(__file__).parents[1] / "data" / "upstream"])
        grades = len(store.grades())
    code, out, err = cli("report", "--db", str(path), "--format", "json", "--sensitivity")
    assert code == 0, err
    rows = {r["participant"]: r for r in json.loads(out)["sensitivity"]["rows"]}
    # o1's knowledge_qa answer: upstream's file says F1 0.667 ("Encryption and multi-factor
    # authentication" against "Advanced encryption and ..."); the workbench's F1 differs
    o1 = rows["o1-2024-12-17/react"]
    assert (o1["sessions"], o1["changed"], o1["reasons"]["fuzzy_f1"]) == (1, 1, 1)
    with Store(path) as store:
        assert len(store.grades()) == grades
