"""The checkers the suite runs are pinned (issue 39): ruff, mypy and import-linter have exact
versions in the `[test]` extra, each with a comment saying why, so a tool release cannot turn the
suite red; and the tools installed are the pinned ones, so what the suite checks is what CI checks.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PINNED = ("ruff", "mypy", "import-linter")


def _test_extra_lines() -> list[str]:
    text = (ROOT / "pyproject.toml").read_text()
    start = text.index("\ntest = [")
    return text[start : text.index("\n]", start)].splitlines()


def _pins() -> dict[str, str]:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins: dict[str, str] = {}
    for spec in extra["optional-dependencies"]["test"]:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)==([0-9][0-9A-Za-z.]*)", spec)
        if found:
            pins[found.group(1)] = found.group(2)
    return pins


@pytest.mark.parametrize("tool", PINNED)
def test_each_checker_is_pinned_exactly_with_a_comment(tool: str) -> None:
    assert tool in _pins(), f"{tool} must be pinned with == in the [test] extra"
    lines = _test_extra_lines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(f'"{tool}=='))
    assert lines[at - 1].strip().startswith(f"# {tool}:"), f"say why {tool} is pinned above it"


@pytest.mark.parametrize("tool", PINNED)
def test_the_installed_checker_is_the_pinned_one(tool: str) -> None:
    installed = importlib.metadata.version(tool)
    assert installed == _pins()[tool], (
        f"{tool} {installed} is installed but {_pins()[tool]} is pinned: "
        "`pip install -e '.[test]'` (or bump the pin, docs/development.md)"
    )


def test_precommit_hooks_run_the_installed_tools() -> None:
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    hooks = config.split("- id: ")[1:]
    assert hooks and all("language: system" in hook for hook in hooks)
    assert "rev:" not in config, "a hook pinned by rev: would download its own tool"
