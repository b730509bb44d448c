"""The query editor keeps the focus through a stale Hide: keys typed next still reach it."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Button

from crmarena_tui.widgets.query_editor import QueryEditor
from tests.support.pilot_wait_support import wait_until


class EditorApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Button("task panel", id="other")  # what Textual's blur would focus next
        with Vertical(id="body"):
            yield QueryEditor(id="editor")


async def test_a_hide_read_after_the_loading_cover_is_lifted_keeps_the_typed_query() -> None:
    app = EditorApp()
    async with app.run_test() as pilot:
        body, editor = app.query_one("#body"), app.query_one(QueryEditor)
        body.loading = True  # the workspace's cover while the session opens
        await pilot.pause()
        body.loading = False  # the session opened at once: the cover lifted, the editor focused
        editor.focus()
        await pilot.pause()
        editor.post_message(events.Hide())  # the Hide the cover caused, read only now
        await pilot.press(*"SELECT Id")
        await wait_until(pilot, lambda: editor.text == "SELECT Id", "the typed query in the editor")
        assert app.focused is editor


async def test_a_hide_while_covered_still_moves_the_focus() -> None:
    app = EditorApp()
    async with app.run_test() as pilot:
        body, editor = app.query_one("#body"), app.query_one(QueryEditor)
        editor.focus()
        await pilot.pause()
        body.loading = True
        editor.post_message(events.Hide())  # hidden now: Textual's own rule applies
        await wait_until(pilot, lambda: app.focused is not editor, "the focus moved on")
