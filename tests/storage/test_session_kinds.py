"""Sessions have a kind: a participant's own `attempt`, a `fork` or a `takeover`. Only attempts
count in baseline figures, statuses and resumes; forks and take-overs are reported apart."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.graders.base import Grade
from crmarena_tui.reports.summary import build_report
from crmarena_tui.reports.task_status import statuses_for
from crmarena_tui.session.episode import Episode
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.exporter import export_sessions
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.model import Task
from tests.support.agents_llm_support import AGENT_ID, TinyOrg, make_task
from tests.support.spec_support import session_spec
from tests.support.storage_support import v1_session

FIGURES = ("graded_sessions", "overall", "by_task_type", "by_skill", "human_time", "human_vs_agent")


def _graded(store: Store, session_id: int, reward: float) -> None:
    store.add_grade(
        session_id,
        Grade(
            answer="x", parsed_answer=["x"], reward=reward, grader="exact_match", extraction="strip"
        ),
    )


def _submitted(store: Store, who_id: int, task: Task, reward: float, **kw) -> int:
    if "parent_session_id" in kw:
        kw["parent_id"] = kw.pop("parent_session_id")
    session = store.create_session(
        session_spec(store.get_participant(who_id), task, "local", "demo:b2b", **kw),
        status="submitted",
        started_at=1_700_000_000.0,
        ended_at=1_700_000_090.0,
        active_seconds=90.0,
    )
    _graded(store, session.id, reward)
    return session.id


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "kinds.db") as s:
        yield s


def test_forks_and_take_overs_change_no_attempt_figure(store: Store) -> None:
    ana = store.participant("human", "ana")
    bot = store.participant("agent", "gpt/react", model="gpt")
    tasks = [make_task(idx) for idx in (1, 2, 3)]
    agent_sessions = [
        _submitted(store, bot.id, t, r) for t, r in zip(tasks, (1.0, 0.0, 0.0), strict=True)
    ]
    _submitted(store, ana.id, tasks[0], 0.0)
    _submitted(store, ana.id, tasks[1], 1.0)
    before = build_report(store)

    # Ana forks the agent's won session and loses; she takes over the agent's third task and wins.
    _submitted(
        store, ana.id, tasks[0], 0.0, kind="fork", parent_session_id=agent_sessions[0], fork_seq=1
    )
    _submitted(
        store,
        ana.id,
        tasks[2],
        1.0,
        kind="takeover",
        parent_session_id=agent_sessions[2],
        fork_seq=1,
    )
    after = build_report(store)

    assert {k: after[k] for k in FIGURES} == {k: before[k] for k in FIGURES}
    assert after["human_vs_agent"][0]["agent_only"] == 1  # the fork did not turn it into "both"
    apart = {(r["participant"], r["group"]): r for r in after["continuations"]}
    assert apart[("ana", "fork")]["attempts"] == 1 and apart[("ana", "fork")]["wins"] == 0
    assert apart[("ana", "takeover")]["wins"] == 1
    assert before["continuations"] == []


def test_the_browser_status_counts_attempts_only(store: Store) -> None:
    ana = store.participant("human", "ana")
    bot = store.participant("agent", "gpt/react", model="gpt")
    task = make_task(5)
    parent = _submitted(store, bot.id, task, 1.0)
    _submitted(store, ana.id, task, 1.0, kind="takeover", parent_session_id=parent, fork_seq=1)
    assert statuses_for(store, ana) == {}
    mine = _submitted(store, ana.id, task, 0.0)
    (status,) = statuses_for(store, ana).values()
    assert (status.state, status.reward, status.session_id) == ("submitted", 0.0, mine)


def test_opening_a_task_never_resumes_a_take_over_as_an_attempt(store: Store) -> None:
    org = TinyOrg()
    task = make_task(7)
    human = store.participant("human", "ann")
    bot = store.participant("agent", "gpt/react", model="gpt")
    agent_run = Episode.start(store, SessionSpec(task, org, bot))
    agent_run.execute("SELECT Id FROM User")
    service = SessionService(load_settings())
    taken = service.fork(
        store, agent_run.session, agent_run.events[-1].seq, org, human, kind="takeover"
    )
    assert taken.session.kind == "takeover" and taken.status == "in_progress"

    own = Episode.start(store, SessionSpec(task, org, human))
    assert own.session_id != taken.session_id and own.session.kind == "attempt"
    assert (
        Episode.start(store, SessionSpec(task, org, human)).session_id == own.session_id
    )  # resumes its own
    assert own.submit(AGENT_ID).reward == 1.0


def test_a_plain_fork_is_a_fork(store: Store) -> None:
    org = TinyOrg()
    bot = store.participant("agent", "gpt/react", model="gpt")
    run = Episode.start(store, SessionSpec(make_task(8), org, bot))
    run.execute("SELECT Id FROM User")
    forked = SessionService(load_settings()).fork(
        store, run.session, run.events[-1].seq, org, store.participant("human", "bo")
    )
    assert forked.session.kind == "fork" and forked.session.parent_session_id == run.session_id


def test_exports_carry_kind_parent_and_fork_step(store: Store, tmp_path: Path) -> None:
    ana = store.participant("human", "ana")
    org = TinyOrg()
    run = Episode.start(store, SessionSpec(make_task(9), org, ana))
    run.execute("SELECT Id FROM User")  # step 1: events 1, 2
    run.execute("SELECT Name FROM User")  # step 2: events 3, 4
    run.say("noted")  # step 3: event 5
    parent = run.session_id
    child = SessionService(load_settings()).fork(store, run.session, 4, org, ana).session_id
    run.submit(AGENT_ID)
    out = tmp_path / "sessions.jsonl"
    export_sessions(store, "jsonl", out)
    rows = {r["session_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert (rows[parent]["session_kind"], rows[parent]["parent_session_id"]) == ("attempt", None)
    assert (rows[child]["session_kind"], rows[child]["parent_session_id"]) == ("fork", parent)
    # the step the viewer says the fork continues after ("after step 2"), and its last event
    assert (rows[child]["fork_seq"], rows[child]["fork_event_seq"]) == (2, 4)


def test_older_databases_learn_each_sessions_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:2])
        old.setattr(schema_mod, "SCHEMA_VERSION", 2)
        with Store(path) as store:
            who = store.participant("human", "ana")
    task = make_task(3)
    with closing(sqlite3.connect(path)) as conn:
        first = v1_session(conn, who.id, task)
        forked = v1_session(conn, who.id, task, parent=first, fork_seq=2)
        taken = v1_session(conn, who.id, task, parent=first, fork_seq=3)
        conn.execute(
            "INSERT INTO events (session_id, seq, ts, actor, kind, payload) VALUES"
            " (?, 1, '2025-01-01T00:00:00Z', 'system', 'system', ?)",
            (first, json.dumps({"event": "taken_over", "session": taken, "at_seq": 3})),
        )
        conn.commit()
    with Store(path) as store:
        assert [store.session(i).kind for i in (first, forked, taken)] == [
            "attempt",
            "fork",
            "takeover",
        ]


def test_an_unknown_kind_is_refused(store: Store) -> None:
    who = store.participant("human", "ana")
    with pytest.raises(ValueError, match="unknown session kind 'replay'"):
        store.create_session(session_spec(who, make_task(1), "local", "x", kind="replay"))
