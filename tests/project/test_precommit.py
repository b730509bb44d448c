"""The committed pre-commit configuration runs with only what the project installs (issue 27):
its hooks are local (`language: system`) and pass over every file of the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not (ROOT / ".git").exists() or shutil.which("git") is None, reason="needs a git checkout"
)


def _pre_commit(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    bin_dir = str(Path(sys.executable).parent)  # ruff and check-added-large-files live there
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_hook_is_local_and_passes_over_every_file(tmp_path: Path) -> None:
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    assert "repo: local" in config and "https://" not in config
    result = _pre_commit("run", "--all-files", "--show-diff-on-failure", home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    for hook in ("ruff check", "ruff format --check", "no file over 500 KB"):
        assert hook in result.stdout
