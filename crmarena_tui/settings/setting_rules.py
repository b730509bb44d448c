"""How the settings read before pydantic-settings is loaded turn a value into a setting, in one
place: `config.Settings` validates these fields with the same `Rule.read` (a `BeforeValidator`),
and `config_file.quick_setting` reads them with it, standard library only.

A value is text (an environment variable) or a TOML value (the config file). `Rule.read` returns
the setting or raises `ValueError` saying what it must be; `load_settings` reports that as a
`SettingsProblem`, `quick_setting` falls back to the default (the settings loaded later report
it). tests/settings/test_setting_rules.py checks with generated values that both readers agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TRUE_WORDS = frozenset({"1", "true", "t", "yes", "y", "on"})
FALSE_WORDS = frozenset({"0", "false", "f", "no", "n", "off"})


def flag(value: object) -> bool:
    """A yes or no: a TOML boolean, 0 or 1, or a word (`true`/`false`, `yes`/`no`, `on`/`off`,
    `1`/`0`, any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise ValueError("must be true or false (yes/no, on/off, 1/0)")


def whole(value: object) -> int:
    """A whole number: a TOML integer (or a float with no fraction), or its digits as text
    (`_` between digits allowed, as TOML allows them)."""
    if isinstance(value, bool):
        raise ValueError("must be a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        digits = value.strip()
        if digits.lstrip("+-").replace("_", "").isdigit() and "__" not in digits:
            return int(digits)
    raise ValueError("must be a whole number")


def number(value: object) -> float:
    """A number: a TOML integer or float, or one as text."""
    if isinstance(value, bool):
        raise ValueError("must be a number")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise ValueError("must be a number")


def text(value: object) -> str:
    if isinstance(value, str):
        return value
    raise ValueError("must be text")


def path(value: object) -> Path:
    """A file's path: text (or a path, given by a command's option)."""
    return value if isinstance(value, Path) else Path(text(value))


@dataclass(frozen=True, slots=True)
class Rule:
    """One setting: how a value is read (`parse`), its bounds, and its default."""

    parse: Callable[[object], Any]
    default: Any = None
    gt: float | None = None  # the value must be greater than this
    ge: float | None = None  # ... or at least this

    def read(self, value: object) -> Any:
        """The setting `value` gives; raises `ValueError` saying what it must be. None stays
        None (an unset optional setting)."""
        if value is None:
            return None
        got = self.parse(value)
        if isinstance(got, float) and math.isnan(got):
            raise ValueError("must be a number")
        if self.gt is not None and not got > self.gt:
            raise ValueError(f"must be greater than {self.gt:g}")
        if self.ge is not None and not got >= self.ge:
            raise ValueError(f"must be at least {self.ge:g}")
        return got


# Every setting the code reads with `quick_setting` (before the settings are loaded), and every
# yes-or-no setting, so that all of them read a word alike.
RULES: dict[str, Rule] = {
    "lenient": Rule(flag, default=False),
    "hidden_labels": Rule(flag, default=False),
    "db": Rule(path),
    "participant": Rule(text),
    "blind": Rule(flag, default=False),
    "event_text_limit": Rule(whole, default=1_000_000, gt=0),
    "join_attempts": Rule(whole, default=5, gt=0),
    "join_delay_seconds": Rule(number, default=1.0, ge=0),
    "join_lockout_minutes": Rule(number, default=15.0, ge=0),
}
