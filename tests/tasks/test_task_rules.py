"""Task files validated at load (issue 28, item 5): a malformed "Today's date", an idx out of
range, a repeated idx (refused naming both rows, or `--allow-duplicates` keeping the first and
saying so) and an unknown task type (refused unless `--allow-unknown-types`), each named by file,
row, idx and field, by `load_tasks`, the app's table, `--tasks` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.tasks.loaders import LoadRules, TaskLoadError, load_task_table, load_tasks


def _rows(sample: Path, n: int = 4) -> list[dict]:
    return json.loads(sample.read_text())[:n]


def _write(tmp_path: Path, rows: list[dict], name: str = "tasks.json") -> Path:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        path.write_text(json.dumps(rows))
    return path


def _refused(path: Path, *words: str, rules: LoadRules | None = None) -> str:
    """Both loaders refuse `path` with the same message, holding every word."""
    with pytest.raises(TaskLoadError) as err:
        load_tasks(str(path), rules)
    message = str(err.value)
    for word in (str(path), *words):
        assert word in message, message
    table = load_task_table(str(path), rules)  # the app's path: heads now, the rest checked after
    assert table.problem() == message
    return message


@pytest.mark.parametrize("name", ["tasks.json", "tasks.jsonl"])
def test_a_malformed_todays_date_is_refused_at_load(
    tmp_path: Path, sample_rows_path: Path, name: str
) -> None:
    rows = _rows(sample_rows_path)
    rows[2]["metadata"]["required"] = "Policy text.\n- Today's date: 2021-13-45"
    path = _write(tmp_path, rows, name)
    _refused(
        path,
        f"row 2 (idx {rows[2]['idx']})",
        "field 'metadata.required'",
        "2021-13-45",
        "YYYY-MM-DD",
    )
    rows[2]["metadata"]["required"] = "- Today's date: 09/07/2021"
    _refused(_write(tmp_path, rows, name), "row 2", "09/07/2021")
    rows[2]["metadata"]["required"] = "- Today's date: 2021-09-07."  # a full stop after it is fine
    assert load_tasks(str(_write(tmp_path, rows, name)))[2].today().isoformat() == "2021-09-07"


def _refused_heads(path: Path, *words: str, rules: LoadRules | None = None) -> str:
    """Both loaders refuse `path` at once (the table refuses before listing a row)."""
    with pytest.raises(TaskLoadError) as err:
        load_tasks(str(path), rules)
    with pytest.raises(TaskLoadError) as table_err:
        load_task_table(str(path), rules)
    assert str(table_err.value) == str(err.value)
    for word in (str(path), *words):
        assert word in str(err.value), str(err.value)
    return str(err.value)


@pytest.mark.parametrize("idx", [10**30, -1, 2**63])
def test_an_idx_out_of_range_is_refused_at_load(
    tmp_path: Path, sample_rows_path: Path, idx: int
) -> None:
    rows = _rows(sample_rows_path)
    rows[1]["idx"] = idx
    _refused_heads(_write(tmp_path, rows), f"row 1 (idx {idx})", "field 'idx': must be from 0 to")


def test_a_repeated_idx_is_refused_naming_both_rows(tmp_path: Path, sample_rows_path: Path) -> None:
    rows = _rows(sample_rows_path)
    rows[3]["idx"] = rows[1]["idx"]
    path = _write(tmp_path, rows)
    message = _refused_heads(path, f"row 3 (idx {rows[1]['idx']})", "row 1", "field 'idx'")
    assert "--allow-duplicates" in message


def test_allow_duplicates_keeps_the_first_and_says_so(
    tmp_path: Path, sample_rows_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(sample_rows_path)
    rows[3]["idx"] = rows[1]["idx"]
    path = _write(tmp_path, rows)
    rules = LoadRules(allow_duplicates=True)
    tasks = load_tasks(str(path), rules)
    assert [t.query for t in tasks] == [r["query"] for r in rows[:3]]  # the first kept
    assert len(rules.notes) == 1 and "row 3" in rules.notes[0] and "row 1" in rules.notes[0]
    table = load_task_table(str(path), LoadRules(allow_duplicates=True))
    assert [r.query for r in table] == [r["query"] for r in rows[:3]]
    assert table.problem() is None
    code = main(["tasks", "list", "--tasks", str(path), "--format", "json", "--allow-duplicates"])
    out, err = capsys.readouterr()
    assert code == 0 and len(json.loads(out)) == 3
    assert err.startswith(f"note: {path}: row 3 (idx {rows[1]['idx']}): left out: row 1")


def test_an_unknown_task_type_is_refused_unless_allowed(
    tmp_path: Path, sample_rows_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(sample_rows_path)
    rows[2]["task"] = "handle_tiem"
    path = _write(tmp_path, rows)
    message = _refused_heads(path, f"row 2 (idx {rows[2]['idx']})", "field 'task'", "handle_tiem")
    assert "--allow-unknown-types" in message
    assert [t.task for t in load_tasks(str(path), LoadRules(allow_unknown_types=True))][2] == (
        "handle_tiem"
    )
    code = main(["tasks", "list", "--tasks", str(path), "--format", "count"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and err.count("\n") == 1 and "handle_tiem" in err
    code = main(
        ["tasks", "list", "--tasks", str(path), "--format", "count", "--allow-unknown-types"]
    )
    assert code == 0 and capsys.readouterr().out.strip() == "4"


def test_the_first_screenful_stops_before_a_repeated_idx(
    tmp_path: Path, sample_rows_path: Path
) -> None:
    from crmarena_tui.tasks.loaders import ready_table

    rows = _rows(sample_rows_path, 6)
    rows[4]["idx"] = rows[0]["idx"]
    table = ready_table(str(_write(tmp_path, rows)))
    assert len(table) == 4 and table.partial  # the full read names the repeat
