"""No key is lost or lands in the wrong place (issue 36), in a real terminal (tmux).

Each transition (a task opened, a focus key, a task resumed, the submit dialog, a chat message, a
fork, a study's join refusal) is followed by keys sent 0, 50, 200 and 1,000 ms after the
transition's own key; then the screen and the sessions database must show that every key did
what the screen showed. The delays are the stimulus (the only sleeps); every wait for a result
polls the screen or the database with a deadline. One app per test: the delays are walked in it.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from tests.cli.test_tty_play import ROOT, Tmux

pytestmark = [
    pytest.mark.xdist_group("tty"),  # one after the other: two apps typed into at once race
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]
DELAYS = (0.0, 0.05, 0.2, 1.0)  # seconds after the transition's key
BROWSER = r"\d+ of [\d,]+ tasks|\d+ tasks"


def start(tmp_path: Path, *args: str) -> tuple[Tmux, Path]:
    db = tmp_path / "sessions.db"
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "crmarena_tui", "play", "--db", str(db), *args]
    return Tmux(tmp_path / "tmux.sock", command, env), db


def after(tmux: Tmux, key: str, delay: float, *then: tuple[str, bool]) -> None:
    """`key` (the transition), then `delay` seconds later each of `then` (keys, literal?), sent
    at once one after the other."""
    tmux.keys(key)
    if delay:
        time.sleep(delay)  # the stimulus: keys typed this soon after the transition's key
    for keys, literal in then:
        tmux.keys(keys, literal=literal)


def until(what: str, check: Callable[[], object], timeout: float = 30.0) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def queries(db: Path, task_type: str) -> list[str]:
    store = Store(db)
    found = []
    for session in store.sessions():
        if session.task_type == task_type:
            found += [e.text for e in store.events(session.id) if e.kind == "query"]
    return found


def leave_task(tmux: Tmux, back_to: str = BROWSER) -> None:
    """Back to the task browser (or the screen under the task) from the editor: escape asks
    first, enter leaves."""
    tmux.keys("Escape")
    tmux.wait_for("Leave this task")
    tmux.keys("Enter")
    tmux.wait_for(back_to)


def session_queries(db: Path) -> list[list[str]]:
    """The queries of each attempt, in the order the attempts were started."""
    store = Store(db)
    attempts = sorted((s for s in store.sessions() if s.kind == "attempt"), key=lambda s: s.id)
    return [[e.text for e in store.events(s.id) if e.kind == "query"] for s in attempts]


@pytest.mark.full(
    sample="tests/app/test_app_keys_in_order.py::test_a_query_and_ctrl_r_typed_as_the_task_opens_run_in_it"
)
def test_open_focus_resume_and_submit_keys_typed_at_once(tmp_path: Path) -> None:
    tmux, db = start(tmp_path, "--as", "fast typist")
    try:
        tmux.wait_for(r"\d+ tasks", timeout=90)
        tmux.filter_tasks("b2b single handle time")  # one task per delay: rows 0 to 3
        for n, delay in enumerate(DELAYS):
            # opening a task: the query typed and ctrl+r at once run once the task is open
            if n:
                tmux.keys("Down")  # back from a task the list has the focus, on that task
            after(tmux, "Enter", delay, ("SELECT COUNT() FROM Case", True), ("C-r", False))
            tmux.wait_for(r"COUNT\(\) = \d+")
            until("the query stored", lambda n=n: len(session_queries(db)) == n + 1)
            assert session_queries(db)[n] == ["SELECT COUNT() FROM Case"], delay

            # focus keys: from the results, f2 then ctrl+a and a new query replace the old one
            tmux.keys("Tab")
            after(tmux, "F2", delay, ("C-a", False), ("SELECT Id FROM Case LIMIT 2", True))
            tmux.keys("C-r")
            tmux.wait_for(r"r2 · 2 records")
            assert session_queries(db)[n][-1] == "SELECT Id FROM Case LIMIT 2", delay

            # the submit dialog: tab then typing filters the pick list, the answer stays empty
            after(tmux, "C-s", delay, ("Tab", False), ("zq", True))
            shown = tmux.wait_for(r"zq")
            answer, _, picks = shown.partition("or mark")
            assert "▶ … or mark" in shown and "zq" in picks and "zq" not in answer, delay
            tmux.keys("Escape")  # clears the filter
            tmux.keys("Escape")  # cancels the dialog
            until("the dialog closed", lambda: "Submit your final" not in tmux.screen())
            leave_task(tmux)

        for n, delay in enumerate(DELAYS):
            # resuming (rows 3 to 0): ctrl+a and a query typed at once replace the editor's
            if n:
                tmux.keys("Up")
            after(tmux, "Enter", delay, ("C-a", False), ("SELECT Id FROM User LIMIT 1", True))
            tmux.keys("C-r")
            tmux.wait_for(r"r3 · 1 records?")
            assert session_queries(db)[3 - n][-1] == "SELECT Id FROM User LIMIT 1", delay
            if delay < DELAYS[-1]:
                leave_task(tmux)

        # typed text and a marked item: the dialog asks which one is sent
        after(tmux, "C-s", 0.0, ("None", True), ("Down", False), ("Space", False))
        tmux.wait_for("Marked: ")
        tmux.keys("C-s")
        tmux.wait_for("Which answer is sent")
        tmux.keys("Escape")  # back to the dialog: nothing was sent
        tmux.wait_for("Marked: ")
        tmux.keys("BTab", "BTab")  # to the answer, still holding "None"
        tmux.keys("Enter")
        tmux.wait_for("Which answer is sent")
        tmux.keys("t")  # the typed text
        tmux.wait_for("Reward", timeout=60)

        # forking: keys typed as "Continue as me" is chosen go to the fork's editor
        tmux.keys("v")
        tmux.wait_for(r"Step \d+ of \d+")
        tmux.keys("0")
        for n, delay in enumerate(DELAYS):
            tmux.keys("f")
            tmux.wait_for("Continue as me")
            query = f"SELECT Id FROM Account LIMIT {n + 1}"
            after(tmux, "Enter", delay, ("C-a", False), (query, True), ("C-r", False))
            tmux.wait_for(rf"r\d+ · {n + 1} records?")
            leave_task(tmux, back_to=r"Step \d+ of \d+")
    finally:
        tmux.kill()
    store = Store(db)
    [submitted] = store.sessions(status="submitted")
    [submit] = [e for e in store.events(submitted.id) if e.kind == "submit"]
    assert submit.text == "None"
    forks = sorted((s for s in store.sessions() if s.kind == "fork"), key=lambda s: s.id)
    last = [[e.text for e in store.events(s.id) if e.kind == "query"][-1] for s in forks]
    assert last == [f"SELECT Id FROM Account LIMIT {n + 1}" for n in range(len(DELAYS))]


@pytest.mark.full(
    sample="tests/screens/test_app_expert_frictions.py::test_enter_while_the_reply_is_awaited_queues_the_message"
)
def test_chat_messages_typed_at_once_are_all_sent(tmp_path: Path) -> None:
    tmux, db = start(tmp_path, "--as", "chatter")
    try:
        tmux.wait_for(r"\d+ tasks", timeout=90)
        tmux.filter_tasks("chat lead qualification")
        sent: list[str] = []
        for n, delay in enumerate(DELAYS):
            if n % 2 == 0:  # two delays per task: the customer answers a few questions only
                if n:
                    tmux.keys("Escape")  # from the chat back to the editor
                    tmux.wait_for("escape again asks to leave")
                    leave_task(tmux)
                    tmux.keys("Down")  # the next chat task
                tmux.keys("Enter")
                tmux.wait_for("Customer: Hi!")
                tmux.keys("C-t")
            first, second = f"Could you tell me more {n}a?", f"Could you tell me more {n}b?"
            tmux.keys(first, literal=True)
            after(tmux, "Enter", delay, (second, True), ("Enter", False))
            sent += [first, second]
            for message in (first, second):
                tmux.wait_for(re.escape(f"You: {message}"))
            until("both replies", lambda n=n: len(human(db)) == 2 * (n + 1))
    finally:
        tmux.kill()
    assert human(db) == sent


def human(db: Path) -> list[str]:
    store = Store(db)
    return [
        e.text
        for s in sorted(store.sessions(), key=lambda s: s.id)
        for e in store.events(s.id)
        if e.kind == "message" and e.actor == "human"
    ]


def test_keys_typed_while_a_join_code_is_checked_go_to_the_code(tmp_path: Path) -> None:
    from tests.support.study_app_support import make_study

    db = tmp_path / "sessions.db"
    codes = make_study(db)
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT),
        "CRMARENA_TUI_JOIN_DELAY_SECONDS": "0.1",  # refusals at 0.1, 0.2, 0.4, 0.8 s
    }
    command = [sys.executable, "-m", "crmarena_tui", "play", "--study", "pilot", "--db", str(db)]
    tmux = Tmux(tmp_path / "tmux.sock", command, env)
    try:
        tmux.wait_for("Join code", timeout=60)
        tmux.keys("ann", literal=True)
        after(tmux, "Enter", 0.0, ("WRONG", True))  # the code typed at once goes to its field
        tmux.wait_for("WRONG")
        for n, delay in enumerate(DELAYS):  # each wrong code is refused, the next one typed
            after(tmux, "Enter", delay, (f"abc{n}", True))
            tmux.wait_for(rf"▊\s+abc{n}\s+▎")  # after the refusal, alone in the code field
            tmux.wait_for("do not match")
        tmux.keys("C-u")
        tmux.keys(codes["ann"], literal=True)
        tmux.keys("Enter")
        tmux.wait_for("as ann")
    finally:
        tmux.kill()
