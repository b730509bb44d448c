"""`crmarena-tui tasks ...` and `--version`, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui import __version__
from crmarena_tui.cli import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_tasks_list_json_rows_carry_source_org_and_mode(sample_rows_path: Path, capsys) -> None:
    argv = ["tasks", "list", "--tasks", str(sample_rows_path), "--format", "json"]
    assert main([*argv, "--with-answers"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 44
    raw = json.loads(sample_rows_path.read_text())
    assert {k: rows[0][k] for k in raw[0]} == raw[0]
    assert rows[0]["org_type"] == "b2b" and rows[0]["interactive"] is False
    assert rows[0]["source"].endswith("crmarenapro_b2b_sample.json")


def test_tasks_list_filters_by_type_and_counts(sample_rows_path: Path, capsys) -> None:
    assert (
        main(
            [
                "tasks",
                "list",
                "--tasks",
                str(sample_rows_path),
                "--task",
                "handle_time",
                "--format",
                "count",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.strip() == "2"
    assert main(["tasks", "list", "--tasks", str(sample_rows_path), "--task", "knowledge_qa"]) == 0
    out = capsys.readouterr().out
    assert "knowledge_qa" in out and "handle_time" not in out


def test_tasks_list_reports_unknown_type_and_bad_source(tmp_path: Path, capsys) -> None:
    assert main(["tasks", "list", "--tasks", "x.json", "--task", "nope"]) == 2
    assert "unknown task type" in capsys.readouterr().err
    assert main(["tasks", "list", "--tasks", str(tmp_path / "missing.json")]) == 1
    assert "no such task file" in capsys.readouterr().err


def test_tasks_export_round_trips(sample_rows_path: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "copy.jsonl"
    assert main(["tasks", "export", "--tasks", str(sample_rows_path), "--out", str(out)]) == 0
    assert "wrote 44 tasks" in capsys.readouterr().out
    assert main(["tasks", "list", "--tasks", str(out), "--format", "count"]) == 0
    assert capsys.readouterr().out.strip() == "44"


def test_task_types_lists_all_22(capsys) -> None:
    assert main(["tasks", "types", "--format", "json"]) == 0
    types = json.loads(capsys.readouterr().out)
    assert len(types) == 22 and {"name", "metric", "facing", "skill"} <= set(types[0])


@pytest.mark.parametrize("argv", [[], ["--as", "ana"], ["--tasks", "x.json", "--as", "ana"]])
def test_no_command_or_bare_options_open_the_app(monkeypatch: pytest.MonkeyPatch, argv) -> None:
    import crmarena_tui.commands.play as play

    seen: dict = {}
    monkeypatch.setattr(play, "run", lambda args: seen.update(vars(args)) or 0)
    assert main(argv) == 0
    assert seen["command"] == "play"
    if argv:
        assert "ana" in seen.values()
