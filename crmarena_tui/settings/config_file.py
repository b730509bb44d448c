"""Remember the participant's name in the config file, and read a setting before the settings
are loaded (no textual import).

The config file is TOML read by `config.load_settings()`. A top-level key must come before any
table, so the name is written as the first line; an existing `participant` line is replaced.

`quick_setting` reads one top-level setting the way `load_settings` finds it (the environment's
`CRMARENA_TUI_<NAME>`, then the config file) with the standard library only: the app decides
blind mode with it before drawing its first task rows, without importing pydantic-settings.
"""

from __future__ import annotations

import json
import os
import re

from crmarena_tui.settings import locations

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


TRUE_WORDS = frozenset({"1", "true", "t", "yes", "y", "on"})


def quick_setting(name: str) -> object | None:
    """The setting `name` from `CRMARENA_TUI_<NAME>`, else the config file's top level; None
    when neither sets it (an unreadable config file is left to `load_settings` to report)."""
    env = os.environ.get(f"CRMARENA_TUI_{name.upper()}")
    if env is not None:
        return env
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


def as_flag(value: object) -> bool:
    """A boolean setting's value as `load_settings` reads it (`1`, `true`, `yes`, `on`...)."""
    if isinstance(value, str):
        return value.strip().lower() in TRUE_WORDS
    return bool(value)
