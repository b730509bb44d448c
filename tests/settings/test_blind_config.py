"""Blind mode cannot be turned off by breaking the config file, and `export` (whose rows hold
every task's gold answer) is refused while it is on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.settings import locations
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

GOLD = "005Wt000003NIvNIAW"


def _config(text: str) -> Path:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.json"
    row = {"idx": 1, "task": "handle_time", "query": "Who?", "answer": [GOLD]}
    path.write_text(json.dumps([{**row, "reward_metric": "exact_match"}]))
    return path


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("blind = true\nx = [\n", "not valid TOML"),
        ('blind = "maybe"\n', "setting 'blind': must be true or false"),
        ("blind = true\n\xff = 1\n", "not valid TOML"),
    ],
    ids=["toml-error", "not-a-flag", "not-utf8"],
)
def test_a_broken_config_stops_every_command_alike(
    text: str,
    said: str,
    task_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _config(text)
    out = tmp_path / "x.json"
    for argv in (
        ["tasks", "list", "--tasks", str(task_file), "--with-answers"],
        ["tasks", "list", "--tasks", str(task_file), "--with-answers", "--format", "json"],
        ["tasks", "export", "--tasks", str(task_file), "--out", str(out)],
        ["tasks", "stats", "--tasks", str(task_file)],
        ["report", "--db", str(tmp_path / "s.db")],
        ["export", "--db", str(tmp_path / "s.db"), "--out", str(tmp_path / "s.jsonl")],
        ["query", "SELECT Id FROM Account LIMIT 1"],
    ):
        code = main(argv)
        printed, err = capsys.readouterr()
        assert code == 2, argv  # a bad setting: a usage error
        assert GOLD not in printed and printed == "", argv
        assert len(err.strip().splitlines()) == 1 and said in err and str(path) in err, argv
    assert not out.exists()


def test_export_is_refused_while_blind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        ana = store.participant("human", "ana")
        task = Task(
            idx=883, task="handle_time", query="Who?", answer=[GOLD],
            reward_metric="exact_match", source="hf:b2b",
        )  # fmt: skip
        store.create_session(session_spec(ana, task, "demo", "demo:b2b"), started_at=1.7e9)
    out = tmp_path / "s.jsonl"
    _config("blind = true\n")
    assert main(["export", "--db", str(db), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "blind" in err and not out.exists()
    _config("blind = false\n")
    assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    assert GOLD in out.read_text()
