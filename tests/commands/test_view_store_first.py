"""`view` on a fresh data folder: the sessions list shows the database's sessions while the demo
orgs and tasks are still being built, and a screen that needs a demo org being built is told."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from crmarena_tui.app.demo_wait import DemoBuilds
from crmarena_tui.screens.sessions_screen import SessionsScreen
from tests.support.app_support import SIZE, wait_for_workers
from tests.support.app_trajectory_support import seed
from tests.support.pilot_wait_support import wait_until


async def test_the_sessions_show_before_the_demo_build_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmarena_tui.app import demo_setup
    from crmarena_tui.app.app import PlayOptions
    from crmarena_tui.commands.view import make_app

    ids = seed(tmp_path / "sessions.db")
    monkeypatch.setenv("CRMARENA_TUI_ORG_DIR", str(tmp_path / "orgs"))  # nothing built yet
    gate, started = threading.Event(), threading.Event()

    def slow_build(source: str, progress) -> None:  # the demo orgs: built until the gate opens
        started.set()
        progress("b2b", 0.3, "accounts")
        gate.wait(30)
        raise RuntimeError("the build was stopped by the test")

    monkeypatch.setattr(demo_setup, "prepare_demo_source", slow_build)
    options = PlayOptions(tasks="demo:small", participant="ann", db=tmp_path / "sessions.db")
    app, told = make_app(options, []), []
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, SessionsScreen)
            await wait_until(pilot, lambda: len(screen.shown) == len(ids), "the sessions")
            assert not gate.is_set() and app.store is not None  # the build is still under way
            await wait_until(pilot, started.is_set, "the demo build (behind the store)")
            await wait_until(
                pilot, lambda: app.demo_builds.announce("b2b", told.append), "progress"
            )
            told.clear()
            assert app.demo_builds.announce("b2b", told.append)  # a fork now would wait, told
            assert told == [
                "The demo b2b org is being built (first run, 30% done): this waits for it"
            ]
            gate.set()
            await wait_for_workers(pilot, app)
            assert len(screen.shown) == len(ids)
    finally:
        gate.set()


def test_a_screen_waiting_for_a_build_hears_of_each_quarter_and_the_end() -> None:
    builds, told = DemoBuilds(), []
    builds.progress("b2c", 0.1, told.append)
    assert not builds.announce("b2b", told.append) and told == []  # no build of that type
    assert builds.announce("b2c", told.append) and "10% done" in told[-1]
    for fraction in (0.2, 0.3, 0.4, 0.55, 0.8, 1.0):
        builds.progress("b2c", fraction, told.append)
    assert told[1:] == [
        "Building the demo b2c org: 30% done",
        "Building the demo b2c org: 55% done",
        "Building the demo b2c org: 80% done",
        "The demo b2c org is built: the session goes on",
    ]
    builds.progress("b2c", 0.5, told.append)  # another build, no one waiting: nothing said
    builds.progress("b2c", 1.0, told.append)
    assert len(told) == 5 and not builds.announce("b2c", told.append)
