"""The sessions list opens on its newest rows: they are drawn, in the whole list's columns, before
every session is read; the filters wait for the rest and then apply what was typed meanwhile."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.reports.session_rows import FIRST_ROWS, load_first, load_index
from crmarena_tui.screens import sessions_screen
from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.storage import Store
from crmarena_tui.storage.listing import list_extent
from crmarena_tui.storage.models import ListExtent
from tests.support.app_support import SIZE, screen_text, wait_for_workers
from tests.support.app_trajectory_support import research_app
from tests.support.pilot_wait_support import wait_until
from tests.support.upstream_results_support import imported_database

SESSIONS = 600


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return imported_database(tmp_path_factory.mktemp("imported"), SESSIONS)


class HeldRead:
    """`load_index` held until `release` is set; `rows_shown`: how many rows the list showed
    when each read began."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = threading.Event()
        self.rows_shown: list[int] = []
        self.screen: SessionsScreen | None = None
        real = sessions_screen.load_index

        def held(*args: Any) -> Any:
            self.rows_shown.append(self.screen.table.row_count if self.screen else -1)
            self.release.wait(10)
            return real(*args)

        monkeypatch.setattr(sessions_screen, "load_index", held)


async def test_the_newest_rows_come_first_in_the_final_columns_and_a_filter_waits(
    tmp_path: Path, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    held = HeldRead(monkeypatch)
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        screen = held.screen = SessionsScreen()
        app.push_screen(screen)
        await wait_until(pilot, lambda: held.rows_shown, "the newest rows drawn, the rest asked")
        await wait_until(pilot, lambda: "reading the rest" in screen_text(app), "the notice")
        index = screen.index
        assert index is not None and index.partial
        assert len(index.rows) == FIRST_ROWS and index.rows[0].id == SESSIONS  # the newest
        assert held.rows_shown == [FIRST_ROWS]  # the rest is read after those rows are drawn
        text = " ".join(screen_text(app).split())
        assert f"the newest {FIRST_ROWS} of {SESSIONS} sessions · reading the rest…" in text
        first_widths = dict(screen.table.widths)
        await pilot.press("down", "down")  # the cursor works on the newest rows already
        held_on = screen.table.current
        assert held_on is not None and held_on.id == SESSIONS - 2

        await pilot.press("slash", *"gpt")  # typed before the rest is read: applied when it is
        assert len(screen.positions) == FIRST_ROWS
        held.release.set()
        await wait_for_workers(pilot, app)
        await wait_until(pilot, lambda: "reading the rest" not in screen_text(app), "the rest")
        index = screen.index
        assert index is not None and not index.partial and len(index.rows) == SESSIONS
        matching = [i for i, hay in enumerate(index.haystacks()) if "gpt" in hay]
        assert 0 < len(matching) < SESSIONS and screen.positions == matching
        assert f"{len(matching):,} of {SESSIONS:,} sessions" in screen_text(app)
        assert screen.table.widths == first_widths  # no column moved when the rest came


async def test_a_list_no_longer_than_the_first_rows_is_read_once(
    tmp_path: Path, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    held = HeldRead(monkeypatch)
    with Store(tmp_path / "sessions.db") as store:
        key = load_index(store).rows[0].task_key
        of_task = len(load_index(store, key).rows)
    assert of_task < FIRST_ROWS
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        screen = SessionsScreen(key)
        app.push_screen(screen)
        await wait_for_workers(pilot, app)  # (the held read would stop this for 10 s)
        await wait_until(pilot, lambda: screen.table.row_count == of_task, "the task's sessions")
        assert screen.index is not None and not screen.index.partial
        assert held.rows_shown == [] and screen.table.row_count == of_task
        assert "reading the rest" not in screen_text(app)


def test_the_extent_read_by_sql_is_the_rows_own(database: Path) -> None:
    """The first frame's columns and protocol note are the whole list's: the extent SQLite
    computes equals the one gathered from every row, for all sessions and for one task."""
    with Store(database) as store:
        every = load_index(store)
        keys = {r.task_key for r in every.rows}
        assert list_extent(store) == ListExtent.of(every.rows) == every.extent
        assert every.extent is not None and every.extent.total == SESSIONS
        for key in sorted(keys)[:3]:
            assert list_extent(store, key) == ListExtent.of(load_index(store, key).rows)
        first = load_first(store)
        assert first.partial and first.extent == every.extent
        assert list(first.rows) == list(every.rows[:FIRST_ROWS])
        assert list_extent(store, ("nowhere", 1)) == ListExtent.of([]) == ListExtent()
