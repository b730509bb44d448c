"""A large task file's first rows are listed before the file is read (tasks/json_rows.py,
`loaders.ready_table`): the count says the rest is loading, the cursor and the filter carry over
when it comes, and a broken row deep in the file is still named by row, idx and field."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from crmarena_tui.tasks import loaders
from crmarena_tui.tasks.json_rows import first_rows, read_json_rows
from crmarena_tui.tasks.loaders import FIRST_ROWS, load_task_table, ready_table
from crmarena_tui.tasks.rows import TaskLoadError
from tests.support.app_support import SIZE, make_app, wait_for_workers, write_many_tasks

MANY = 1500


def _heads(tasks: Any) -> list[tuple[Any, ...]]:
    return [
        (t.idx, t.task, t.query, t.reward_metric, t.org_type, t.interactive, t.key) for t in tasks
    ]


def _count(app: Any) -> str:
    return str(app.screen.query_one("#count").render())


@pytest.fixture
def many(tmp_path: Path) -> Path:
    return write_many_tasks(tmp_path / "many.json", MANY)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The tasks worker reads the whole file only once the returned event is set."""
    opened, read = threading.Event(), loaders.load_task_table

    def held(src: str, *rules: Any) -> Any:
        assert opened.wait(20), "the test never let the tasks worker read the file"
        return read(src, *rules)

    monkeypatch.setattr(loaders, "load_task_table", held)
    return opened


def test_the_first_rows_are_the_files_own_and_read_from_its_start(
    tmp_path: Path, many: Path
) -> None:
    first = ready_table(str(many))
    assert first.partial and len(first) == FIRST_ROWS
    assert _heads(first) == _heads(load_task_table(str(many))[:FIRST_ROWS])
    assert first[7].full() == load_task_table(str(many))[7].full()
    cut = tmp_path / "cut.json"  # the file's start alone: what is after it is never parsed
    cut.write_text(many.read_text()[: len(many.read_text()) // 2])
    assert [t.query for t in ready_table(str(cut))] == [t.query for t in first]
    with pytest.raises(TaskLoadError, match="not valid JSON at line 1 column"):
        load_task_table(str(cut))


def test_jsonl_first_rows_are_its_first_lines(tmp_path: Path, many: Path) -> None:
    path = tmp_path / "many.jsonl"
    rows = json.loads(many.read_text())
    path.write_text("\n".join(json.dumps(r) for r in rows[:300]) + "\n{not json\n")
    first = ready_table(str(path))
    assert first.partial and [t.idx for t in first] == [r["idx"] for r in rows[:FIRST_ROWS]]
    with pytest.raises(TaskLoadError, match="not valid JSON at line 301 "):
        load_task_table(str(path))


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        ' [ {"a": 1} ,\n {"b": [1, 2]} ]\n',
        "[1,]",
        '[{"a": 1}] x',
        "\ufeff[]",
        '[{"a": 1}\n{"b": 2}]',
        "[",
        "",
        '\n\n[{"a":\n1,}]',
        "[]]",
        '{"a": 1}',
        "3",
    ],
)
def test_a_file_read_row_by_row_parses_and_fails_as_json_loads_does(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    try:
        expected: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        with pytest.raises(TaskLoadError) as err:
            read_json_rows(path)
        assert str(err.value) == (
            f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        )
        return
    if isinstance(expected, list):
        assert read_json_rows(path) == expected
    else:
        with pytest.raises(TaskLoadError, match="expected a JSON list of task rows"):
            read_json_rows(path)
        assert first_rows(path, 5) == ([], False)


def test_no_first_rows_from_a_file_that_does_not_start_plainly_right(
    tmp_path: Path, many: Path
) -> None:
    rows = json.loads(many.read_text())
    rows[3]["idx"] = "3"  # a row the model would coerce: the first rows stop before it
    path = tmp_path / "coerced.json"
    path.write_text(json.dumps(rows))
    assert [t.idx for t in ready_table(str(path))] == [r["idx"] for r in rows[:3]]
    assert len(ready_table(str(path), first_of_file=False)) == 0
    assert len(ready_table(str(tmp_path / "none.json"))) == 0


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_small_file_read_whole_is_its_whole_table(
    tmp_path: Path, sample_rows_path: Path, suffix: str
) -> None:
    rows = json.loads(sample_rows_path.read_text())
    path = tmp_path / f"small{suffix}"
    text = json.dumps(rows) if suffix == ".json" else "\n".join(json.dumps(r) for r in rows)
    path.write_text(text)
    assert first_rows(path, FIRST_ROWS) == (rows, True) and first_rows(path, 44) == (rows, True)
    assert first_rows(path, 43) == (rows[:43], False)
    whole = ready_table(str(path))
    assert not whole.partial and _heads(whole) == _heads(load_task_table(str(path)))
    path.write_text(text + ("x" if suffix == ".json" else "\n[]"))  # more after the rows
    assert first_rows(path, FIRST_ROWS) == (rows, False) and ready_table(str(path)).partial


async def test_a_small_files_count_is_final_in_the_first_frame(
    tmp_path: Path, sample_rows_path: Path, gate: threading.Event
) -> None:
    app = make_app(tmp_path, tasks=sample_rows_path)  # the worker never reads it again
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.browser.task_list.row_count == 44 and _count(app) == "44 tasks"
        await wait_for_workers(pilot, app)
        assert app.browser.task_list.row_count == 44 and app.participant is not None


async def test_the_first_rows_show_before_the_file_is_read_and_the_rest_follows(
    tmp_path: Path, many: Path, gate: threading.Event
) -> None:
    app = make_app(tmp_path, tasks=many)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        task_list = app.browser.task_list
        assert task_list.row_count == FIRST_ROWS  # the worker has not read the file
        assert not app.screen.query("LoadingIndicator")  # (the list is not covered)
        assert _count(app) == f"{FIRST_ROWS} of the first {FIRST_ROWS} tasks · loading the rest…"
        await pilot.press("down", "down", "down")
        assert task_list.cursor == 3
        gate.set()
        await wait_for_workers(pilot, app)
        assert task_list.row_count == MANY and _count(app) == f"{MANY:,} tasks"
        assert task_list.cursor == 3 and task_list.scroll_offset.y == 0
        assert task_list.current_row is not None and task_list.current_row.idx == 100003
        assert app.screen.query_one("#tasks") is app.screen.focused


async def test_a_filter_typed_while_loading_counts_every_row_once_read(
    tmp_path: Path, many: Path, gate: threading.Event
) -> None:
    app = make_app(tmp_path, tasks=many)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"handle time")
        assert app.screen.query_one("#filter", Input).value == "handle time"
        shown = app.browser.task_list.row_count
        assert _count(app) == f"{shown} of the first {FIRST_ROWS} tasks · loading the rest…"
        gate.set()
        await wait_for_workers(pilot, app)
        every = app.browser.task_list.visible_tasks()
        in_file = [r["idx"] for r in json.loads(many.read_text()) if r["task"] == "handle_time"]
        assert [t.idx for t in every] == in_file and len(every) > shown
        assert _count(app) == f"{len(every)} of {MANY:,} tasks"


@pytest.mark.parametrize(
    ("fields", "field"),
    [({"reward_metric": "close_enough"}, "reward_metric"), ({"answer": {"no": 1}}, "answer")],
)
async def test_a_broken_row_deep_in_a_big_file_is_named_after_the_first_rows(
    tmp_path: Path, many: Path, gate: threading.Event, fields: dict[str, Any], field: str
) -> None:
    rows = json.loads(many.read_text())
    rows[1234].update(fields)
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(rows))
    app = make_app(tmp_path, tasks=path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.browser.task_list.row_count == FIRST_ROWS
        gate.set()
        await wait_for_workers(pilot, app)
        text = _count(app)
        assert "Cannot load tasks" in text and "deep.json: row 1234 (idx 101234)" in text
        assert f"field '{field}'" in text and "loading" not in text
        assert app.browser.task_list.row_count == 0 and len(app.tasks) == 0


async def test_blind_mode_lists_no_rows_that_the_whole_file_would_move(
    tmp_path: Path, many: Path, gate: threading.Event
) -> None:
    app = make_app(tmp_path, tasks=many, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.browser.task_list.row_count == 0 and "loading tasks" in _count(app)
        gate.set()
        await wait_for_workers(pilot, app)
        assert app.browser.task_list.row_count == MANY
