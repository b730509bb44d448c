"""A small task file and study sessions for the study tests (no demo org, no app)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from crmarena_tui.cli import main
from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import Session, Store
from crmarena_tui.tasks.model import Task, TaskMetadata
from tests.support.spec_support import session_spec

TYPES = ("handle_time", "transfer_count", "case_routing")


def task(idx: int, task_type: str, source: str) -> Task:
    return Task(
        idx=idx,
        task=task_type,
        query=f"Question {idx}?",
        answer=[f"005000000000{idx:03d}AAA"],
        metadata=TaskMetadata(required="Today's date: 2024-05-01"),
        reward_metric="exact_match",
        source=source,
    )


def write_tasks(path: Path, per_type: int = 4, types: tuple[str, ...] = TYPES) -> list[Task]:
    """`per_type` tasks of each type in a .json file; the Tasks as the loader reads them."""
    rows = []
    for t, task_type in enumerate(types):
        for i in range(per_type):
            rows.append(task(100 * t + i, task_type, str(path)).row())
    for row in rows:
        del row["source"]
    path.write_text(json.dumps(rows))
    return [task(r["idx"], r["task"], str(path)) for r in rows]


def cli(*argv: str) -> tuple[int, str, str]:
    """Run the command line; (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def grade(reward: float, answer: str = "x", grader: str = "exact_match") -> Grade:
    return Grade(
        answer=answer,
        parsed_answer=[answer],
        reward=reward,
        grader=grader,  # type: ignore[arg-type]
        extraction="strip",
        protocol="workbench",
    )


def work(
    store: Store,
    who: str,
    the_task: Task,
    *,
    study_id: int | None,
    reward: float | None = None,
    seconds: float = 60.0,
    kind: str = "human",
    model: str | None = None,
    grader: str = "exact_match",
    session_kind: str = "attempt",
) -> Session:
    """A session of `who` on `the_task` in the study: submitted and graded when `reward` is
    given, else left in progress."""
    person = store.participant(kind, who, model=model)
    session = store.create_session(
        session_spec(person, the_task, "local", "demo", study_id=study_id, kind=session_kind),
        started_at=1000.0,
    )
    store.append_event(session.id, "human", "query", {"text": "SELECT Id FROM Case"}, ts=1010.0)
    if reward is None:
        return store.session(session.id)
    store.append_event(session.id, "human", "submit", {"answer": "x"}, ts=1000.0 + seconds)
    store.set_status(session.id, "submitted", ended_at=1000.0 + seconds, active_seconds=seconds)
    store.add_grade(session.id, grade(reward, grader=grader))
    return store.session(session.id)
