"""Remember the participant's name in the config file (no textual import).

The config file is TOML read by `config.load_settings()`. A top-level key must come before any
table, so the name is written as the first line; an existing `participant` line is replaced.
"""

from __future__ import annotations

import json
import re

from crmarena_tui import locations

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
