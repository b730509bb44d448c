"""The query history walked with `up` and `down` keeps the SQL highlighting of each query, and
the highlight query is compiled once, not again for every query the walk loads."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import TextArea
from textual.widgets.text_area import SyntaxAwareDocument

from crmarena_tui.widgets import query_editor
from crmarena_tui.widgets.query_editor import QueryEditor
from tests.support.pilot_wait_support import wait_until

PAST = [
    "SELECT Id, Name FROM Account WHERE Name LIKE 'Acme%' LIMIT 5",
    "FIND {Acme} IN NAME FIELDS RETURNING Account(Id)",
    "SELECT COUNT() FROM Case WHERE Status = 'Closed'",
]


class EditorApp(App[None]):
    def compose(self) -> ComposeResult:
        yield QueryEditor(id="editor")
        yield TextArea(id="reference")  # Textual's own SQL highlighting, for comparison


def highlights_of(area: TextArea) -> dict[int, list[Any]]:
    return {row: sorted(spans) for row, spans in area._highlights.items() if spans}


async def test_history_steps_keep_the_highlighting_and_compile_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(query_editor, "_PREPARED", {})
    compiled: list[str] = []
    prepare = SyntaxAwareDocument.prepare_query

    def counted(self: SyntaxAwareDocument, query: str) -> Any:
        compiled.append(query)
        return prepare(self, query)

    monkeypatch.setattr(SyntaxAwareDocument, "prepare_query", counted)
    app = EditorApp()
    async with app.run_test() as pilot:
        editor = app.query_one(QueryEditor)
        reference = app.query_one("#reference", TextArea)
        for query in PAST:
            editor.remember(query)
        editor.load_text("SELECT Id FROM Con")  # a draft
        editor.focus()
        compiled.clear()
        await pilot.press("up", "up", "up", "down")  # a burst: back three, forward one
        await wait_until(pilot, lambda: editor.text == PAST[1], "the second-newest query")
        assert compiled == []  # (compiled once, when the editor was made)
        for text in (PAST[1], PAST[0], "SELECT Id FROM Con"):
            editor.load_text(text)
            reference.language = None
            reference.load_text(text)
            reference.language = "sql"
            assert highlights_of(editor) == highlights_of(reference) != {}
        await pilot.press("down", "down")
        await wait_until(pilot, lambda: editor.text == "SELECT Id FROM Con", "the draft back")
