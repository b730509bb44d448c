"""One settings reader: `quick_setting` (read before pydantic-settings is imported) gives every
setting it is used for exactly as `load_settings` does, for any value in the environment or the
config file; where `load_settings` refuses a value, `quick_setting` refuses it with the same line."""

from __future__ import annotations

import json
import math
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from crmarena_tui.settings import locations
from crmarena_tui.settings.config import SettingsProblem, load_settings
from crmarena_tui.settings.config_file import quick_setting
from crmarena_tui.settings.setting_rules import RULES

QUICK = sorted(RULES)
WORDS = ["1", "0", "true", "False", " yes ", "NO", "on", "off", "t", "n", "maybe", "", "2"]
NUMBERS = ["5", "-1", "0", "2.5", "1_000", "1e3", "inf", "nan", " 7 ", "+3", "0x10", "abc", "１２"]

env_values = st.one_of(
    st.sampled_from(WORDS + NUMBERS), st.text(max_size=8).filter(lambda t: "\x00" not in t)
)
toml_values = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS + NUMBERS),
    st.text(max_size=8),
)


def toml_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else "inf" if value == math.inf else repr(value)
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


def both_readers(name: str, env: str | None, file_value: Any) -> tuple[Any, Any]:
    variable = f"CRMARENA_TUI_{name.upper()}"
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    if file_value is not None:
        text = f"{name} = {toml_literal(file_value)}\n"
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            assume(False)  # a file that is not TOML is refused whole: another matter
        path.write_text(text, encoding="utf-8")
    saved = os.environ.pop(variable, None)
    try:
        if env is not None:
            os.environ[variable] = env
        try:
            quick = quick_setting(name)
        except SettingsProblem as exc:
            quick = ("refused", str(exc))
        try:
            loaded = getattr(load_settings(), name)
        except SettingsProblem as exc:
            loaded = ("refused", str(exc))  # refused by both readers, with one line
        return quick, loaded
    finally:
        os.environ.pop(variable, None)
        if saved is not None:
            os.environ[variable] = saved


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", QUICK)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=st.none() | env_values, file_value=st.none() | toml_values)
@example(env="yes", file_value=None)
@example(env=None, file_value="off")
@example(env="2", file_value=7)
@example(env=None, file_value=2.0)
def test_quick_setting_reads_as_load_settings_does(
    name: str, env: str | None, file_value: Any
) -> None:
    quick, loaded = both_readers(name, env, file_value)
    assert same(quick, loaded), (name, env, file_value, quick, loaded)


def test_every_setting_the_code_reads_quickly_has_a_rule() -> None:
    root = Path(__file__).resolve().parents[2] / "crmarena_tui"
    used = set()
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for part in text.split('quick_setting("')[1:]:
            used.add(part.split('"', 1)[0])
    assert used and used <= set(RULES)


def test_a_word_reads_the_same_in_the_environment_and_in_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_BLIND", " Yes ")
    assert quick_setting("blind") is True and load_settings().blind is True
    monkeypatch.setenv("CRMARENA_TUI_JOIN_ATTEMPTS", "2.5")  # not a whole number: refused
    with pytest.raises(SettingsProblem, match="CRMARENA_TUI_JOIN_ATTEMPTS.*whole number"):
        quick_setting("join_attempts")
    with pytest.raises(SettingsProblem, match="CRMARENA_TUI_JOIN_ATTEMPTS.*whole number"):
        load_settings()


@pytest.mark.parametrize("flag", [None, "flag.db"])
@pytest.mark.parametrize("env", [None, "env.db"])
@pytest.mark.parametrize("file", [None, "file.db"])
def test_one_rule_decides_which_sessions_database_opens(
    flag: str | None,
    env: str | None,
    file: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--db, else CRMARENA_TUI_DB, else the config file's db, else the default place: the
    commands, the app's settings and `Store()` all ask `locations.sessions_db_path`."""
    import argparse

    from crmarena_tui.commands.common import db_path

    locations.config_dir().mkdir(parents=True, exist_ok=True)
    if file:
        locations.config_file().write_text(f'db = "{tmp_path / file}"\n', encoding="utf-8")
    if env:
        monkeypatch.setenv("CRMARENA_TUI_DB", str(tmp_path / env))
    given = tmp_path / flag if flag else None
    expected = tmp_path / (flag or env or file) if (flag or env or file) else None
    expected = expected or locations.data_dir() / "sessions.db"
    assert db_path(argparse.Namespace(db=given)) == expected
    assert load_settings().db_path(given) == expected
    if not flag and not file:
        assert locations.default_db_path() == expected


def test_the_about_box_names_what_chose_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert locations.sessions_db_origin() == "default"
    assert locations.sessions_db_origin(configured=tmp_path / "f.db") == "the config file"
    monkeypatch.setenv("CRMARENA_TUI_DB", str(tmp_path / "e.db"))
    assert locations.sessions_db_origin(configured=tmp_path / "f.db") == "CRMARENA_TUI_DB"
    assert locations.sessions_db_origin(tmp_path / "x.db") == "--db"
