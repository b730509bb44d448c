"""Where the tests live (issue 39, item 6; docs/development.md, "Where the tests live"): `tests/`
mirrors the package folders, helpers are named one way and never collected, a snapshot folder sits
next to its test module, and every module is imported by its full name, never through sys.path."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source_tree_support import parsed

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = TESTS.parent / "crmarena_tui"
# Test folders that mirror no package folder, and the folders that hold no tests.
EXTRA = {"cli", "project"}
NOT_TESTS = {"support", "fakes"}
SKIPPED = {"data", "__snapshots__", "__pycache__"}


def _folders() -> list[Path]:
    return sorted(
        p for p in TESTS.rglob("*") if p.is_dir() and not SKIPPED & set(p.relative_to(TESTS).parts)
    )


def _modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if not SKIPPED & set(p.relative_to(TESTS).parts))


def _defines_a_test(path: Path) -> bool:
    tree = parsed(path)
    return any(
        (isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test"))
        or (isinstance(n, ast.ClassDef) and n.name.startswith("Test"))
        for n in tree.body
    )


def test_the_test_folders_are_the_package_folders() -> None:
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    top = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name not in SKIPPED}
    assert top - packages - EXTRA - NOT_TESTS == set(), "a test folder no package folder has"
    assert packages - top == set(), "a package folder without its tests/ folder"
    loose = [p.name for p in TESTS.glob("*.py") if p.name not in ("conftest.py", "__init__.py")]
    assert loose == [], f"modules at tests/'s top (move them to their folder): {loose}"


def test_every_folder_is_a_package() -> None:
    missing = [
        str(f.relative_to(TESTS)) for f in [TESTS, *_folders()] if not (f / "__init__.py").exists()
    ]
    assert missing == []


def test_helpers_are_named_one_way_and_test_modules_hold_tests() -> None:
    wrong = []
    for path in _modules():
        rel = path.relative_to(TESTS)
        if path.name in ("__init__.py", "conftest.py"):
            continue
        if rel.parts[0] == "support":
            if not path.name.endswith("_support.py") or path.name.startswith("test_"):
                wrong.append(f"{rel}: a helper is named *_support.py")
        elif rel.parts[0] == "fakes":
            if path.name.startswith("test_"):
                wrong.append(f"{rel}: a fake is not a test module")
        elif not path.name.startswith("test_"):
            wrong.append(f"{rel}: a helper goes to tests/support/ as *_support.py")
        elif not _defines_a_test(path):
            wrong.append(f"{rel}: a test module with no test (a helper? tests/support/)")
    assert wrong == []


def test_snapshots_sit_next_to_their_test_module() -> None:
    modules = [s for f in TESTS.rglob("__snapshots__") for s in f.iterdir() if s.is_dir()]
    assert len(modules) >= 5  # the check sees the snapshot tests' folders
    orphans = [
        str(shots.relative_to(TESTS))
        for shots in modules
        if not (shots.parent.parent / f"{shots.name}.py").exists()
    ]
    assert orphans == [], "pytest-textual-snapshot reads them next to the test module"


def test_no_test_module_puts_a_folder_on_sys_path() -> None:
    found = []
    for path in _modules():
        for node in ast.walk(parsed(path)):
            call = node.func if isinstance(node, ast.Call) else None
            if isinstance(call, ast.Attribute) and ast.unparse(call.value) == "sys.path":
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert found == [], "import helpers by their full name (tests.support.x_support)"
