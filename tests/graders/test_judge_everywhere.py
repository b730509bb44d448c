"""One answer, one grade: with a judge configured (`judge_model`), the same answer to the same task
is graded the same whether it is submitted in the app, by `grade`, by `run`, in a fork or by
`regrade`. The judge is a scripted model (tests/support/judge_support.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from crmarena_tui.cli import main
from crmarena_tui.graders import grade
from crmarena_tui.screens.fork_dialog import ForkDialog
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.step_list import StepList
from tests.screens.test_app_workspace import fake_app, run
from tests.support.app_support import SAMPLE, SIZE, open_task, submit, wait_for_workers
from tests.support.app_trajectory_support import push
from tests.support.judge_support import AGENT, ANSWER, IDX, JUDGE, judge_configured, quote_task


@pytest.fixture
def task() -> Task:
    return quote_task()


@pytest.fixture
def judge(task: Task, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    with judge_configured(task, monkeypatch) as asked:
        yield asked


def graded_by_judge(row: Any) -> tuple[float, str, str | None, str | None]:
    return (row.reward, row.extraction, row.judge_model, row.protocol)


def test_without_the_judge_the_answer_scores_nothing(task: Any) -> None:
    assert grade(task, ANSWER).reward == 0.0  # so each path below must have used the judge


async def test_app_grade_run_fork_and_regrade_give_the_same_grade(
    task: Any, judge: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = (1.0, "llm", JUDGE, "upstream")
    db = tmp_path / "sessions.db"

    # 1. a human submits it in the app
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        assert app.screen.task_row.idx == IDX
        await run(pilot, app, "SELECT Id FROM Case")
        await submit(pilot, app, ANSWER)
        store = Store(db)
        [human] = store.sessions(task_idx=IDX)
        assert graded_by_judge(store.grade(human.id)) == expected

        # 2. an agent continues a fork of that session (after its query) and gives the answer
        await push(pilot, TrajectoryViewer(human.id))
        steps = app.screen.query_one("#tv-steps", StepList)
        assert steps.current.kind == "query"
        await pilot.press("f", "down", "down", "enter")
        assert isinstance(app.screen, ForkDialog)
        app.screen.query_one("#fork-model", Input).value = AGENT
        await pilot.press("enter")
        await wait_for_workers(pilot, app)
        [fork] = [s for s in store.sessions(task_idx=IDX) if s.parent_session_id == human.id]
        assert fork.status == "submitted"
        assert graded_by_judge(store.grade(fork.id)) == expected

    # 3. `crmarena-tui grade`
    capsys.readouterr()
    code = main(["grade", "--tasks", str(SAMPLE), "--idx", str(IDX), "--answer", ANSWER])
    graded = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (
        graded["reward"],
        graded["extraction"],
        graded["judge_model"],
        graded["protocol"],
    ) == expected

    # 4. `crmarena-tui run` with an agent that gives the same answer (its own database: the
    # fork above is a session of the same agent on the same task, which a run would resume)
    runs = tmp_path / "runs.db"
    code = main(
        ["run", "--agent", AGENT, "--tasks", str(SAMPLE), "--task", "quote_approval"]
        + ["--limit", "1", "--db", str(runs), "--format", "json"]
    )
    assert code == 0
    [agent_run] = Store(runs).sessions(task_idx=IDX)
    assert graded_by_judge(Store(runs).grade(agent_run.id)) == expected
    assert len(judge) == 4 and all(ANSWER in prompt for prompt in judge)
