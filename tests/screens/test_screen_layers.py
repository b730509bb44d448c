"""The app composes screens and screens compose widgets, never the other way (docs/ARCHITECTURE.md,
"Screens and widgets"): import-linter's `layers` contract holds it for imports that run, this test
for the type hints too; and a screen's parts never look up the screen's widgets."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "crmarena_tui"

ORDER = ("app", "screens", "widgets")  # each may import only the folders after it


def _imports(path: Path) -> list[str]:
    """Every module `path` imports: module level, in functions and under TYPE_CHECKING."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
    return found


def test_no_screen_or_widget_imports_a_folder_above_it_even_for_type_hints() -> None:
    upward = []
    for below, folder in enumerate(ORDER[1:], start=1):
        above = tuple(f"crmarena_tui.{name}" for name in ORDER[:below])
        for path in sorted((PACKAGE / folder).glob("*.py")):
            upward += [
                f"{folder}/{path.name} -> {name}"
                for name in _imports(path)
                if name in above or name.startswith(tuple(a + "." for a in above))
            ]
    assert upward == []


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` over the package at `root`, with its pyproject's contracts."""
    return subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_widget_importing_a_screen_breaks_the_layers_contract(tmp_path: Path) -> None:
    shutil.copytree(
        PACKAGE, tmp_path / "crmarena_tui", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "crmarena_tui" / "widgets" / "upward.py").write_text(
        "from crmarena_tui.screens.workspace import Workspace\n"
    )
    run = _lint(tmp_path)
    assert run.returncode == 1
    assert "crmarena_tui.widgets.upward -> crmarena_tui.screens.workspace" in run.stdout


LOOKUP_IN_SCREEN = re.compile(r"\.(?:app\.)?screen\.(?:query|query_one|get_child_by_id)\(")


def test_no_screen_part_or_widget_looks_up_the_screens_widgets() -> None:
    """A part is handed the widgets it drives (screens/screen_part.py); a widget drives its own."""
    found = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for folder in ("screens", "widgets")
        for path in sorted((PACKAGE / folder).glob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if LOOKUP_IN_SCREEN.search(line) or "self.workspace." in line or "self.host." in line
    ]
    assert found == []
