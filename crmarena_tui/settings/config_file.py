"""Remember the participant's name in the config file, and read a setting before the settings
are loaded (no textual import).

The config file is TOML read by `config.load_settings()`. A top-level key must come before any
table, so the name is written as the first line; an existing `participant` line is replaced.

`quick_setting` reads one top-level setting the way `load_settings` finds it (the environment's
`CRMARENA_TUI_<NAME>`, then the config file) and parses it by the same rule
(`setting_rules.py`), with the standard library only: the app decides blind mode with it before
drawing its first task rows, without importing pydantic-settings.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from crmarena_tui.settings import locations
from crmarena_tui.settings.setting_rules import RULES

PARTICIPANT_LINE = re.compile(r"^\s*participant\s*=.*$", re.MULTILINE)


def remember_participant(name: str) -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    line = f"participant = {json.dumps(name)}"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if PARTICIPANT_LINE.search(text):
        text = PARTICIPANT_LINE.sub(line, text, count=1)
    else:
        text = f"{line}\n{text}"
    path.write_text(text, encoding="utf-8")


def quick_setting(name: str, default: Any = None) -> Any:
    """The setting `name` (one of `setting_rules.RULES`) as `load_settings` reads it: from
    `CRMARENA_TUI_<NAME>`, else the config file's top level, by the same rule; when neither sets
    it, `default`, else the setting's default.

    A config file that is not TOML, or any of these settings with a value its rule refuses,
    raises `SettingsProblem` with `load_settings`'s line: every command stops on a broken
    config alike (a `blind = true` in a broken file must not read as blind off)."""
    found = _read_quick_settings().get(name)
    if found is None:
        return RULES[name].default if default is None else default
    return found


def check_config() -> None:
    """Raise `SettingsProblem` when the config file is not TOML or a setting `quick_setting`
    reads has a value its rule refuses (the command line checks this before every command)."""
    _read_quick_settings()


def _read_quick_settings() -> dict[str, Any]:
    """Every setting of `RULES` that the environment or the config file sets, read by its rule;
    the first refused value raises `SettingsProblem`."""
    from crmarena_tui.settings.config_problem import SettingsProblem, bad_value

    data = _config_data()
    read: dict[str, Any] = {}
    for key, rule in RULES.items():
        variable = f"CRMARENA_TUI_{key.upper()}"
        value: object = os.environ.get(variable)
        if value is None:
            value = data.get(key)
        if value is None:
            continue
        try:
            got = rule.read(value)
        except ValueError as exc:
            where = locations.config_file()
            raise SettingsProblem(bad_value(key, value, str(exc), where, "CRMARENA_TUI_")) from None
        read[key] = got
    return read


def file_setting(name: str) -> object | None:
    """The config file's top-level `name` as TOML gives it; None when it is not set. A file that
    is not TOML raises `SettingsProblem`, as `load_settings` does."""
    return _config_data().get(name)


def _config_data() -> dict[str, Any]:
    """The config file as TOML gives it (empty when there is no file to read)."""
    path = locations.config_file()
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    import tomllib  # only when there is a file to read (the app's first rows wait for this)

    from crmarena_tui.settings.config_problem import SettingsProblem, toml_error

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsProblem(toml_error(path, exc)) from None
