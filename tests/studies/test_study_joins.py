"""A study's join screen on a host anyone can reach (issue 28): one message for an unknown name
or a wrong code, a name locked after 5 wrong codes for 15 minutes whichever connections and
processes they came from, every try logged with its time and connection, each refusal of one
connection later than the one before, and no participant list from `play --study`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from textual.widgets import Input

from crmarena_tui.screens.join_screen import JoinScreen
from crmarena_tui.storage import Store
from crmarena_tui.studies import db
from crmarena_tui.studies.joins import REFUSED, JoinLocked, JoinRules, join_log
from crmarena_tui.studies.mode import open_study
from crmarena_tui.studies.model import StudyError
from tests.support.app_support import SIZE, screen_text
from tests.support.app_support import wait_for_workers as settle
from tests.support.study_app_support import make_study, study_app
from tests.support.study_support import cli


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_name_locks_after_five_wrong_codes_for_fifteen_minutes(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    clock = Clock()
    with Store(path, clock=clock) as store:
        refusals = []
        for n in range(5):
            with pytest.raises(StudyError) as info:
                open_study(store, "pilot", "ann", f"WRONG{n}", rules=JoinRules())
            refusals.append(str(info.value))
            clock.now += 1
        with pytest.raises(StudyError) as unknown:
            open_study(store, "pilot", "zed", codes["ann"])
        assert refusals == [REFUSED] * 5 and str(unknown.value) == REFUSED  # the same words
        with pytest.raises(JoinLocked, match="try again in 15 min"):
            open_study(store, "pilot", "ann", codes["ann"])  # the right code, too late
        assert open_study(store, "pilot", "bob", codes["bob"]).participant == "bob"
        clock.now += 14 * 60
        with pytest.raises(JoinLocked, match="try again in 1 min"):
            open_study(store, "pilot", "ann", codes["ann"])
        clock.now += 60
        assert open_study(store, "pilot", "ann", codes["ann"]).participant == "ann"
        for n in range(4):  # a join starts the count again: four more are not a lock
            with pytest.raises(StudyError, match=REFUSED):
                open_study(store, "pilot", "ann", f"AGAIN{n}")
        assert open_study(store, "pilot", "ann", codes["ann"].lower()).participant == "ann"
        log = join_log(store, db.get_study(store, "pilot"))
    assert Counter(t.outcome for t in log) == {
        "wrong_code": 9,
        "unknown_name": 1,
        "locked": 2,
        "joined": 3,
    }
    assert all(t.connection == f"pid {os.getpid()}" and t.at >= 1_800_000_000 for t in log)
    with Store(path) as store:  # stored as ISO-8601 UTC text, as every other time (issue 29)
        [(first,)] = store.read("SELECT at FROM study_join_attempts ORDER BY id LIMIT 1")
    assert first == "2027-01-15T08:00:00.000000Z"


def test_an_unknown_name_locks_alike(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path)
    with Store(path) as store:
        for _ in range(2):
            with pytest.raises(StudyError, match=f"^{REFUSED}$"):
                open_study(store, "pilot", "zed", "ABCDEF", rules=JoinRules(attempts=2))
        with pytest.raises(JoinLocked):  # so a lock tells no more than a refusal
            open_study(store, "pilot", "zed", "ABCDEF", rules=JoinRules(attempts=2))


# One connection's `play` process guessing: 50 wrong codes for ann, as fast as it can.
_GUESSER = """
import sys
from crmarena_tui.storage import Store
from crmarena_tui.studies.model import StudyError
from crmarena_tui.studies.mode import open_study
with Store(sys.argv[1]) as store:
    for n in range(50):
        try:
            open_study(store, "pilot", "ann", f"G{sys.argv[2]}{n:04d}")
        except StudyError:
            pass
"""


def test_two_hundred_guesses_over_four_connections_lock_after_five(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    guessers = [
        subprocess.Popen(
            [sys.executable, "-c", _GUESSER, str(path), str(k)],
            env={**os.environ, "CRMARENA_TUI_CONNECTION": f"10.0.0.9 #{k}"},  # one source
        )
        for k in range(4)
    ]
    assert [g.wait(timeout=120) for g in guessers] == [0] * 4
    with Store(path) as store:
        log = join_log(store, db.get_study(store, "pilot"), failed_only=True)
        assert len(log) == 200 and {t.participant for t in log} == {"ann"}
        assert Counter(t.outcome for t in log) == {"wrong_code": 5, "locked": 195}
        assert {t.connection for t in log} == {f"10.0.0.9 #{k}" for k in range(4)}
        assert [t.at for t in log] == sorted(t.at for t in log)
        assert open_study(store, "pilot", "bob", codes["bob"]).participant == "bob"
        with pytest.raises(JoinLocked):  # from that source, even with the right code
            open_study(store, "pilot", "ann", codes["ann"], connection="10.0.0.9 #5")
        # ann herself, from her own browser, still joins: the lock is the source's (issue 38)
        joined = open_study(store, "pilot", "ann", codes["ann"], connection="10.0.0.3 #6")
        assert joined.participant == "ann"


def test_wrong_codes_for_a_known_name_lock_the_source_not_the_name(tmp_path: Path) -> None:
    """Issue 38: five wrong codes for ann from one address used to lock ann out everywhere for
    15 minutes; now they lock that address (any connection of it) for ann, not ann."""
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    with Store(path) as store:
        for n in range(5):
            with pytest.raises(StudyError, match=REFUSED):
                open_study(store, "pilot", "ann", f"W{n}", connection=f"6.6.6.6 #{n}")
        with pytest.raises(JoinLocked):
            open_study(store, "pilot", "ann", codes["ann"], connection="6.6.6.6 #9")
        assert open_study(store, "pilot", "ann", codes["ann"], connection="10.1.1.1 #10")


def test_the_lockout_is_a_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRMARENA_TUI_JOIN_ATTEMPTS", "2")
    monkeypatch.setenv("CRMARENA_TUI_JOIN_LOCKOUT_MINUTES", "60")
    assert JoinRules.configured() == JoinRules(attempts=2, lockout_seconds=3600.0)
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    with Store(path) as store:
        for _ in range(2):
            with pytest.raises(StudyError, match=REFUSED):
                open_study(store, "pilot", "ann", "NOPE")
        with pytest.raises(JoinLocked, match="try again in 60 min"):
            open_study(store, "pilot", "ann", codes["ann"])


def test_play_names_no_participant_of_a_study(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    make_study(path, participants="ann,bob,cyd")
    code, _, err = cli("play", "--study", "pilot", "--as", "nobody", "--db", str(path))
    assert code != 0 and err.strip() == "error: 'nobody' is not a participant of study 'pilot'"
    assert not {"ann", "bob", "cyd"} & set(err.replace("'", " ").split())


async def test_each_refusal_of_a_connection_waits_longer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []
    monkeypatch.setattr("crmarena_tui.screens.join_screen.time.sleep", waits.append)
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    app = study_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        join = app.screen
        assert isinstance(join, JoinScreen)
        for name, code in [("ann", "W1"), ("zed", "W2"), ("bob", "W3"), ("ann", "W4")]:
            join.query_one("#join-name", Input).value = name
            join.query_one("#join-code", Input).value = code
            join.query_one("#join-code", Input).focus()
            await pilot.press("enter")
            await settle(pilot, app)
            assert "That name and join code do not match" in screen_text(app)
        assert waits == [1.0, 2.0, 4.0, 8.0]
        assert join.refusal_delay(20) == JoinScreen.MAX_REFUSAL_DELAY == 60.0
        join.query_one("#join-name", Input).value = "bob"
        join.query_one("#join-code", Input).value = codes["bob"]
        join.query_one("#join-code", Input).focus()
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.participant is not None and app.participant.name == "bob"


def test_study_status_tells_the_researcher_of_refused_joins(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    codes = make_study(path)
    code, out, _ = cli("study", "status", "pilot", "--db", str(path))
    assert code == 0 and "Refused joins" not in out
    with Store(path) as store:
        assert open_study(store, "pilot", "bob", codes["bob"]).participant == "bob"
        for n in range(6):
            with pytest.raises(StudyError):
                open_study(
                    store, "pilot", "ann", f"X{n}", rules=JoinRules(), connection="1.2.3.4 #7"
                )
        with pytest.raises(StudyError):
            open_study(store, "pilot", "zed", "X", connection="1.2.3.4 #8")
    code, out, _ = cli("study", "status", "pilot", "--db", str(path))
    assert code == 0
    assert (
        "Refused joins: 7 (5 wrong code, 1 unknown name, 1 while locked;"
        " the last from 1.2.3.4 #8); locked now: ann from 1.2.3.4"
    ) in out


async def test_a_pasted_novel_does_not_fill_the_join_fields(tmp_path: Path) -> None:
    """Issue 38: 100,000 characters pasted into the join code used to spin the process at 100%
    CPU; each field now takes at most `MAX_FIELD` characters, and a longer paste is refused."""
    from textual import events

    from crmarena_tui.screens.join_screen import MAX_FIELD

    path = tmp_path / "sessions.db"
    codes = make_study(path)
    app = study_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        join = app.screen
        assert isinstance(join, JoinScreen)
        for field in (join.name_input, join.code_input):
            field.focus()
            field.post_message(events.Paste("X" * 100_000))
            await pilot.pause()
            assert len(field.value) <= MAX_FIELD == 128
        join.name_input.value = "ann"
        join.code_input.focus()
        join.code_input.post_message(events.Paste(codes["ann"]))  # a code's paste still works
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.participant is not None and app.participant.name == "ann"
