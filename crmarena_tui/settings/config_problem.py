"""What is wrong with a setting, in one line naming where it came from (config.load_settings).

A setting is read from a command's option, else the environment (`CRMARENA_TUI_<KEY>`), else the
config file's top level: the message names the variable, or the file, the key's line and the key,
and says what the value must be, without pydantic's class names or links.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from crmarena_tui.errors import ExitCode, UserError

KINDS = {  # what a setting of this kind must be, as a variable or a config file value
    "dict": """a table of names to text (in a variable: a JSON object, e.g. '{"a.b": "f5"}')""",
    "list": """a list of text (in a variable: a JSON list, e.g. '["wrong field", "other"]')""",
}
FIELD = re.compile(r'field "(\w+)"')


class SettingsProblem(UserError):
    """A setting that cannot be read; the message names the file and line, or the variable.
    A usage error (exit code 2), as a bad option is, whichever command reads it."""

    exit_code = ExitCode.USAGE


def toml_error(path: Path, exc: Exception) -> str:
    """A config file that is not TOML: the file, and the line and column tomllib names."""
    return f"{path}: not valid TOML: {exc}; fix the file or move it away"


def env_parse_error(message: str, settings_cls: Any) -> str:
    """pydantic-settings' "error parsing value for field X from source EnvSettingsSource"."""
    match = FIELD.search(message)
    key = match.group(1) if match else "?"
    annotation = str(settings_cls.model_fields[key].annotation) if match else ""
    kind = "dict" if "dict" in annotation else "list" if "list" in annotation else ""
    need = KINDS.get(kind, "JSON")
    return f"the variable {env_name(key)} (setting '{key}') is not valid: it must be {need}"


def bad_value(key: str, value: object, problem: str, path: Path, prefix: str) -> str:
    """One setting's value refused by its rule, worded as `describe` words pydantic's error."""
    problem = problem[:1].lower() + problem[1:]
    return f"{where(key, {}, path, prefix)}: setting '{key}': {problem} (got {value!r:.60})"


def env_name(key: str) -> str:
    return f"CRMARENA_TUI_{key.upper()}"


def describe(
    errors: Sequence[Mapping[str, Any]], given: Mapping[str, Any], path: Path, prefix: str
) -> str:
    """Every bad setting of a validation error, each as `<where>: setting '<key>' <problem>`."""
    parts = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ())]
        key = loc[0] if loc else "?"
        inner = f" (entry {'.'.join(loc[1:])})" if len(loc) > 1 else ""
        value = f" (got {err.get('input')!r:.60})" if "input" in err else ""
        # a setting_rules.Rule's ValueError comes as "Value error, <what it must be>"
        problem = str(err.get("msg", "is not valid")).removeprefix("Value error, ")
        problem = problem[:1].lower() + problem[1:]
        parts.append(f"{where(key, given, path, prefix)}: setting '{key}'{inner}: {problem}{value}")
    return "; ".join(parts)


def where(key: str, given: Mapping[str, Any], path: Path, prefix: str) -> str:
    """Where the value of `key` came from: the command line, a variable, or the file's line."""
    if key in given:
        return "the command line"
    variable = f"{prefix}{key}".upper()
    if any(name.upper() == variable for name in os.environ):
        return f"the variable {variable}"
    line = key_line(path, key)
    return f"{path}, line {line}" if line else str(path)


def key_line(path: Path, key: str) -> int | None:
    """The line of the config file that sets top-level `key`, if one does."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    pattern = re.compile(rf"""^\s*["']?{re.escape(key)}["']?\s*=""")
    for n, text in enumerate(lines, 1):
        if text.lstrip().startswith("["):  # a table: top-level keys come before any
            break
        if pattern.match(text):
            return n
    return None
