"""The SOQL/SOSL editor: SQL highlighting, history on up/down, completion from the org's schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import (
    Document,
    DocumentNavigator,
    SyntaxAwareDocument,
    WrappedDocument,
)

from crmarena_tui.widgets.soql_completion import Completer, Completion

# The highlight query Textual compiled for a language, with that language: (Language, Query).
_PREPARED: dict[str, tuple[Any, Any]] = {}

PLACEHOLDER = "Type SOQL or SOSL here and press ctrl+r (e.g. SELECT Id, Name FROM Account LIMIT 10)"


class QueryEditor(TextArea):
    """A TextArea for queries.

    `up` on the first line and `down` on the last walk the query history (the draft is kept);
    `tab` accepts the completion shown as ghost text; every change posts `CompletionsChanged`.
    `ctrl+a` selects everything; `ctrl+k` deletes to the end of the line as written (not as
    wrapped on screen), or joins the next line at its end.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "accept_completion", "Complete", show=False, id="editor.accept-completion"),
        Binding("ctrl+a", "select_all", "Select all", show=False, id="editor.select-all"),
        Binding("ctrl+k", "kill_line", "Delete to line end", show=False, id="editor.kill-line"),
    ]

    @dataclass
    class CompletionsChanged(Message):
        editor: QueryEditor
        completion: Completion

        @property
        def control(self) -> QueryEditor:
            return self.editor

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(
            text,
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            placeholder=PLACEHOLDER,
        )
        if "sql" in self.available_languages:
            self.language = "sql"
        self.past_queries: list[str] = []
        self._history_pos: int | None = None
        self._draft = ""
        self.completer: Completer | None = None
        self.completion = Completion("", ())

    def _set_document(self, text: str, language: str | None) -> None:
        """Textual makes a new document for every `load_text` (each history step, a resumed
        session's last query) and compiles the SQL highlight query for each: about 40 ms of
        CPU a key on `up`. The compiled query only reads the language, so the first one made
        serves every later document of that language (the steps after Textual 8.2.8's own)."""
        prepared = _PREPARED.get(language or "")
        if prepared is None:
            super()._set_document(text, language)
            if language and isinstance(self.document, SyntaxAwareDocument):
                _PREPARED[language] = (self.document.language, self._highlight_query)
            return
        tree_sitter_language, self._highlight_query = prepared
        self.document = SyntaxAwareDocument(text, tree_sitter_language)
        self.wrapped_document = WrappedDocument(self.document, tab_width=self.indent_width)
        self.navigator = DocumentNavigator(self.wrapped_document)
        self._build_highlight_map()
        self.move_cursor((0, 0))
        self._rewrap_and_refresh_virtual_size()

    @on(events.Hide)
    def _stale_hide(self, event: events.Hide) -> None:
        """Keep the focus on a Hide read once the editor is shown again. The workspace covers its
        body with a loading indicator while the session opens (the cover hides the editor), then
        lifts it and focuses the editor; a session that opens at once lifts it before the
        editor reads the Hide the cover caused, and Textual's blur on that stale Hide sent the
        keys typed next to the task panel (a served participant's first query was lost)."""
        if self.has_focus and not any(
            getattr(node, "loading", False) or not node.display for node in self.ancestors_with_self
        ):
            event.prevent_default()  # (Textual's own handlers would blur the editor)

    # -- history --------------------------------------------------------------------------------

    def remember(self, query: str) -> None:
        """Add `query` to the history (no immediate duplicates) and leave history browsing."""
        query = query.strip()
        if query and (not self.past_queries or self.past_queries[-1] != query):
            self.past_queries.append(query)
        self._history_pos = None

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_at_first_line and self.past_queries:
            self._walk_history(-1)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if not select and self.cursor_at_last_line and self._history_pos is not None:
            self._walk_history(1)
            return
        super().action_cursor_down(select)

    def _walk_history(self, step: int) -> None:
        if self._history_pos is None:
            if step > 0:
                return
            self._draft = self.text
            pos = len(self.past_queries) - 1
        else:
            pos = self._history_pos + step
        if pos < 0:
            return
        if pos >= len(self.past_queries):
            self._history_pos = None
            self._load(self._draft)
            return
        self._history_pos = pos
        self._load(self.past_queries[pos])

    def _load(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_kill_line(self) -> None:
        """Delete from the cursor to the end of the logical line; at its end, join the next."""
        if not self.selection.is_empty:
            self.delete(*self.selection)
            return
        row, col = self.cursor_location
        line = self.document.get_line(row)
        if col < len(line):
            self.delete((row, col), (row, len(line)))
        elif row + 1 < self.document.line_count:
            self.delete((row, col), (row + 1, 0))

    # -- completion -----------------------------------------------------------------------------

    def set_completer(self, completer: Completer | None) -> None:
        self.completer = completer
        self.update_suggestion()

    def update_suggestion(self) -> None:
        if self.completer is None or not self.is_mounted:
            self.suggestion = ""
            return
        row, col = self.cursor_location
        line = self.document.get_line(row)
        at_word_end = col >= len(line) or not (line[col].isalnum() or line[col] in "_.")
        document = self.document
        assert isinstance(document, Document)  # a TextArea's document is always one
        offset = document.get_index_from_location(self.cursor_location)
        self.completion = self.completer.complete(self.text, offset)
        self.suggestion = (
            self.completion.suggestion if at_word_end and self.selection.is_empty else ""
        )
        self.post_message(self.CompletionsChanged(self, self.completion))

    def dismiss_completion(self) -> bool:
        """Forget the completion offered (`escape`, `ctrl+r`): `tab` then moves the focus on.
        True if one was offered."""
        completion = self.completion
        offered = bool(self.suggestion or (completion.candidates and completion.prefix))
        self.completion = Completion("", ())
        self.suggestion = ""
        return offered

    def action_accept_completion(self) -> None:
        """Replace the word before the cursor with the first candidate; else move focus on."""
        completion = self.completion
        if not completion.candidates or not completion.prefix and not self.suggestion:
            self.screen.focus_next()
            return
        end = self.cursor_location
        start = (end[0], end[1] - len(completion.prefix))
        self.replace(completion.candidates[0], start, end)
