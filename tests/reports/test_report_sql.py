"""The report computed in SQL (issue 30) gives the very JSON the per-session Python path gave:
the Python path (tests/support/report_oracle_support.py over one model per session) is composed here as
`build_report` composed it before, and both run on varied databases: imported runs, humans with
active times, regrades, infrastructure errors, forks, labels, usage events with tokens and
costs, odd snapshots, every filter."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.graders.base import Grade
from crmarena_tui.reports import summary
from crmarena_tui.reports.filters import ReportFilter
from crmarena_tui.reports.timing import spread, spread_of
from crmarena_tui.storage import Store
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task
from tests.support.report_support import python_report
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"


def grade(reward: float, grader: str = "exact_match", **metrics: Any) -> Grade:
    return Grade(
        answer="x", parsed_answer=["x"], reward=reward, grader=grader, extraction="strip",
        metrics=metrics,
    )  # fmt: skip


@pytest.fixture
def varied(tmp_path: Path) -> Iterator[Store]:
    """A varied database: imported runs, humans, regrades, infrastructure errors, forks, labels,
    other org types and odd snapshots."""
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


def _usage(store: Store, sid: int, **payload: Any) -> None:
    seq = store.read("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?", (sid,))
    store.db.conn.execute(
        "INSERT INTO events (session_id, seq, actor, kind, payload) VALUES (?, ?, 'agent',"
        " 'usage', ?)",
        (sid, seq[0][0], json.dumps(payload)),
    )


@pytest.fixture
def busy(varied: Store) -> Store:
    """The varied database with more: humans' times on shared tasks (odd and even counts, ties),
    two participant rows of one configuration, fuzzy rewards, usage with and without cost."""
    store = varied
    rng = random.Random(7)
    people = [
        store.participant("human", "hu"),
        store.participant("human", "hal"),
        store.participant("agent", "gpt/react", model="gpt", settings={"strategy": "react"}),
        store.participant("agent", "gpt", model="gpt", settings={"temperature": 0.3}),
        store.participant("agent", "o1", model="o1"),
    ]
    for k in range(160):
        who = people[k % 5]
        kind = ("handle_time", "knowledge_qa", "lead_routing")[k % 3]
        metric = ("exact_match", "fuzzy_match", "exact_match")[k % 3]
        task = Task(
            idx=800 + k % 17, task=kind, query=f"q{k}", answer=["x"], reward_metric=metric,
            source=("hf:b2b", "hf:b2c")[k % 2], org_type=("b2b", "b2c")[k % 2],
            interactive=k % 7 == 0,
        )  # fmt: skip
        sid = store.create_session(session_spec(who, task, 'demo', 'demo:b2b', aided=k % 13 == 0, settings={'strategy': 'react'} if k % 5 == 3 else None), status='submitted', started_at=1700200000.0 + k, ended_at=1700200100.0 + k, active_seconds=None if k % 11 == 0 else float(rng.choice((30, 45, 60, 61.5, 90)))).id  # fmt: skip
        if k % 9 != 4:
            reward = round(rng.random(), 3) if metric == "fuzzy_match" else float(k % 2)
            store.add_grade(sid, grade(reward, metric))
        if k % 5 >= 2 and k % 4:
            _usage(store, sid, prompt_tokens=100 + k, completion_tokens=k)
            _usage(
                store,
                sid,
                total_tokens=50 + k,
                **({"cost": 0.0123 * (k % 3)} if k % 5 != 4 else {}),
            )
        if k % 10 == 1:
            store.annotations.add(sid, "gave_up", annotator="bo")
    store.db.conn.commit()
    return store


OPTIONS = [
    {},
    {"with_infrastructure_errors": True, "fuzzy_threshold": 0.7},
    {"only": ReportFilter(org_type="b2c")},
    {"only": ReportFilter(mode="chat", participants=("ana",))},
    {"only": ReportFilter(participants=("gpt", "hu"), protocol="workbench")},
    {"only": ReportFilter(task_sources=("hf:b2b",), mode="single")},
    {"only": ReportFilter(protocol="upstream")},
    {"versus": ("ana", "gpt/react"), "no_label_as_category": True},
    {"versus": ("humans", "agents"), "only": ReportFilter(org_type="b2b")},
    {"versus": ("gpt/react", "gpt/react/aided")},  # a configuration is matched whole
    {"versus": ("gpt", "hu"), "with_infrastructure_errors": True},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_the_report_in_sql_is_the_report_of_the_python_path(
    busy: Store, options: dict[str, Any]
) -> None:
    new = summary.build_report(busy, **options)
    old = python_report(busy, **options)
    assert new.keys() == old.keys()
    assert same(json.loads(json.dumps(new)), json.loads(json.dumps(old)))


def same(new: Any, old: Any, key: str = "") -> bool:
    """Equal, except sums of fractions: added in another order (by group, not by session),
    a mean reward may round to the next 0.0001 and a cost differ in its last bits."""
    if isinstance(new, dict) and isinstance(old, dict):
        return new.keys() == old.keys() and all(same(new[k], old[k], k) for k in new)
    if isinstance(new, list) and isinstance(old, list):
        return len(new) == len(old) and all(same(n, o, key) for n, o in zip(new, old, strict=True))
    if isinstance(new, float) and isinstance(old, float) and key == "mean_reward":
        return abs(new - old) <= 0.0001 + 1e-12
    if isinstance(new, float) and isinstance(old, float) and key.startswith("cost"):
        return math.isclose(new, old, rel_tol=1e-12)
    return type(new) is type(old) and new == old


def test_the_varied_database_fills_every_section(busy: Store) -> None:
    report = summary.build_report(busy, versus=("humans", "agents"))
    for key in ("human_time", "human_vs_agent", "efficiency", "continuations", "overall"):
        assert report[key], key
    assert report["infrastructure_errors"]["total"] > 0
    assert any(r["cost"] for r in report["efficiency"])
    assert any(r["cost"] is None and r["model_calls"] for r in report["efficiency"])
    assert len(report["splits"]) > 2 and report["paired"]["shared_tasks"] > 0
    assert report["labels"]["by_task_type"]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9, 10])
def test_spread_from_ranks_is_the_spread_of_the_list(n: int) -> None:
    values = sorted(random.Random(n).uniform(1, 500) for _ in range(n))
    assert spread_of("x", n, values.__getitem__) == spread("x", values)


def test_the_report_in_sql_on_an_empty_database(tmp_path: Path) -> None:
    with Store(tmp_path / "empty.db") as store:
        assert summary.build_report(store) == python_report(store)


def test_the_report_makes_no_model_per_session(
    busy: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No session is read one by one, `--versus` included: no session model is made, and the
    temporary tables are gone afterwards."""
    from crmarena_tui.storage import models

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a session read one by one")

    monkeypatch.setattr(models.Session, "__init__", refuse)
    monkeypatch.setattr(Store, "sessions", refuse)
    report = summary.build_report(busy, only=ReportFilter(mode="single"), versus=("hu", "o1"))
    assert report["graded_sessions"] > 100 and report["labels"]["by_participant"]
    assert report["paired"]["shared_tasks"] > 0
    assert busy.read("SELECT name FROM temp.sqlite_master") == []
