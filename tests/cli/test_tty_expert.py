"""An expert's whole task in a real terminal (tmux): read a 1,500-character transcript in full,
compute an average handle time in the scratch pane from a Case query, submit a picked Id; the
stored session holds those steps in order. Each key waits for what a user would see first."""

from __future__ import annotations

import os
import shutil
import sqlite3
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
SENTENCE = "Customer: my router drops the connection every evening after the update, please help. "
TRANSCRIPT = (SENTENCE * 17).strip() + " END-OF-TRANSCRIPT"
HANDLE = (
    "SELECT OwnerId, AVG(days_between(CreatedDate, ClosedDate)) AS days FROM r2 "
    "GROUP BY OwnerId ORDER BY days LIMIT 1"
)


def org_with_a_long_transcript(tmp_path: Path) -> tuple[Path, str]:
    """A copy of the demo b2b org whose first chat transcript is 1,500 characters long."""
    from crmarena_tui.demo.generator import ensure_demo_org

    org = tmp_path / "org.db"
    shutil.copy(ensure_demo_org("b2b"), org)
    db = sqlite3.connect(org)
    [(chat_id,)] = db.execute("SELECT Id FROM LiveChatTranscript ORDER BY Id LIMIT 1").fetchall()
    db.execute("UPDATE LiveChatTranscript SET Body = ? WHERE Id = ?", (TRANSCRIPT, chat_id))
    db.commit()
    db.close()
    return org, chat_id


def wait_gone(tmux: Tmux, text: str, timeout: float = 30.0) -> None:
    """Wait until the screen no longer shows `text` (plain text)."""
    deadline = time.monotonic() + timeout
    while text in tmux.screen():
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} stayed on the screen:\n{tmux.screen()}")
        time.sleep(0.1)


@pytest.mark.full(
    sample="tests/screens/test_app_read_compute.py::test_the_scratch_pane_computes_over_r1_copies_saves_and_logs"
)
def test_an_expert_reads_computes_and_submits_a_picked_id(tmp_path: Path) -> None:
    assert 1400 <= len(TRANSCRIPT) <= 1600
    org, chat_id = org_with_a_long_transcript(tmp_path)
    db = tmp_path / "sessions.db"
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "crmarena_tui", "play", "--as", "expert"]
    tmux = Tmux(tmp_path / "tmux.sock", [*command, "--db", str(db), "--org", str(org)], env)
    try:
        tmux.wait_for(r"\d+ tasks", timeout=90)
        tmux.wait_for("as expert")
        tmux.filter_tasks("b2b single handle time")
        tmux.keys("Enter")
        tmux.wait_for(r"Run a query with ctrl\+r")

        # read the transcript in full
        tmux.keys(f"SELECT Id, Body FROM LiveChatTranscript WHERE Id = '{chat_id}'", literal=True)
        tmux.keys("C-r")
        tmux.wait_for(r"r1 · 1 record")
        tmux.keys("Tab")  # one step to the results table
        tmux.wait_for(r"v View row")  # the table's keys are in the footer: it has the focus
        tmux.keys("Right")
        tmux.keys("Enter")
        tmux.wait_for(r"Body \(row 1\)")
        tmux.keys("End")
        screen = tmux.wait_for("END-OF-TRANSCRIPT")
        assert "please help. Customer: my router" in screen  # wrapped, not cut
        tmux.keys("Escape")
        wait_gone(tmux, "pgup/pgdn scroll")  # the detail has closed
        tmux.wait_for("v View row")  # and the table has the focus again

        # a Case query, then the average handle time per agent in the scratch pane
        tmux.keys("F2")
        wait_gone(tmux, "v View row")  # the table lost the focus to the editor
        tmux.keys("C-a")  # select all and delete it: the editor shows its placeholder again
        tmux.keys("BSpace")
        tmux.wait_for("Type SOQL or SOSL here")
        tmux.keys(
            "SELECT Id, OwnerId, CreatedDate, ClosedDate FROM Case WHERE Status = 'Closed'",
            literal=True,
        )
        tmux.keys("C-r")
        tmux.wait_for(r"r2 · [\d,]+ records")
        tmux.keys("C-o")
        tmux.wait_for(r"r2  [\d,]+ rows")
        tmux.wait_for("f7 Copy TSV")  # the pane's keys: its input has the focus
        tmux.keys(HANDLE, literal=True)
        tmux.keys("Enter")
        tmux.wait_for(r"1 row × 2 columns")

        # submit the agent the scratch pane found, picked from the list
        tmux.keys("C-s")
        tmux.wait_for("▶ Your answer")  # the answer input has the focus
        tmux.keys("Tab")  # to the list's filter
        tmux.wait_for("typing narrows the list")
        tmux.keys("scratch 1", literal=True)
        wait_gone(tmux, "OwnerId · r2")  # the list shows the scratch output's Id alone
        tmux.keys("Down")  # into the list
        tmux.wait_for("space marks the highlighted item")
        tmux.keys("Space")
        tmux.wait_for(r"Marked: 005")
        tmux.keys("C-s")
        screen = tmux.wait_for("Reward", timeout=60)
        assert "(structured)" in screen and "You picked 005" in screen
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
    events = store.events(session.id)
    steps = [e.kind for e in events if e.kind in ("query", "compute", "submit", "grade")]
    assert steps == ["query", "query", "compute", "submit", "grade"]
    queries = [e.text for e in events if e.kind == "query"]
    assert "LiveChatTranscript" in queries[0] and "FROM Case" in queries[1]
    [compute] = [e for e in events if e.kind == "compute"]
    assert compute.text == HANDLE and compute.payload["columns"] == ["OwnerId", "days"]
    [[owner, days]] = compute.payload["rows"]
    assert owner.startswith("005") and days > 0
    [submit] = [e for e in events if e.kind == "submit"]
    assert submit.payload["structured"] == {"kind": "items", "items": [owner]}
    grade = store.grade(session.id)
    assert grade is not None and grade.extraction == "structured" and grade.answer == owner
