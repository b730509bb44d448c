"""The command line in blind settings: no answer printed unless asked for by name, `grade
--show-gold` refused while blind, `--blind`/`--pace` reach the app (and `serve`'s tabs), the task
table keeps its query column at 80 columns, `org info demo:b2c` builds the org as `--org` does."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from crmarena_tui.cli import build_parser, main
from crmarena_tui.commands.serve import play_command


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("columns", ["80", "160"])  # (the table has its box at 160 only)
def test_tasks_list_prints_answers_only_with_answers_asked_for(
    sample_rows_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: str,
) -> None:
    monkeypatch.setenv("COLUMNS", columns)  # (a terminal's width, whatever the suite's is)
    rows = json.loads(sample_rows_path.read_text())
    gold = rows[0]["answer"][0]
    src = ("tasks", "list", "--tasks", str(sample_rows_path))
    code, out, _ = _run(capsys, *src, "--format", "json")
    assert code == 0 and gold not in out
    assert all("answer" not in row for row in json.loads(out))
    code, out, _ = _run(capsys, *src)
    assert code == 0 and gold[:10] not in out
    code, out, _ = _run(capsys, *src, "--format", "json", "--with-answers")
    assert json.loads(out)[0]["answer"] == rows[0]["answer"]
    code, out, _ = _run(capsys, *src, "--with-answers")
    header = next(line for line in out.splitlines() if "idx" in line)
    assert "answer" in header and gold[:10] in out


def test_tasks_list_keeps_the_query_column_at_80_columns(
    sample_rows_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # as when piped, or in an 80-column terminal
    code, out, _ = _run(capsys, "tasks", "list", "--tasks", str(sample_rows_path))
    lines = out.splitlines()
    assert code == 0 and max(len(line) for line in lines) <= 80
    assert "query" in lines[1]
    assert "Choose 'Not Started'" in out  # the first task's request is readable


def test_grade_show_gold_is_refused_while_blind(
    sample_rows_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ("grade", "--tasks", str(sample_rows_path), "--idx", "1287", "--answer", "Discovery")
    monkeypatch.setenv("CRMARENA_TUI_BLIND", "1")
    code, out, err = _run(capsys, *argv, "--show-gold")
    assert code == 2 and out == "" and "Quote" not in err and "blind" in err
    code, out, _ = _run(capsys, *argv)  # grading itself still works, without the gold
    assert code == 0 and "gold" not in json.loads(out)
    monkeypatch.setenv("CRMARENA_TUI_BLIND", "0")
    code, out, _ = _run(capsys, *argv, "--show-gold")
    assert code == 0 and json.loads(out)["gold"] == ["Quote"]


def test_play_and_serve_take_blind_and_pace() -> None:
    parser = build_parser()
    assert parser.parse_args(["play"]).blind is None  # the setting decides
    assert parser.parse_args(["play", "--blind"]).blind is True
    assert parser.parse_args(["play", "--no-blind"]).blind is False
    assert parser.parse_args(["play", "--pace", "0.5"]).pace == 0.5
    args = parser.parse_args(["serve", "--blind", "--pace", "0.25"])
    argv = shlex.split(play_command(args, python="py"))
    assert argv[-3:] == ["--blind", "--pace", "0.25"]
    played = parser.parse_args(["play", *argv[4:]])
    assert played.blind is True and played.pace == 0.25
    assert "--blind" not in play_command(parser.parse_args(["serve"]), python="py")


def test_play_refuses_a_negative_pace(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "play", "--pace", "-1")
    assert code == 2 and "--pace" in err


def test_org_info_builds_a_demo_org_as_org_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_ORG_DIR", str(tmp_path / "fresh-orgs"))  # nothing built
    code, out, err = _run(capsys, "org", "info", "demo:b2c", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["meta"]["org_type"] == "b2c" and data["counts"]["Case"] > 0
    code, out, _ = _run(capsys, "org", "info", "--org", "demo:b2c", "--format", "json")
    assert code == 0 and json.loads(out)["path"] == data["path"]
    code, _, err = _run(capsys, "org", "info", "demo:b2x")
    assert code == 1 and "demo:b2b or demo:b2c" in err


def _chat_rows(tmp_path: Path, sample_rows_path: Path) -> tuple[Path, list[dict]]:
    rows = json.loads(sample_rows_path.read_text())[:4]
    for row in rows[:2]:
        row["interactive"] = True
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(rows))
    return path, rows


def test_tasks_list_while_blind_refuses_answers_and_hides_chat_requests(
    tmp_path: Path,
    sample_rows_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, rows = _chat_rows(tmp_path, sample_rows_path)
    src = ("tasks", "list", "--tasks", str(path))
    monkeypatch.setenv("CRMARENA_TUI_BLIND", "1")
    for fmt in ("table", "json"):
        code, out, err = _run(capsys, *src, "--format", fmt, "--with-answers")
        assert code == 2 and out == "" and "blind" in err and "--with-answers" in err
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = _run(capsys, *src, "--format", "json")
    listed = json.loads(out)
    assert code == 0 and len(listed) == 4
    assert [("query" in r) for r in listed] == [False, False, True, True]
    code, out, _ = _run(capsys, *src)
    assert code == 0 and out.count("(chat: the customer tells you") == 2
    for row in rows[:2]:
        assert row["query"][:25] not in out
    assert rows[2]["query"][:25] in out  # a single-turn request is the task itself
    exported = tmp_path / "x.json"
    code, out, err = _run(capsys, "tasks", "export", "--tasks", str(path), "--out", str(exported))
    assert code == 2 and "blind" in err and not exported.exists()
    monkeypatch.setenv("CRMARENA_TUI_BLIND", "0")
    code, out, _ = _run(capsys, *src, "--format", "json", "--with-answers")
    assert code == 0 and json.loads(out)[0]["query"] == rows[0]["query"]
