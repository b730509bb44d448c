"""What the sessions list repaints: a filter keystroke lays nothing out, draws one frame and
redraws only the list lines that now show another session; rewards and labels of new rows are
read once the typed filter settles; a cursor move redraws two lines.

The tests that count calls of Textual's methods carry the `perf` marker (see pyproject.toml)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult

from crmarena_tui.screens import sessions_screen
from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.widgets import session_list
from crmarena_tui.widgets.filter_input import FilterInput
from crmarena_tui.widgets.session_list import PENDING
from tests.support.app_support import SIZE, screen_text, wait_for_workers
from tests.support.app_trajectory_support import push, research_app
from tests.support.pilot_wait_support import wait_until
from tests.support.upstream_results_support import MODELS, imported_database

SESSIONS = 2_000


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return imported_database(tmp_path_factory.mktemp("imported"), SESSIONS)


def counted(obj: Any, name: str) -> list[tuple[Any, ...]]:
    """The arguments of every later call of `obj.name` (the call still goes through)."""
    calls: list[tuple[Any, ...]] = []
    real: Callable[..., Any] = getattr(obj, name)

    def spy(*args: Any, **kw: Any) -> Any:
        calls.append(args)
        return real(*args, **kw)

    setattr(obj, name, spy)
    return calls


async def open_list(pilot: Any, app: App) -> SessionsScreen:
    await push(pilot, SessionsScreen())
    screen = app.screen
    assert isinstance(screen, SessionsScreen) and screen.index is not None
    return screen


class OneFilter(App):
    def compose(self) -> ComposeResult:
        yield FilterInput(id="box")


@pytest.mark.perf
async def test_filter_input_keeps_its_virtual_size_while_its_text_fits() -> None:
    app = OneFilter()
    async with app.run_test(size=(40, 5)) as pilot:
        box = app.query_one(FilterInput)
        box.cursor_blink = False
        box.focus()
        await pilot.press("a")
        view = box.container_size.width
        assert box.virtual_size.width == view > 10
        layouts = counted(app.screen, "_refresh_layout")
        await pilot.press(*"bcd")
        assert box.value == "abcd" and box.virtual_size.width == view and layouts == []
        await pilot.press(*"x" * 50)  # wider than the view: it grows and scrolls to the cursor
        assert box.virtual_size.width == 55 > view and box.scroll_x > 0 and layouts


@pytest.mark.perf
async def test_a_filter_key_draws_one_frame_and_no_unchanged_line(
    tmp_path: Path, database: Path
) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, app)
        index, table = screen.index, screen.table
        assert index is not None and not index.searchable
        newest = index.participant(index.rows[0]).model or ""
        await pilot.press("slash")
        screen.query_one(FilterInput).cursor_blink = False
        await wait_for_workers(pilot, app)
        assert index.searchable  # built when the filter got the focus, before any key
        await pilot.press(newest[0])  # the first key sizes the input once
        await wait_for_workers(pilot, app)
        lines = counted(table, "render_line")
        frames = counted(screen, "_compositor_refresh")
        layouts = counted(screen, "_refresh_layout")
        typed = newest[1:4]
        for key in typed:
            await pilot.press(key)
        assert layouts == [] and len(frames) == len(typed)
        assert lines == []  # the newest sessions stay on top: no line of the list is redrawn
        per_model = SESSIONS // len(MODELS)
        assert len(screen.shown) == per_model
        assert {index.participant(r).model for r in screen.shown} == {newest}
        assert f"{per_model:,} of {SESSIONS:,} sessions" in screen_text(app)


@pytest.mark.perf
async def test_new_rows_are_drawn_at_once_and_their_details_once_typing_settles(
    tmp_path: Path, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_list, "DETAILS_AFTER", 1.0)  # no slow key outlasts it
    shutil.copy(database, tmp_path / "sessions.db")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, app)
        index, table = screen.index, screen.table
        assert index is not None
        newest = index.participant(index.rows[0]).model or ""
        oldest = index.participant(index.rows[-1]).model or ""
        assert oldest[:3] != newest[:3]
        await pilot.press("slash")
        await wait_for_workers(pilot, app)
        asked = counted(screen, "load_details")
        lines = counted(table, "render_line")
        await pilot.press(*oldest[:3])
        on_screen = {line[0] for line in table.visible_lines() if line is not None}
        assert {index.participant(r).model for r in screen.shown} == {oldest}
        assert on_screen <= {r.id for r in screen.shown} and len(on_screen) > 20
        assert len(lines) >= len(on_screen)  # drawn at once, "…" for their rewards and labels
        assert asked == [] and not on_screen & table.details.keys()
        table.scroll_to(x=table.max_scroll_x, animate=False, immediate=True)  # to the rewards
        assert PENDING in "".join(s.text for s in table.render_line(1))
        await wait_until(
            pilot, lambda: on_screen <= table.details.keys(), "the details once typing settled"
        )
        await wait_for_workers(pilot, app)
        assert len(asked) == 1  # one read for the settled rows, none per key
        assert on_screen <= table.details.keys()
        assert PENDING not in "".join(s.text for s in table.render_line(1))


@pytest.mark.perf
async def test_a_cursor_move_redraws_its_two_lines(tmp_path: Path, database: Path) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, app)
        table = screen.table
        table.focus()
        await wait_for_workers(pilot, app)
        lines = counted(table, "render_line")
        await pilot.press("down")
        assert table.cursor == 1 and sorted(lines) == [(1,), (2,)]  # under the header line


async def test_the_list_shows_its_headers_at_once_and_a_spinner_only_for_a_slow_read(
    tmp_path: Path, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(database, tmp_path / "sessions.db")
    release = threading.Event()
    for name in ("load_first", "load_index"):  # both reads slow
        real_load = getattr(sessions_screen, name)

        def slow_load(*args: Any, real_load: Any = real_load) -> Any:
            release.wait(10)
            return real_load(*args)

        monkeypatch.setattr(sessions_screen, name, slow_load)
    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot, app)
        screen = SessionsScreen()
        app.push_screen(screen)
        await wait_until(pilot, lambda: "Participant" in screen_text(app), "the list's headers")
        assert "Session Participant" in " ".join(screen_text(app).split())  # (no crash either)
        assert not screen.table.loading  # a quick read never flashes a spinner
        await wait_until(pilot, lambda: screen.table.loading, "the spinner of a slow read")
        assert screen.table.loading  # a slow one says it is loading
        release.set()
        await wait_for_workers(pilot, app)
        await wait_until(pilot, lambda: not screen.table.loading, "the spinner gone")
        assert not screen.table.loading and screen.table.row_count == SESSIONS
