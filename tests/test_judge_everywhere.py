"""One answer, one grade: with a judge configured (`judge_model`), the same answer to the same task
is graded the same whether it is submitted in the app, by `grade`, by `run`, in a fork or by
`regrade`. The judge is a scripted model (no network): it "extracts" the ground truth from an
answer that the deterministic extractor cannot read, so a path that ignores the judge scores 0."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_app_support import SAMPLE, SIZE, FakeOrg, open_task, submit, wait_for_workers
from test_app_trajectory_support import push
from test_app_workspace import fake_app, run
from textual.widgets import Input

from crmarena_tui.cli import main
from crmarena_tui.graders import grade
from crmarena_tui.llm import register_script, unregister_script
from crmarena_tui.screens.fork_dialog import ForkDialog
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage import Store
from crmarena_tui.tasks.loaders import load_tasks
from crmarena_tui.widgets.step_list import StepList

ANSWER = "It is the article the policy team flagged last week."  # no Id in it
JUDGE = "scripted/judge-everywhere"
AGENT = "scripted/answer-everywhere"
IDX = 1763  # the first quote_approval task of the sample


@pytest.fixture
def task() -> Any:
    return next(t for t in load_tasks(str(SAMPLE)) if t.idx == IDX)


@pytest.fixture
def judge_configured(task: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """`judge_model` set in the environment; the judge answers with the task's ground truth."""
    asked: list[str] = []

    def judge(messages: list[dict[str, Any]], tools: Any) -> str:
        asked.append(messages[-1]["content"])
        return json.dumps(task.gold)

    def agent(messages: list[dict[str, Any]], tools: Any) -> str:
        return f"<thought>I know it.</thought><respond>{ANSWER}</respond>"

    register_script("judge-everywhere", lambda: judge)
    register_script("answer-everywhere", lambda: agent)
    monkeypatch.setenv("CRMARENA_TUI_JUDGE_MODEL", JUDGE)
    monkeypatch.setattr(
        "crmarena_tui.orgs.resolve.open_org", lambda spec, *, org_type="b2b", today=None: FakeOrg()
    )
    yield asked
    unregister_script("judge-everywhere")
    unregister_script("answer-everywhere")


def graded_by_judge(row: Any) -> tuple[float, str, str | None]:
    return (row.reward, row.extraction, row.judge_model)


def test_without_the_judge_the_answer_scores_nothing(task: Any) -> None:
    assert grade(task, ANSWER).reward == 0.0  # so each path below must have used the judge


async def test_app_grade_run_fork_and_regrade_give_the_same_grade(
    task: Any, judge_configured: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = (1.0, "llm", JUDGE)
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
    assert (graded["reward"], graded["extraction"], graded["judge_model"]) == expected

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
    assert len(judge_configured) == 4 and all(ANSWER in prompt for prompt in judge_configured)
