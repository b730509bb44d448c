"""Reports: success by participant and task type/skill, human time, human vs agent, labels, kappa."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders.base import Grade
from crmarena_tui.reports.agreement import agreement, all_agreements, cohen_kappa
from crmarena_tui.reports.attempts import is_win
from crmarena_tui.reports.summary import build_report
from crmarena_tui.reports.timing import spread
from crmarena_tui.storage import Store
from crmarena_tui.tasks.catalog import DB, IR
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

METRIC = {
    "handle_time": "exact_match",
    "knowledge_qa": "fuzzy_match",
    "lead_routing": "exact_match",
}


def attempt(
    store: Store, who, task_type: str, idx: int, reward: float | None, seconds: float | None = None
) -> int:
    task = Task(
        idx=idx, task=task_type, query=f"q{idx}", answer=["x"], reward_metric=METRIC[task_type]
    )
    session = store.create_session(
        session_spec(who, task, "demo", "demo:b2b"),
        status="submitted",
        started_at=1_700_000_000.0,
        ended_at=1_700_000_100.0,
        active_seconds=seconds,
    )
    if reward is not None:
        store.add_grade(
            session.id,
            Grade(
                answer="x",
                parsed_answer=["x"],
                reward=reward,
                grader=METRIC[task_type],
                extraction="strip",
            ),
        )
    return session.id


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "r.db") as s:
        yield s


@pytest.fixture
def filled(store: Store) -> Store:
    ana = store.participant("human", "ana")
    bot = store.participant("agent", "gpt/react", model="gpt")
    # shared tasks 1..4: both, human only, agent only, neither; knowledge_qa 10 is fuzzy
    for idx, (h, a) in enumerate([(1, 1), (1, 0), (0, 1), (0, 0)], start=1):
        attempt(store, ana, "handle_time", idx, h, seconds=60.0 * idx)
        attempt(store, bot, "handle_time", idx, a)
    attempt(store, ana, "knowledge_qa", 10, 0.6, seconds=300.0)
    attempt(store, bot, "knowledge_qa", 10, 0.4)
    attempt(store, bot, "lead_routing", 20, 1.0)  # not shared
    attempt(store, ana, "lead_routing", 21, None)  # ungraded: not counted
    return store


def test_win_rule() -> None:
    assert is_win(1.0, "exact_match") and not is_win(0.0, "exact_match")
    assert is_win(0.5, "fuzzy_match") and not is_win(0.49, "fuzzy_match")
    assert is_win(0.3, "fuzzy_match", fuzzy_threshold=0.3)
    assert not is_win(0.99, "privacy_rejection") and not is_win(None, "exact_match")


def _cells(store: Store, section: str, **options: float) -> dict[tuple[str, str], dict]:
    return {(r["participant"], r["group"]): r for r in build_report(store, **options)[section]}


def test_success_by_participant_and_task_type(filled: Store) -> None:
    cells = _cells(filled, "by_task_type")
    human = cells[("ana", "handle_time")]
    assert [human[k] for k in ("attempts", "wins", "success_rate", "mean_reward")] == [
        4,
        2,
        0.5,
        0.5,
    ]
    assert (
        cells[("ana", "knowledge_qa")]["wins"],
        cells[("gpt/react", "knowledge_qa")]["wins"],
    ) == (
        1,
        0,
    )
    assert ("ana", "lead_routing") not in cells  # ungraded attempt
    strict = _cells(filled, "by_task_type", fuzzy_threshold=0.7)
    assert strict[("ana", "knowledge_qa")]["wins"] == 0


def test_success_by_skill_uses_the_catalogue_groups(filled: Store) -> None:
    cells = _cells(filled, "by_skill")
    assert cells[("gpt/react", DB)]["attempts"] == 4
    assert cells[("gpt/react", IR)]["attempts"] == 1
    assert cells[("gpt/react", "workflow execution")]["wins"] == 1


def test_human_time_median_and_spread(filled: Store) -> None:
    rows = {r["task_type"]: r for r in build_report(filled)["human_time"]}
    ht = rows["handle_time"]  # 60, 120, 180, 240
    assert [ht[k] for k in ("n", "median_s", "q1_s", "q3_s", "min_s", "max_s", "iqr_s")] == [
        4,
        150.0,
        105.0,
        195.0,
        60.0,
        240.0,
        90.0,
    ]
    assert rows["all"]["n"] == 5 and rows["all"]["max_s"] == 300.0
    one = spread("x", [42.0])
    assert (one.median, one.iqr) == (42.0, 0.0)


def _versus(store: Store) -> tuple[int, ...]:
    (row,) = build_report(store)["human_vs_agent"]
    assert (row["human"], row["agent"]) == ("ana", "gpt/react")
    keys = ("shared_tasks", "human_only", "agent_only", "both", "neither")
    return tuple(row[k] for k in keys)


def test_human_against_agent_on_shared_tasks(filled: Store) -> None:
    # handle_time 1..4 give one of each; knowledge_qa: human 0.6 wins, agent 0.4 does not
    assert _versus(filled) == (5, 2, 1, 1, 1)


def test_latest_attempt_counts_in_head_to_head(filled: Store) -> None:
    ana = filled.participant("human", "ana")
    attempt(filled, ana, "handle_time", 4, 1.0)  # ana retries task 4 and solves it
    assert _versus(filled)[1::3] == (3, 0)


def test_kappa_worked_textbook_example() -> None:
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15 -> p_o 0.7, p_e 0.5, kappa 0.4
    pairs = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([("a", "a"), ("b", "b")]) == 1.0
    assert cohen_kappa([("a", "b"), ("b", "a")]) == -1.0
    assert cohen_kappa([("a", "a")] * 3) is None and cohen_kappa([]) is None


def test_agreement_over_items_both_labelled(store: Store) -> None:
    bot = store.participant("agent", "gpt/react", model="gpt")
    ids = [attempt(store, bot, "handle_time", i, 0.0) for i in range(1, 5)]
    for sid in ids:
        store.append_event(sid, "agent", "query", {"text": "SELECT Id FROM Case"})
    # sessions: A and B agree on 1 and 2, disagree on 3; 4 labelled by A only
    for sid, (la, lb) in zip(
        ids,
        [("wrong_filter", "wrong_filter"), ("ok", "ok"), ("ok", "wrong_filter"), ("ok", None)],
        strict=True,
    ):
        store.annotations.add(sid, la, annotator="A")
        if lb:
            store.annotations.add(sid, lb, annotator="B")
    store.annotations.add(
        ids[2], "wrong_filter", annotator="A"
    )  # A changes their mind: latest counts
    store.annotations.add(ids[0], "bad_sql", annotator="A", event_seq=1)
    store.annotations.add(ids[0], "bad_sql", annotator="B", event_seq=1)
    session = agreement(store.annotations.find(), "A", "B", "session")
    assert (session.items, session.observed, session.kappa) == (3, 1.0, 1.0)
    step = agreement(store.annotations.find(), "A", "B", "step")
    assert step.items == 1 and step.kappa is None  # one label only: kappa undefined
    assert [(r.level, r.items) for r in all_agreements(store.annotations.find())] == [
        ("session", 3),
        ("step", 1),
    ]
    store.annotations.add(ids[0], "", "a note never counts", annotator="A", kind="note")
    labels = build_report(store)["labels"]
    mine = [
        (r["level"], r["label"], r["count"], r["sessions"], r["share"])
        for r in labels["by_annotator"]
        if r["annotator"] == "A"
    ]
    assert mine == [  # A's 6 labels: 5 on sessions (one changed its mind), 1 on a step
        ("session", "ok", 3, 3, 0.6),
        ("session", "wrong_filter", 2, 2, 0.4),
        ("step", "bad_sql", 1, 1, 1.0),
    ]
    assert labels["sessions_labelled"] == [
        {"annotator": "A", "level": "session", "sessions": 4, "labels": 5},
        {"annotator": "A", "level": "step", "sessions": 1, "labels": 1},
        {"annotator": "B", "level": "session", "sessions": 3, "labels": 3},
        {"annotator": "B", "level": "step", "sessions": 1, "labels": 1},
    ]
    by_participant = {(r["level"], r["label"]): r["items"] for r in labels["by_participant"]}
    # distinct items: the step both labelled bad_sql is one item, not two
    assert by_participant == {
        ("session", "ok"): 3,
        ("session", "wrong_filter"): 2,
        ("step", "bad_sql"): 1,
    }


def test_report_command_json_and_table(filled: Store, tmp_path: Path, capsys) -> None:
    db = str(filled.path)
    filled.annotations.add(filled.sessions()[0].id, "wrong_filter", annotator="A")
    assert main(["report", "--db", db, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == json.loads(json.dumps(build_report(filled)))
    assert report["graded_sessions"] == 11
    assert report["human_vs_agent"][0]["human_only"] == 2
    assert report["labels"]["by_annotator"] == [
        {
            "annotator": "A",
            "level": "session",
            "label": "wrong_filter",
            "count": 1,
            "sessions": 1,
            "share": 1.0,
        }
    ]
    assert report["labels"]["by_participant"][0]["participant"] == "ana"
    assert {r["protocol"] for r in report["overall"]} == {"upstream"}
    assert main(["report", "--db", db]) == 0
    table = capsys.readouterr().out
    for text in (
        "Success by participant and task type",
        "handle_time",
        "gpt/react",
        "Human against agent on shared tasks",
        "Human active time per task",
        "50.0%",
    ):
        assert text in table
    assert main(["report", "--db", str(tmp_path / "missing.db")]) == 1
