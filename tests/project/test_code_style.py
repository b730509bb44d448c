"""The code stays formatted and lint-clean: CI fails on a style or lint error, not only on a test."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _ruff() -> list[str]:
    exe = Path(sys.executable).parent / "ruff"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("ruff")
    if found is None:
        pytest.fail("ruff is not installed: it comes with the project's [test] extra")
    return [found]


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_ruff(), *args], cwd=ROOT, capture_output=True, text=True)


def test_code_is_formatted() -> None:
    out = _run(["format", "--check", "--no-cache", "."])
    assert out.returncode == 0, f"run `ruff format .`:\n{out.stdout}{out.stderr}"


def test_code_passes_lint() -> None:
    out = _run(["check", "--no-cache", "."])
    assert out.returncode == 0, f"run `ruff check .`:\n{out.stdout}{out.stderr}"
