"""Every command opens the sessions database the app writes to: --db, else CRMARENA_TUI_DB, else
the config file's `db`, else the default place. A `db` set in config.toml that `play` honours but
`report`, `export` or `study` ignored would show an empty report of a full database."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.settings import locations
from crmarena_tui.storage import Store


def _seed(path: Path) -> None:
    with Store(path) as store:
        store.participant("human", "ana")


def test_the_config_files_db_is_the_one_report_and_study_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configured = tmp_path / "team.db"
    _seed(configured)
    locations.config_dir().mkdir(parents=True, exist_ok=True)
    locations.config_file().write_text(f'db = "{configured}"\n', encoding="utf-8")

    assert main(["study", "list"]) == 0
    assert str(configured) in capsys.readouterr().out
    assert not locations.default_db_path().exists()  # the default place was never created


def test_the_environment_wins_over_the_config_file_and_db_over_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    locations.config_dir().mkdir(parents=True, exist_ok=True)
    locations.config_file().write_text(f'db = "{tmp_path / "file.db"}"\n', encoding="utf-8")
    monkeypatch.setenv("CRMARENA_TUI_DB", str(tmp_path / "env.db"))
    _seed(tmp_path / "env.db")
    _seed(tmp_path / "flag.db")
    assert main(["study", "list"]) == 0
    assert str(tmp_path / "env.db") in capsys.readouterr().out
    assert main(["study", "list", "--db", str(tmp_path / "flag.db")]) == 0
    assert str(tmp_path / "flag.db") in capsys.readouterr().out
