"""study_mode.py without the app: the queue as the browser lists it, which task may open, the
next step after a submit, what a session of the study records."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.studies import db
from crmarena_tui.studies.mode import STATES, NextStep, open_study
from crmarena_tui.studies.model import StudyError
from crmarena_tui.tasks.table import TaskTable
from tests.support.study_support import task, work, write_tasks


@pytest.fixture
def seated(tmp_path: Path):
    tasks = write_tasks(tmp_path / "tasks.json", per_type=1)  # 3 tasks
    store = Store(tmp_path / "s.db")
    keys = [(t.source, t.idx) for t in tasks]
    db.create_study(
        store,
        "pilot",
        tasks=str(tmp_path / "tasks.json"),
        org=None,
        per_task=1,
        seed=0,
        queues={"ann": [keys[2], keys[0], keys[1]]},
        task_types={k: t.task for k, t in zip(keys, tasks, strict=True)},
        time_limit_minutes=1.5,
        show_grade="never",
        codes={"ann": "ABC234"},
    )
    yield store, tasks, open_study(store, "pilot", "ann")
    store.close()


def test_the_queue_is_listed_in_its_order_numbered_from_one(seated) -> None:
    store, tasks, mode = seated
    view = mode.view()
    listed = view.arrange(tasks)
    assert [t.idx for t in listed] == [tasks[2].idx, tasks[0].idx, tasks[1].idx]
    assert [view.number(t) for t in listed] == ["1", "2", "3"]
    assert view.enabled and "Task 1" in view.heading(listed[0])
    stranger = task(999, "handle_time", tasks[0].source)
    rows = TaskTable.of([*tasks, stranger]).rows
    assert [r.key for r in mode.queue_tasks(rows)] == [
        t.key for t in listed
    ]  # only the queue's tasks
    assert mode.time_limit_seconds == 90.0 and not mode.shows_grade
    assert mode.session_options() == {"study_id": mode.study.id, "settings": {"study": "pilot"}}


def test_tasks_open_in_order_and_once(seated) -> None:
    store, tasks, mode = seated
    first, second, third = [r.full() for r in mode.queue_tasks(TaskTable.of(tasks).rows)]
    statuses = mode.statuses(store)
    assert {s.queue_label for s in statuses.values()} == {"left"}
    assert mode.refusal(first, statuses) is None
    assert mode.refusal(third, statuses) == "Please work the tasks in order: next is task 1."
    work(store, "ann", second, study_id=mode.study.id)  # in progress: it comes first
    statuses = mode.statuses(store)
    assert mode.refusal(first, statuses) == "Please work the tasks in order: next is task 2."
    work(store, "ann", first, study_id=mode.study.id, reward=1.0)
    statuses = mode.statuses(store)
    assert statuses[first.key] == STATES["done"] and statuses[first.key].queue_label == "done"
    assert mode.refusal(first, statuses) == "Task 1 is done: each task is answered once."
    step = mode.next_step(store, TaskTable.of(tasks).rows)  # the browser's rows
    assert step.task == second and step.hint().startswith("n: next task (1 of 3 done)")


def test_the_next_step_after_the_last_task_and_a_task_that_did_not_load() -> None:
    assert NextStep(None, 3, 3).hint() == "All 3 tasks done — thank you. ctrl+q quits."
    assert "not among the tasks loaded" in NextStep(None, 1, 3).hint()


def test_joining_needs_the_code_and_an_open_study(seated) -> None:
    store, _, _ = seated
    assert open_study(store, "pilot", "ann", "abc 234").participant == "ann"
    with pytest.raises(StudyError, match="^that name and join code do not match$"):
        open_study(store, "pilot", "ann", "ABC235")
    with pytest.raises(StudyError, match="^that name and join code do not match$"):
        open_study(store, "pilot", "bob", "ABC234")  # the same words: no name given away
    db.close_study(store, "pilot")
    with pytest.raises(StudyError, match="closed"):
        open_study(store, "pilot", "ann")
