"""Start-up stays light: the command line and the headless core import no heavy or UI library."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import crmarena_tui

HEAVY = ("litellm", "datasets", "textual", "simple_salesforce", "pyarrow")
UI_MODULES = (
    "crmarena_tui.app",
    "crmarena_tui.messages",
    "crmarena_tui.screens",
    "crmarena_tui.widgets",
    "crmarena_tui.commands.play",
)


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cli_imports_nothing_heavy() -> None:
    loaded = _loaded_after("import crmarena_tui.cli")
    assert [m for m in HEAVY if m in loaded] == []


def test_building_the_whole_parser_imports_nothing_heavy() -> None:
    loaded = _loaded_after("from crmarena_tui.cli import build_parser; build_parser()")
    assert [m for m in HEAVY if m in loaded] == []


def test_core_never_imports_textual_or_litellm() -> None:
    core = [
        m.name
        for m in pkgutil.walk_packages(crmarena_tui.__path__, "crmarena_tui.")
        if not m.name.startswith(UI_MODULES) and m.name != "crmarena_tui.__main__"
    ]
    loaded = _loaded_after(f"import importlib\nfor m in {core!r}: importlib.import_module(m)")
    assert "textual" not in loaded
    assert "litellm" not in loaded
