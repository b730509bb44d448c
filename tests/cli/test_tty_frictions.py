"""Issue 29's walk-through in a real terminal at 100x30 (tmux): open a chat task, read its whole
header, send two messages in a row, compute in the scratch pane twice, submit. Focus and terminal
size matter here, so the pilot is not enough."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_tty_play import ROOT, Tmux

pytestmark = [
    pytest.mark.xdist_group("tty"),  # one after the other: two apps typed into at once race
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]
WALK = os.environ.get("CRMARENA_TUI_WALK_LOG")  # a file to keep every capture in (optional)


class SmallTmux(Tmux):
    """A `Tmux` whose window is then made 100x30 (the size the expert found the header cut)."""

    def __init__(self, socket: Path, command: list[str], env: dict[str, str]) -> None:
        super().__init__(socket, command, env)
        subprocess.run([*self.base, "resize-window", "-t", "play", "-x", "100", "-y", "30"])
        self.captures: list[str] = []

    def screen(self) -> str:
        shown = super().screen()
        if not self.captures or self.captures[-1] != shown:
            self.captures.append(shown)
        return shown

    def settle(self, seconds: float = 0.4) -> str:
        time.sleep(seconds)
        return self.screen()


@pytest.mark.full(
    sample="tests/screens/test_app_expert_frictions.py::test_the_chat_header_scrolls_and_is_one_shift_tab_from_the_editor"
)
def test_a_chat_task_walked_through_at_100x30(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "crmarena_tui", "play", "--as", "walker", "--db", str(db)]
    tmux = SmallTmux(tmp_path / "tmux.sock", command, env)
    try:
        tmux.wait_for(r"\d+ tasks", timeout=90)  # a fresh first start builds the demo set
        tmux.filter_tasks("chat lead qualification")
        tmux.keys("Enter")
        first = tmux.wait_for("Customer: Hi!", timeout=30)
        assert len(first.splitlines()[0]) <= 100  # the pane is 100 columns wide

        # the whole header, by keyboard: shift+tab from the editor, then the arrow keys
        tmux.keys("BTab")
        seen = tmux.settle()
        for _ in range(30):
            tmux.keys("Down")
            seen += tmux.settle(0.15)
        flat = " ".join(seen.split())
        assert "Context" in flat and "Lead Id to be considered is:" in flat
        assert "Who you are talking to" in flat and "They are" in flat
        assert "Conversation" in flat and "with ctrl+s." in flat

        # two messages in a row: the second typed at once, the input keeps the focus
        tmux.keys("Escape")  # from the header back to the editor (the workspace stays)
        assert "Customer: Hi!" in tmux.settle()
        tmux.keys("C-t")
        time.sleep(0.3)
        tmux.keys("Which lead?", literal=True)
        tmux.keys("Enter")
        time.sleep(0.3)  # (at a person's pace: keys sent in one burst can arrive as a paste)
        tmux.keys("And then?", literal=True)
        tmux.wait_for(r"You: Which lead\?")
        tmux.settle(1.0)  # the reply has come: enter sends the second message
        tmux.keys("Enter")
        tmux.wait_for(r"You: And then\?")
        chat = tmux.wait_for(r"Customer: (?!Hi!)")
        assert "Return only" not in chat

        # two computations in the scratch pane: the input empties after each
        tmux.keys("C-o")
        tmux.wait_for("No result sets yet")
        tmux.keys("2+2", literal=True)
        tmux.keys("Enter")
        tmux.wait_for("= 4 ")
        tmux.keys("6*7", literal=True)
        tmux.keys("Enter")
        shown = tmux.wait_for("= 42 ")
        assert "6*72+2" not in shown

        # submit
        tmux.keys("C-s")
        tmux.wait_for("Submit your final answer")
        tmux.keys("None", literal=True)
        tmux.keys("Enter")
        result = tmux.wait_for("Reward", timeout=30)
        assert "Ground truth" in result
    finally:
        if WALK:
            Path(WALK).write_text("\n\n".join(tmux.captures), encoding="utf-8")
        tmux.kill()
    assert re.search(r"Reward", "\n".join(tmux.captures))
