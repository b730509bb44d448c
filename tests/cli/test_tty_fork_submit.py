"""The fork-submit path in a real terminal (tmux), as it crashed (issue 28): a result screen,
`v`, `f`, "Continue as me", `ctrl+s`, an answer, `enter`. The app used to exit to the shell with
DuplicateIds; now the fork's own result screen shows and the app keeps running."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from tests.cli.test_tty_play import ROOT, Tmux

pytestmark = [
    pytest.mark.xdist_group("tty"),  # one after the other: two apps typed into at once race
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]


@pytest.mark.full(
    sample="tests/screens/test_app_fork_submit.py::test_a_fork_submitted_from_the_result_screen_shows_its_own_result"
)
def test_a_fork_submitted_from_a_result_screen_in_a_terminal(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "crmarena_tui", "play", "--as", "expert", "--db", str(db)]
    tmux = Tmux(tmp_path / "tmux.sock", command, env)
    try:
        tmux.wait_for(r"\d+ tasks", timeout=90)
        tmux.filter_tasks("b2b single quote approval")
        tmux.keys("Enter")
        tmux.wait_for(r"Run a query with ctrl\+r")
        tmux.keys("SELECT Id, Name FROM Quote LIMIT 3", literal=True)
        tmux.keys("C-r")
        tmux.wait_for(r"r1 · 3 records")
        tmux.keys("C-s")
        tmux.wait_for("▶ Your answer")
        tmux.keys("None", literal=True)
        tmux.keys("Enter")
        tmux.wait_for("Reward", timeout=60)

        tmux.keys("v")  # the trajectory of this attempt
        tmux.wait_for(r"Step \d+ of \d+")
        tmux.keys("0")  # its first step, before the submission
        tmux.keys("f")
        tmux.wait_for("Continue as me")
        tmux.keys("Enter")
        tmux.wait_for("resumed session · 1 queries", timeout=30)  # the fork, with its query
        tmux.keys("C-s")
        tmux.wait_for("▶ Your answer")
        tmux.keys("None", literal=True)
        tmux.keys("Enter")
        tmux.wait_for("Reward", timeout=60)
        time.sleep(0.5)
        assert tmux.alive()  # still running, on the fork's result screen
        assert "DuplicateIds" not in tmux.screen()
        tmux.keys("C-q")
        deadline = time.monotonic() + 15
        while tmux.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not tmux.alive()
    finally:
        tmux.kill()

    store = Store(db)
    sessions = store.sessions(status="submitted")
    assert sorted(s.kind for s in sessions) == ["attempt", "fork"]
