"""Start-up stays light: the command line and the headless core import no heavy or UI library."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import crmarena_tui

TESTS = Path(__file__).parents[1]  # (for the probe: pilot_wait_support)
HEAVY = ("litellm", "datasets", "textual", "simple_salesforce", "pyarrow")
NOT_AT_START = ("pandas", "numpy", "pyarrow", "datasets", "litellm", "sqlite_utils")
# The UI layer is three folders; everything else is the headless core (the same boundary as the
# import-linter contracts in pyproject.toml, here checked by importing rather than by reading).
UI_PACKAGES = ("crmarena_tui.app", "crmarena_tui.screens", "crmarena_tui.widgets")


def _in_ui(name: str) -> bool:
    return any(name == ui or name.startswith(ui + ".") for ui in UI_PACKAGES)


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
        if not _in_ui(m.name) and m.name != "crmarena_tui.__main__"
    ]
    loaded = _loaded_after(f"import importlib\nfor m in {core!r}: importlib.import_module(m)")
    assert "textual" not in loaded
    assert "litellm" not in loaded


# The app started as `play` would: the task rows drawn, the sessions store open, the participant
# known, the demo orgs checked, every start-up worker finished. Then: which modules are loaded.
APP_STARTED = """
import asyncio, json, sys
from pathlib import Path
from crmarena_tui.app.app import CrmArenaApp, PlayOptions
sys.path.insert(0, sys.argv[3])
from tests.support.pilot_wait_support import wait_until

async def main():
    app = CrmArenaApp(PlayOptions(tasks=sys.argv[1], participant="probe", db=Path(sys.argv[2])))
    async with app.run_test(size=(120, 40)) as pilot:
        ready = lambda: app.tasks and app.participant is not None
        await wait_until(pilot, ready, "the tasks and the participant", timeout=240)
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = app.browser.task_list.row_count
    print(json.dumps({"tasks": len(app.tasks), "shown": shown, "modules": sorted(sys.modules)}))

asyncio.run(main())
"""


@pytest.mark.parametrize("source", ["demo", "file.json", "file.jsonl"])
def test_starting_the_app_imports_no_dataframe_or_llm_library(
    source: str, tmp_path: Path, sample_rows_path: Path
) -> None:
    from crmarena_tui.demo.generator import ensure_demo_org

    for org_type in ("b2b", "b2c"):  # built once per test run, outside the probe
        ensure_demo_org(org_type)
    if source != "demo":
        rows = json.loads(sample_rows_path.read_text())
        path = tmp_path / source
        text = (
            json.dumps(rows)
            if source.endswith(".json")
            else "".join(json.dumps(r) + "\n" for r in rows)
        )
        path.write_text(text)
        source = str(path)
    out = subprocess.run(
        [sys.executable, "-c", APP_STARTED, source, str(tmp_path / "s.db"), str(TESTS.parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    started = json.loads(out.stdout.strip().splitlines()[-1])
    assert started["tasks"] > 0 and started["shown"] > 0  # the app really got that far
    assert "crmarena_tui.storage.store" in started["modules"]
    assert [m for m in NOT_AT_START if m in started["modules"]] == []


COMMAND_RUN = """
import contextlib, io, json, sys
from crmarena_tui.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["tasks", "list", "--tasks", "SAMPLE"],
        ["grade", "--tasks", "SAMPLE", "--idx", "203", "--answer", "x"],
        ["query", "--org", "demo:b2b", "SELECT COUNT() FROM Case"],
        ["run", "--agent", "reference", "--tasks", "demo", "--limit", "1", "--db", "DB"],
    ],
    ids=lambda argv: argv[0],
)
def test_commands_that_need_no_dataframes_load_none(
    argv: list[str], tmp_path: Path, sample_rows_path: Path
) -> None:
    argv = [{"SAMPLE": str(sample_rows_path), "DB": str(tmp_path / "s.db")}.get(a, a) for a in argv]
    out = subprocess.run(
        [sys.executable, "-c", COMMAND_RUN, *argv], capture_output=True, text=True, check=True
    )
    ran = json.loads(out.stdout.strip().splitlines()[-1])
    assert ran["code"] == 0 and ran["out"], out.stderr  # the command did its work
    assert [m for m in NOT_AT_START if m in ran["modules"]] == []
