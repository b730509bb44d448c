"""The package type-checks: CI fails on a type error, not only on a failing test.

mypy runs over `crmarena_tui` with the settings in pyproject.toml (`[tool.mypy]`): mypy's default
strictness, plus `check_untyped_defs` (bodies of unannotated functions are checked too) and
`warn_unused_ignores` (a `# type: ignore` with nothing left to ignore is itself an error).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _mypy() -> list[str]:
    exe = Path(sys.executable).parent / "mypy"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("mypy")
    if found is None:
        pytest.fail("mypy is not installed: it comes with the project's [test] extra")
    return [found]


def test_the_type_check_is_configured_at_the_stated_strictness() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["crmarena_tui"]
    assert config["check_untyped_defs"] is True
    assert config["warn_unused_ignores"] is True


@pytest.mark.slow
def test_package_has_no_type_errors() -> None:
    out = subprocess.run(
        _mypy(),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, f"mypy found type errors:\n{out.stdout}{out.stderr}"
