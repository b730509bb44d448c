"""Screens are composed of parts, not split across files by inheritance: no class in `screens/`
derives from another screen class of the project except the shared base (`BaseScreen`)."""

from __future__ import annotations

import ast
from pathlib import Path

SCREENS = Path(__file__).resolve().parents[2] / "crmarena_tui" / "screens"
SHARED_BASE = "BaseScreen"


def _classes() -> dict[str, tuple[str, list[str]]]:
    """Every class of `screens/`: name -> (its file, the names of its bases)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for path in sorted(SCREENS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b).split("[")[0].split(".")[-1] for b in node.bases]
                found[node.name] = (path.name, bases)
    return found


def _screen_names(classes: dict[str, tuple[str, list[str]]]) -> set[str]:
    """The project's screen classes: those deriving, at any depth, from a Textual screen."""
    screens: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, (_, bases) in classes.items():
            if name not in screens and any(
                b in ("Screen", "ModalScreen") or b in screens for b in bases
            ):
                screens.add(name)
                changed = True
    return screens


def _chained(classes: dict[str, tuple[str, list[str]]]) -> dict[str, str]:
    """Class -> its file, for each class deriving from a project screen other than the base."""
    screens = _screen_names(classes)
    return {
        name: path
        for name, (path, bases) in classes.items()
        if any(b in screens and b != SHARED_BASE for b in bases)
    }


def test_no_screen_class_derives_from_another_but_the_shared_base() -> None:
    assert _chained(_classes()) == {}


def test_the_check_sees_a_chain() -> None:
    classes = {
        "BaseScreen": ("base_screen.py", ["Screen"]),
        "Part": ("part.py", ["BaseScreen"]),
        "Whole": ("whole.py", ["Part"]),
        "Helper": ("helper.py", []),
    }
    assert _screen_names(classes) == {"BaseScreen", "Part", "Whole"}
    assert _chained(classes) == {"Whole": "whole.py"}
