"""`run --trials K`: each task worked K times, K distinct attempts, each found again by its own
resume key (the trial is part of it from trial 2 on; trial 1 keys as attempts always did)."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.session.runner import BatchRunner, RunOptions, attempts_of
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from tests.fakes.scripted_llm import ScriptedLLM
from tests.session.test_runner import TASKS, solver
from tests.support.agents_llm_support import TinyOrg, make_task


def trials_runner(db: Path, trials: int, *, concurrency: int = 1, **kw) -> BatchRunner:
    return BatchRunner(
        db,
        TASKS[:3],
        RunOptions(agent="scripted/solver", concurrency=concurrency, trials=trials),
        agent_factory=lambda: ReactAgent(ScriptedLLM(solver, model="scripted/solver")),
        org_factory=lambda task: TinyOrg(),
        **kw,
    )


def trials_by_task(db: Path) -> dict[int, list[tuple[int, str]]]:
    """{task idx: [(trial, status)] in trial order} of the attempts stored."""
    found: dict[int, list[tuple[int, str]]] = {}
    with Store(db) as store:
        for s in store.sessions():
            found.setdefault(s.task_idx, []).append((s.trial, s.status))
            assert s.kind == "attempt"
    return {idx: sorted(rows) for idx, rows in sorted(found.items())}


def test_trials_are_the_outer_loop() -> None:
    a, b = make_task(1), make_task(2)
    assert [(t.idx, trial) for t, trial in attempts_of([a, b], 3)] == [
        (1, 1), (2, 1), (1, 2), (2, 2), (1, 3), (2, 3),
    ]  # fmt: skip
    assert attempts_of([a, b]) == [(a, 1), (b, 1)]


def test_three_trials_store_three_graded_attempts_per_task(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    seen: list = []
    report = trials_runner(db, 3, concurrency=2, on_result=seen.append).run()
    assert report.complete and len(report.results) == len(seen) == 9
    assert [(r.task.idx, r.trial) for r in report.results] == [
        (t.idx, trial) for t, trial in attempts_of(TASKS[:3], 3)
    ]
    assert trials_by_task(db) == {i: [(1, "submitted"), (2, "submitted"), (3, "submitted")]
                                  for i in (1, 2, 3)}  # fmt: skip
    with Store(db) as store:
        sessions = store.sessions()
        assert len({s.id for s in sessions}) == 9
        assert all(store.grade(s.id) is not None for s in sessions)
    summary = report.summary()
    assert (summary["tasks"], summary["trials"], summary["attempts"]) == (3, 3, 9)
    assert summary["by_task"]["handle_time"]["n"] == 6  # two tasks, three trials each


def test_five_trials_after_three_add_trials_four_and_five(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    trials_runner(db, 3).run()
    again = trials_runner(db, 5).run()
    outcomes = [(r.trial, r.outcome) for r in again.results]
    assert outcomes == [(t, "skipped" if t <= 3 else "submitted") for t in (1, 2, 3, 4, 5)
                        for _ in range(3)]  # fmt: skip
    assert {idx: [t for t, _ in rows] for idx, rows in trials_by_task(db).items()} == {
        i: [1, 2, 3, 4, 5] for i in (1, 2, 3)
    }
    fewer = trials_runner(db, 2).run()  # fewer trials than stored: nothing to do
    assert [r.outcome for r in fewer.results] == ["skipped"] * 6
    assert len(sum(trials_by_task(db).values(), [])) == 15


def test_a_stopped_run_resumes_the_trial_it_left(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    holder: dict = {}
    steps = [0]

    def stop_in_the_fifth_attempt(task, step):
        steps[0] += 1
        if steps[0] == 9:  # two steps an attempt: the fifth's first step (task 2, trial 2)
            holder["runner"].stop()

    first = holder["runner"] = trials_runner(db, 3, on_step=stop_in_the_fifth_attempt)
    report = first.run()
    assert report.interrupted
    left = [(r.task.idx, r.trial, r.outcome) for r in report.results if r.outcome != "submitted"]
    assert left[0] == (2, 2, "unfinished")
    assert trials_by_task(db) == {
        1: [(1, "submitted"), (2, "submitted")],
        2: [(1, "submitted"), (2, "in_progress")],
        3: [(1, "submitted")],
    }
    with Store(db) as store:
        stuck = next(s for s in store.sessions() if s.status == "in_progress")

    report = trials_runner(db, 3).run()
    assert report.complete
    resumed = [r for r in report.results if r.resumed]
    assert [(r.task.idx, r.trial, r.session_id) for r in resumed] == [(2, 2, stuck.id)]
    assert trials_by_task(db) == {i: [(1, "submitted"), (2, "submitted"), (3, "submitted")]
                                  for i in (1, 2, 3)}  # fmt: skip


def test_the_trial_is_part_of_the_resume_key_from_trial_two(tmp_path: Path) -> None:
    service = SessionService(Settings(protocol="workbench"))
    task = make_task(1)
    with Store(tmp_path / "s.db") as store:
        agent = ReactAgent(ScriptedLLM(solver, model="scripted/solver"))
        person = service.agent_participant(store, agent)

        def spec(trial: int | None = None):
            extra = {} if trial is None else {"trial": trial}
            return service.spec(task, TinyOrg(), person, settings=agent.settings(), **extra)

        # trial 1 keys as an attempt made before trials existed (old runs resume)
        assert service.resume_key(spec(1)) == service.resume_key(spec())
        keys = {service.resume_key(spec(t)) for t in (1, 2, 3)}
        assert len(keys) == 3
        second = service.start(store, spec(2))
        assert second.session.trial == 2 and store.session(second.session_id).trial == 2
        assert service.find_attempt(store, spec(1)) is None
        assert service.find_attempt(store, spec(3)) is None
        found = service.find_attempt(store, spec(2))
        assert found is not None and found.id == second.session_id and found.trial == 2


def test_the_mcp_queue_serves_each_task_once_per_trial_and_resumes_the_right_one(
    tmp_path: Path,
) -> None:
    from crmarena_tui.session.mcp_server import brief_text
    from tests.agents.test_tool_env import queue

    db = tmp_path / "s.db"
    first = queue(db, trials=2)
    assert first.describe() == "2 tasks x 2 trials (4 attempts)"
    env = first.next_task("agent-x")
    text = brief_text(env.task_brief())
    assert text.startswith("Task 1 of 4 (session 1; a single-turn task")
    assert "Trial 1 of 2 of this task" in text.splitlines()[1]
    env.respond("None")
    env = first.next_task("agent-x")
    env.respond("None")
    env = first.next_task("agent-x")  # task 1, trial 2: left open (the server stops)
    assert (env.episode.task.idx, env.episode.session.trial, env.number) == (1, 2, 3)
    left = env.episode.session_id
    first.store.close()

    again = queue(db, trials=3)  # a larger K: the queue now holds six attempts
    assert again.join("agent-x") and again.counts() == {"done": 2, "in_progress": 1, "left": 3}
    env = again.next_task("agent-x")
    assert env.episode.session_id == left and env.resumed and env.total == 6
    assert "Trial 2 of 3" in brief_text(env.task_brief())
    while env is not None:
        env.respond("None")
        env = again.next_task("agent-x")
    assert again.counts() == {"done": 6, "in_progress": 0, "left": 0}
    with Store(db) as store:
        found = sorted((s.task_idx, s.trial, s.status) for s in store.sessions())
    assert found == [(i, t, "submitted") for i in (1, 2) for t in (1, 2, 3)]
