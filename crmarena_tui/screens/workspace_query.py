"""The workspace's queries: the SOQL/SOSL editor's text run in a worker through
`Episode.execute` (docs/ARCHITECTURE.md, "The data flow of a query"), the results shown, the
editor's completions hinted under it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.message import Message
from textual.widgets import Static, TabbedContent

from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState
from crmarena_tui.widgets.later import later

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.orgs.base import QueryResult
    from crmarena_tui.widgets.query_editor import QueryEditor
    from crmarena_tui.widgets.results_view import ResultsView
    from crmarena_tui.widgets.soql_completion import Completion


POLL = 0.01  # seconds between two looks at the keys still on their way to the editor
TYPED_AHEAD_LIMIT = 10.0  # seconds ctrl+r waits for them at most (then runs what is there)


class WorkspaceQuery(WorkspacePart):
    """The editor's queries; the screen hands it `ctrl+r` and the editor's completions."""

    @dataclass
    class Ran(Message):
        """Query `r<number>` of the session is done (shown): its scratch table can be listed."""

        number: int
        text: str
        result: QueryResult

    @dataclass
    class Done(Message):
        """A query run has its result. `token` guards against stale results."""

        token: int
        text: str
        result: QueryResult

    def __init__(
        self,
        state: WorkspaceState,
        *,
        editor: QueryEditor,
        results: ResultsView,
        hints: Static,
        tabs: TabbedContent,
        id: str | None = None,
    ) -> None:
        """`editor`: where queries are typed; `results` shows them; `hints` (under the editor)
        the completions; `tabs` holds the results tab."""
        super().__init__(state, id=id)
        self.editor, self.results, self.hints, self.tabs = editor, results, hints, tabs
        self._token = 0

    def run_editor_text(self, waited: float = 0.0) -> None:
        """`ctrl+r`, once the editor has caught up with the keys typed before it (on a loaded
        machine they can still wait in the screen's queue: polled, for `TYPED_AHEAD_LIMIT`)."""
        if self.arena.key_gate.typed_ahead(self.editor) and waited < TYPED_AHEAD_LIMIT:
            later(self, POLL, lambda: self.run_editor_text(waited + POLL))
            return
        text = self.editor.text.strip()
        if self.episode is None:
            self.not_open()
            return
        if not self.state.accepting:
            self.notify("This session is closed: nothing more is run.", severity="warning")
            return
        if not text:
            self.notify("Write a SOQL or SOSL query first.", severity="warning")
            return
        self._token += 1
        self.editor.remember(text)
        self.editor.dismiss_completion()  # `tab` goes on to the results, as the keys say
        self.show_completions(None)
        self.results.show_running(text)
        # Focus out of the records tab first: TabbedContent follows focus back to a hidden pane.
        self.screen.set_focus(self.editor)
        self.tabs.active = "tab-results"
        self.run_query(self._token, text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="query")
    def run_query(self, token: int, text: str) -> None:
        assert self.episode is not None
        result = self.arena.org_call(self.episode.execute, text)
        self.post_message(self.Done(token, text, result))

    @on(Done)
    def _query_done(self, event: Done) -> None:
        event.stop()
        if event.token != self._token:
            return  # a newer query was started meanwhile
        number = self.episode.query_count if self.episode else 0
        self.results.show_result(event.text, event.result, name=f"r{number}")
        if event.result.warning:  # the org's word on values an import left as text (once)
            self.notify(event.result.warning, severity="warning", timeout=15, markup=False)
        self.show_completions(None)
        self.note(f"{number} queries" if self.episode else "")
        if self.episode is not None:
            self.post_message(self.Ran(number, event.text, event.result))

    def show_completions(self, completion: Completion | None) -> None:
        """The editor's candidates for the word being typed, under it (None: clear)."""
        names = completion.candidates[:8] if completion is not None else []
        hint = "  ".join(names)
        shown = (
            f"[dim]tab ⇥[/] {escape(hint)}" if names and completion and completion.prefix else ""
        )
        self.hints.update(shown)

    def replay(self, queries: list[str]) -> None:
        """A resumed session's queries: the editor's history, the last one in the editor."""
        for q in queries:
            self.editor.remember(q)
        if queries:
            self.editor.load_text(queries[-1])

    def worker_failed(self, worker: Worker) -> None:
        if worker.group == "query":
            self.results.show_status(
                f"[b red]{escape(type(worker.error).__name__)}: {escape(str(worker.error))}[/]"
            )
