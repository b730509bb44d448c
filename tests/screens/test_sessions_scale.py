"""The research screens at the scale of real runs: 10,000 upstream-shaped sessions imported from a
folder, then the sessions list opened and filtered (only what is on screen is read in full)."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.cli import main
from crmarena_tui.screens.sessions_screen import SessionsScreen
from crmarena_tui.widgets.session_list import HEADERS, SessionList
from tests.support.app_support import SIZE, screen_text, wait_for_workers
from tests.support.app_trajectory_support import push, research_app
from tests.support.upstream_results_support import MODELS, TASK_TYPES, write_many

SESSIONS = 10_000


async def test_ten_thousand_imported_sessions_open_and_filter(tmp_path: Path, capsys) -> None:
    results = write_many(tmp_path / "results", SESSIONS, steps=1)
    assert main(["import", str(results), "--db", str(tmp_path / "sessions.db")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0] == f"20 file(s) read: {SESSIONS:,} session(s) imported, 0 skipped as already present"
    )
    per_model = SESSIONS // len(MODELS)
    for model in MODELS:
        assert f"  {model}/react" in "\n".join(out)
        line = next(x for x in out if x.strip().startswith(f"{model}/react "))
        assert line.split()[-4:] == [f"{per_model:,}", "session(s)", "under", "hf:b2b"]

    app = research_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionsScreen())
        screen = app.screen
        table = screen.query_one("#ss-table", SessionList)
        assert table.row_count == SESSIONS and len(screen.rows) == SESSIONS
        text = screen_text(app)
        header = next(line for line in text.splitlines() if "Session" in line and "Task" in line)
        shown = [h for k, h in HEADERS if k != "trial"]  # (no Trial column: every session is 1)
        visible = [h for h in shown if h in header]
        assert visible == shown[: len(visible)] and len(visible) >= 10 and "Trial" not in header
        assert f"{SESSIONS:,} sessions" in text
        # rewards and label counts were read for the rows on screen only
        assert 0 < len(table.details) <= SIZE[1]
        assert table.row_at(0).id == SESSIONS  # newest first
        await pilot.press("slash", *"o1 quote")
        await wait_for_workers(pilot, app)
        per_file = SESSIONS // (len(MODELS) * len(TASK_TYPES))
        assert len(screen.shown) == per_file
        assert {(r.task_type, screen.index.participant(r).model) for r in screen.shown} == {
            ("quote_approval", "o1-mini")
        }
        assert f"{per_file:,} of {SESSIONS:,} sessions" in screen_text(app)
        # the filtered list scrolls over its own rows (resized without a layout: scrollbar kept)
        assert table.virtual_size.height == per_file + 1 and table.show_vertical_scrollbar
        assert table.vertical_scrollbar.window_virtual_size == per_file + 1
        table.focus()
        await pilot.press("end")
        assert table.cursor == per_file - 1 and table.scroll_y == table.max_scroll_y > 0
        await pilot.press("slash")
        await pilot.press("backspace", *"case", "enter")  # "o1 quotcase": nothing
        assert screen.shown == []
