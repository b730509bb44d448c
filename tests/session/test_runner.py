"""The batch runner: resumable, bounded concurrency, failures isolated, summary by task type."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.session.runner import BatchRunner, RunOptions
from crmarena_tui.storage import Store
from tests.fakes.scripted_llm import ScriptedFailure, ScriptedLLM
from tests.support.agents_llm_support import AGENT_ID, OTHER_ID, TinyOrg, make_task, react

TASKS = [
    make_task(1),
    make_task(2, answer=OTHER_ID),
    make_task(3, task="transfer_count"),
    make_task(
        4,
        task="knowledge_qa",
        metric="fuzzy_match",
        answer="Ann Lee",
        query="Who is our first agent? Name only.",
    ),
]


def solver(messages, tools):
    """Queries once, then answers from what the org returned (always the first user)."""
    if not any(
        m["content"].startswith("Salesforce instance output")
        for m in messages
        if m["role"] == "user"
    ):
        return react("look", "execute", "SELECT Id, Name FROM User")
    return react(
        "found", "respond", "Ann Lee" if "Name only" in messages[1]["content"] else AGENT_ID
    )


def runner(
    db: Path,
    tasks=TASKS,
    *,
    llm_factory=lambda: ScriptedLLM(solver, model="scripted/solver"),
    concurrency: int = 2,
    **kw,
) -> BatchRunner:
    orgs: list[TinyOrg] = []

    def org_factory(task):
        orgs.append(TinyOrg())
        return orgs[-1]

    r = BatchRunner(
        db,
        tasks,
        RunOptions(agent="scripted/solver", concurrency=concurrency),
        agent_factory=lambda: ReactAgent(llm_factory()),
        org_factory=org_factory,
        **kw,
    )
    r.orgs = orgs
    return r


def test_a_batch_grades_every_task_and_summarises_by_type(tmp_path: Path) -> None:
    seen: list = []
    report = runner(tmp_path / "s.db", on_result=seen.append).run()
    assert [r.outcome for r in report.results] == ["submitted"] * 4
    assert [r.reward for r in report.results] == [1.0, 0.0, 1.0, 1.0]
    assert len(seen) == 4 and report.complete
    summary = report.summary()
    assert summary["by_task"]["handle_time"] == {"n": 2, "mean": 0.5}
    assert summary["by_task"]["knowledge_qa"] == {"n": 1, "mean": 1.0}
    assert summary["overall"] == {"n": 4, "mean": 0.75}
    assert summary["outcomes"] == {"submitted": 4}


def test_workers_use_bounded_concurrency_and_their_own_orgs(tmp_path: Path) -> None:
    active, peak, lock = [0], [0], threading.Lock()
    gate = threading.Barrier(2, timeout=5)

    def slow(messages, tools):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        try:
            if len(messages) == 2:
                gate.wait()  # two tasks really are in flight at once
            return solver(messages, tools)
        finally:
            with lock:
                active[0] -= 1

    r = runner(tmp_path / "s.db", llm_factory=lambda: ScriptedLLM(slow), concurrency=2)
    report = r.run()
    assert report.complete
    assert peak[0] == 2
    assert len(r.orgs) == 2  # one org per worker, not per task and not shared


def test_running_again_skips_submitted_sessions(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    runner(db).run()
    calls: list = []

    def counting():
        llm = ScriptedLLM(solver, model="scripted/solver")
        calls.append(llm)
        return llm

    again = runner(db, llm_factory=counting).run()
    assert [r.outcome for r in again.results] == ["skipped"] * 4
    assert [r.reward for r in again.results] == [1.0, 0.0, 1.0, 1.0]
    assert all(not llm.calls for llm in calls)
    with Store(db) as store:
        assert len(store.sessions()) == 4


def test_a_failing_model_leaves_that_session_resumable_and_the_rest_finish(tmp_path: Path) -> None:
    db = tmp_path / "s.db"

    def flaky(messages, tools):
        if "Name only" in messages[1]["content"] and len(messages) > 2:
            raise ScriptedFailure("rate_limit", "quota exhausted")
        return solver(messages, tools)

    first = runner(
        db, llm_factory=lambda: ScriptedLLM(flaky, model="scripted/solver", max_retries=1)
    ).run()
    assert [r.outcome for r in first.results] == ["submitted"] * 3 + ["unfinished"]
    assert "rate limit" in first.results[3].error and not first.complete
    stuck = first.results[3].session_id
    with Store(db) as store:
        errors = [e.payload for e in store.events(stuck) if e.kind == "error"]
        assert [e["error_type"] for e in errors] == ["rate_limit", "rate_limit"]
        assert store.session(stuck).status == "in_progress"

    second = runner(db).run()
    assert [r.outcome for r in second.results] == ["skipped"] * 3 + ["submitted"]
    assert second.results[3].resumed and second.results[3].session_id == stuck
    assert second.results[3].reward == 1.0
    assert second.summary()["outcomes"] == {"skipped": 3, "resumed": 1}
    with Store(db) as store:
        assert len(store.sessions()) == 4


def test_stop_finishes_the_current_step_and_a_rerun_resumes(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    holder: dict = {}

    def stop_after_first(task, step):
        holder["runner"].stop()

    r = runner(db, concurrency=1, on_step=stop_after_first)
    holder["runner"] = r
    report = r.run()
    assert report.interrupted and not report.complete
    assert [x.outcome for x in report.results] == [
        "unfinished",
        "not_started",
        "not_started",
        "not_started",
    ]
    with Store(db) as store:
        session = store.sessions()[0]
        assert session.status == "in_progress"
        assert [e.kind for e in store.events(session.id)].count("query") == 1

    report = runner(db).run()
    assert report.complete and report.results[0].resumed
    with Store(db) as store:
        assert len(store.sessions()) == 4
        assert [e.kind for e in store.events(report.results[0].session_id)].count("query") == 1


def test_a_task_that_crashes_is_reported_without_stopping_the_batch(tmp_path: Path) -> None:
    def org_factory(task):
        if task.org_type == "b2c":
            raise RuntimeError("no b2c org here")
        return TinyOrg()

    tasks = [make_task(1), make_task(2).model_copy(update={"org_type": "b2c"})]
    report = BatchRunner(
        tmp_path / "s.db",
        tasks,
        RunOptions(agent="x"),
        org_factory=org_factory,
        agent_factory=lambda: ReactAgent(ScriptedLLM(solver)),
    ).run()
    assert [r.outcome for r in report.results] == ["submitted", "failed"]
    assert report.summary()["failures"] == [
        {"task": "test#2", "trial": 1, "error": "RuntimeError: no b2c org here"}
    ]


def test_interactive_tasks_talk_to_the_scripted_user_by_default_under_workbench(
    tmp_path: Path,
) -> None:
    from crmarena_tui.settings.config import Settings

    task = make_task(7, interactive=True, query="I need an agent Id. The fastest handler, please.")

    def chat(messages, tools):
        if len(messages) <= 2:
            return react("ask", "respond", "Which agent do you need?")
        return solver(messages, tools)

    report = runner(
        tmp_path / "s.db",
        [task],
        llm_factory=lambda: ScriptedLLM(chat),
        settings=Settings(protocol="workbench"),
    ).run()
    assert report.results[0].outcome == "submitted" and report.results[0].reward == 1.0
    with Store(tmp_path / "s.db") as store:
        session = store.sessions()[0]
        assert session.user_simulator == "scripted"
        users = [
            e.text for e in store.events(session.id) if e.kind == "message" and e.actor == "user"
        ]
        assert users[0].endswith("I need an agent Id.") and users[-1] == "###STOP###"


@pytest.mark.parametrize("concurrency", [1, 3])
def test_the_report_keeps_task_order(tmp_path: Path, concurrency: int) -> None:
    report = runner(tmp_path / "s.db", concurrency=concurrency).run()
    assert [r.task.idx for r in report.results] == [1, 2, 3, 4]
