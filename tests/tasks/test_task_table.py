"""The browser's light task rows (tasks/table.py): the same tasks as `load_tasks`, each `Task` built
when it is opened, and a broken file still named by row and field (at once, or by the full check
the app runs once the rows are shown)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crmarena_tui.demo.sources import load_task_table, load_tasks
from crmarena_tui.tasks.rows import TaskLoadError
from crmarena_tui.tasks.table import TaskTable
from tests.support.app_support import SIZE, make_app, wait_for_workers


def _heads(tasks) -> list[tuple]:
    return [
        (t.idx, t.task, t.query, t.reward_metric, t.org_type, t.interactive, t.source, t.key)
        for t in tasks
    ]


@pytest.mark.parametrize("source", ["demo:small", "file"])
def test_rows_and_full_tasks_are_load_tasks_own(source: str, sample_rows_path: Path) -> None:
    if source == "file":
        source = str(sample_rows_path)
    tasks = load_tasks(source)
    for _ in range(2):  # the second time from the demo's rows file
        table = load_task_table(source)
        assert _heads(table) == _heads(tasks)
    picks = range(0, len(tasks), max(1, len(tasks) // 25))
    for i in [*picks, len(tasks) - 1]:
        assert table[i].full() == tasks[i], i
    assert table.problem() is None


def test_demo_rows_load_without_pydantic() -> None:
    load_task_table("demo")  # writes the rows files if missing
    code = (
        "import sys\n"
        "from crmarena_tui.demo.sources import load_task_table\n"
        "table = load_task_table('demo')\n"
        "assert len(table) == 8560 and table[0].key == 'demo#0', table[0]\n"
        "print([m for m in ('pydantic', 'crmarena_tui.tasks.model') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _broken(tmp_path: Path, sample_rows_path: Path, n: int, **fields: object) -> Path:
    rows = json.loads(sample_rows_path.read_text())
    rows[n].update(fields)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(rows))
    return path


@pytest.mark.parametrize(
    "fields",
    [{"idx": "seven"}, {"reward_metric": "close_enough"}, {"query": 3.5}, {"difficulty": 1}],
)
def test_a_broken_shown_field_stops_the_rows_as_load_tasks_does(
    tmp_path: Path, sample_rows_path: Path, fields: dict[str, object]
) -> None:
    path = _broken(tmp_path, sample_rows_path, 3, **fields)
    with pytest.raises(TaskLoadError) as full:
        load_tasks(str(path))
    with pytest.raises(TaskLoadError) as light:
        load_task_table(str(path))
    assert str(light.value) == str(full.value)
    assert f"{path}: row 3 (idx" in str(light.value)


@pytest.mark.parametrize(
    "fields", [{"answer": "005Wt000003NIvNIAW"}, {"metadata": "just text"}, {"persona": 7}]
)
def test_a_field_the_rows_do_not_show_is_named_by_the_full_check(
    tmp_path: Path, sample_rows_path: Path, fields: dict[str, object]
) -> None:
    path = _broken(tmp_path, sample_rows_path, 5, **fields)
    with pytest.raises(TaskLoadError) as full:
        load_tasks(str(path))
    table = load_task_table(str(path))  # the rows come first
    assert len(table) == 44
    assert table.problem() == str(full.value)
    assert f"{path}: row 5 (idx" in str(full.value) and "field '" in str(full.value)
    with pytest.raises(TaskLoadError) as opened:
        table[5].full()
    assert str(opened.value) == str(full.value)
    sound = load_tasks(str(sample_rows_path))[4]  # the other rows still open
    assert table[4].full() == sound.model_copy(update={"source": str(path)})


def test_hub_and_parquet_tables_hold_their_tasks(sample_rows_path: Path) -> None:
    tasks = load_tasks(str(sample_rows_path))
    table = TaskTable.of(tasks)
    assert _heads(table) == _heads(tasks) and table[7].full() is tasks[7]
    assert repr(table) == "<TaskTable of 44 tasks>"


async def test_the_app_names_a_broken_row_found_after_the_rows(
    tmp_path: Path, sample_rows_path: Path
) -> None:
    path = _broken(tmp_path, sample_rows_path, 5, answer={"not": "a list"})
    app = make_app(tmp_path, tasks=path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        assert app.is_running
        text = str(app.screen.query_one("#count").render())
        assert "Cannot load tasks" in text and "broken.json: row 5 (idx" in text
        assert "field 'answer'" in text
        assert app.browser.task_list.row_count == 0 and len(app.tasks) == 0


def test_ready_demo_rows_are_read_before_the_first_frame_and_nothing_is_built(
    tmp_path: Path, shared_org_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmarena_tui.demo.sources import ready_table

    load_task_table("demo")  # the shared orgs and their rows files are built
    assert _heads(ready_table("demo")) == _heads(load_task_table("demo"))
    assert len(ready_table("hf:b2b")) == 0 and len(ready_table(str(tmp_path / "x.json"))) == 0
    bare = tmp_path / "orgs"  # the orgs without their rows files, then no orgs at all
    bare.mkdir()
    for org_type in ("b2b", "b2c"):
        (bare / f"demo-{org_type}.db").symlink_to(shared_org_dir / f"demo-{org_type}.db")
    monkeypatch.setenv("CRMARENA_TUI_ORG_DIR", str(bare))
    assert len(ready_table("demo")) == 0
    monkeypatch.setenv("CRMARENA_TUI_ORG_DIR", str(tmp_path / "none"))
    assert len(ready_table("demo:small")) == 0
    assert sorted(p.name for p in bare.iterdir()) == ["demo-b2b.db", "demo-b2c.db"]
    assert not (tmp_path / "none").exists()


async def test_built_demo_rows_are_in_the_first_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from crmarena_tui.app.app import CrmArenaApp, PlayOptions

    load_task_table("demo")
    gate, check = threading.Event(), CrmArenaApp._build_missing_demo_orgs
    monkeypatch.setattr(  # the tasks worker waits until the list has been used
        CrmArenaApp,
        "_build_missing_demo_orgs",
        lambda app, types: gate.wait(20) and check(app, types),
    )
    app = CrmArenaApp(PlayOptions(participant="ann", db=tmp_path / "s.db"))
    async with app.run_test(size=SIZE) as pilot:
        assert len(app.tasks) == 8560  # read before compose, not by the tasks worker
        await pilot.pause()
        assert app.browser.task_list.row_count == 8560
        await pilot.press("down", "down")  # the worker's TasksLoaded must not list them again
        gate.set()
        await wait_for_workers(pilot, app)
        assert app.browser.task_list.row_count == 8560 and app.participant is not None
        assert app.browser.task_list.cursor == 2
