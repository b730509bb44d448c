"""Control codes in imported data (task text, file names) never reach the terminal raw from a
command's output or error line; Rich's own colour codes still do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.terminal_text import safe_text

HOSTILE = "Who \x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x1b\\ is \x9b6n fastest?\r\x08"


def test_safe_text_keeps_colour_and_drops_every_other_control() -> None:
    assert safe_text("\x1b[1;31mred\x1b[0m\ttab\n") == "\x1b[1;31mred\x1b[0m\ttab\n"
    cleaned = safe_text(HOSTILE)
    assert "\x1b" not in cleaned and "\x07" not in cleaned and "\x9b" not in cleaned
    assert "\r" not in cleaned and "\x08" not in cleaned
    assert cleaned.startswith("Who ") and "fastest?" in cleaned


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_task_text_is_printed_without_its_control_codes(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    path = tmp_path / "tasks.json"
    row = {"idx": 1, "task": "handle_time", "query": HOSTILE, "answer": ["x"]}
    path.write_text(json.dumps([{**row, "reward_metric": "exact_match"}]))
    assert main(["tasks", "list", "--tasks", str(path), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "fastest?" in out
    for code in ("\x1b", "\x07", "\x9b", "\r", "\x08"):
        assert code not in out


def test_an_error_line_naming_a_hostile_file_is_printed_without_its_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = tmp_path / "tasks\x1b[2J\x1b]0;x\x07.json"
    name.write_text("not json")
    assert main(["tasks", "list", "--tasks", str(name)]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "tasks" in err
