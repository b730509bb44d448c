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
    `CRMARENA_TUI_<NAME>`, else the config file's top level, by the same rule. When neither sets
    it, or the value is not valid (`load_settings` reports that one): `default`, else the
    setting's default."""
    rule = RULES[name]
    fallback = rule.default if default is None else default
    value: object = os.environ.get(f"CRMARENA_TUI_{name.upper()}")
    if value is None:
        value = file_setting(name)
    if value is None:
        return fallback
    try:
        return rule.read(value)
    except ValueError:
        return fallback


def file_setting(name: str) -> object | None:
    """The config file's top-level `name` as TOML gives it; None when it is not set or the file
    cannot be read (an unreadable config file is left to `load_settings` to report)."""
    try:
        text = locations.config_file().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    import tomllib  # only when there is a file to read (the app's first rows wait for this)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    return data.get(name)
