"""The real app in a real terminal (tmux): browse, query, submit, quit; the session is stored."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crmarena_tui.storage import Store

pytestmark = [
    pytest.mark.xdist_group("tty"),  # one after the other: two apps typed into at once race
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]
ROOT = Path(__file__).resolve().parents[2]


class Tmux:
    """One detached tmux session on a private socket, 120x40."""

    def __init__(self, socket: Path, command: list[str], env: dict[str, str]) -> None:
        self.base = ["tmux", "-S", str(socket)]
        # pytest-xdist workers have COLUMNS=80 and LINES=24 set, which the app would take as its
        # size instead of the pane's 120x40.
        env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}
        shell_cmd = " ".join(_quote(c) for c in command)
        subprocess.run(
            [
                *self.base,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "play",
                "-x",
                "120",
                "-y",
                "40",
                shell_cmd,
            ],
            check=True,
            env=env,
            cwd=ROOT,
        )

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run(
            [*self.base, "send-keys", "-t", "play", *(["-l"] if literal else []), *keys], check=True
        )

    def screen(self) -> str:
        out = subprocess.run(
            [*self.base, "capture-pane", "-p", "-t", "play"], capture_output=True, text=True
        )
        return out.stdout

    def filter_tasks(self, words: str) -> str:
        """`/` and `words` in the task browser, sent in one burst as a fast typist types them
        (whether or not the rows have arrived yet); waits until the filter shows exactly `words`
        and the count says the list narrowed. A key lost on the way fails the test."""
        subprocess.run(
            [*self.base, "send-keys", "-t", "play", "/", ";"]
            + ["send-keys", "-t", "play", "-l", words],
            check=True,
        )
        self.wait_for(rf"▊\s+{re.escape(words)}\s+▎")  # the filter, whole
        return self.wait_for(r"\d+ of [\d,]+ tasks")  # and the list narrowed

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        """Wait until the screen shows `text` (a regular expression)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if re.search(text, screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")

    def alive(self) -> bool:
        return (
            subprocess.run(
                [*self.base, "has-session", "-t", "play"], capture_output=True
            ).returncode
            == 0
        )

    def kill(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


def test_browse_query_submit_in_a_terminal(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    tmux = Tmux(
        tmp_path / "tmux.sock",
        [sys.executable, "-m", "crmarena_tui", "play", "--as", "tty tester", "--db", str(db)],
        env,
    )
    try:
        tmux.wait_for(r"\d+ tasks", timeout=60)  # "528 tasks": the demo tasks are listed
        tmux.wait_for("as tty tester")
        tmux.filter_tasks("b2b single top issue")  # the list narrowed, as a user sees
        tmux.keys("Enter")
        tmux.wait_for(r"Run a query with ctrl\+r")
        tmux.keys("SELECT COUNT() FROM Case", literal=True)
        tmux.keys("C-r")
        tmux.wait_for(r"COUNT\(\) = \d+")
        tmux.keys("C-s")
        tmux.wait_for("Submit your final answer")
        tmux.keys("None of them", literal=True)
        tmux.keys("Enter")
        screen = tmux.wait_for("Reward")
        assert "Ground truth" in screen and "Queries 1" in screen
        tmux.keys("Escape")
        tmux.wait_for(r"\d+ tasks")
        tmux.keys("C-q")
        deadline = time.monotonic() + 15
        while tmux.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not tmux.alive()
    finally:
        tmux.kill()
    store = Store(db)
    [session] = store.sessions(status="submitted")
    assert session.task_type == "top_issue_identification"
    kinds = [e.kind for e in store.events(session.id)]
    assert kinds.count("query") == 1 and "submit" in kinds and "grade" in kinds
    assert store.grade(session.id) is not None
