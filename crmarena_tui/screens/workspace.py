"""The workspace: one task, worked through one Episode.

Left: the task panel (and the chat in interactive tasks). Right: the SOQL/SOSL editor, then tabs
with the results and the record browser. Every org, store and simulator call runs in a worker on
this screen; workers post messages and the handlers below update the widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static, TabbedContent, TabPane

from crmarena_tui.agents.base import STOP
from crmarena_tui.messages import (
    EpisodeReady,
    PageFetched,
    QueryDone,
    RecordFetched,
    Submitted,
    UserSpoke,
)
from crmarena_tui.screens.submit_dialog import SubmitDialog
from crmarena_tui.screens.workspace_clock import WorkspaceClock
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.chat_pane import ChatPane
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.record_browser import RecordBrowser, Request, page_soql
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.results_view import ResultsView
from crmarena_tui.widgets.session_clock import SessionClock
from crmarena_tui.widgets.soql_completion import Completer
from crmarena_tui.widgets.task_panel import TaskPanel

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.episode import Episode
    from crmarena_tui.orgs.schema import Schema


class Workspace(WorkspaceClock):
    """Work one task: query, browse, chat, submit (pausing and the clock: workspace_clock.py)."""

    AUTO_FOCUS = "#editor"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "run_query", "Run query", priority=True, id="workspace.run-query"),
        Binding("ctrl+s", "submit", "Submit", priority=True, id="workspace.submit"),
        Binding("ctrl+j", "toggle_json", "JSON/table", id="workspace.toggle-json"),
        Binding("ctrl+b", "records", "Records", id="workspace.records"),
        Binding("ctrl+t", "chat", "Chat", id="workspace.chat"),
        Binding("f2", "editor", "Editor", id="workspace.editor"),
        Binding("f6", "pause", "Pause", priority=True, id="workspace.pause"),
        Binding("ctrl+g", "run_agent", "Run agent", priority=True, id="workspace.run-agent"),
        Binding("escape", "back", "Back", id="workspace.back"),
    ]

    def __init__(
        self, task: Task, episode: Episode | None = None, *, start_on_key: bool = False
    ) -> None:
        """`episode`: open this session (e.g. a take-over's fork) instead of starting one;
        `start_on_key`: start the session with the first key (the task hidden until then)."""
        super().__init__(id="workspace")
        self.task_row = task
        self.start_on_key = start_on_key
        self.preset_episode = episode
        self.episode: Episode | None = None
        self.schema: Schema | None = None
        self.draft_answer = ""
        self._token = 0
        self._submitting = False

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        task = self.task_row
        with Horizontal(id="ws-top"):
            yield Static(self.arena.blind_view.heading(task), id="ws-title")  # blind: no type
            yield Static("[dim]opening session…[/]", id="ws-state")
            yield SessionClock(self.arena.options.clock, id="clock")
        with Horizontal(id="ws-body"):
            with Vertical(id="ws-left"):
                yield Vertical(id="task-slot")
                if task.interactive:
                    yield ChatPane(id="chat")
            with Vertical(id="ws-right"):
                yield QueryEditor(id="editor")
                yield Static("", id="completions")
                with TabbedContent(id="ws-tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ResultsView(id="results")
                    with TabPane("Records", id="tab-records"):
                        yield RecordBrowser(id="records")
        yield Footer(compact=True)

    @property
    def editor(self) -> QueryEditor:
        return self.query_one("#editor", QueryEditor)

    @property
    def results(self) -> ResultsView:
        return self.query_one("#results", ResultsView)

    @property
    def records(self) -> RecordBrowser:
        return self.query_one("#records", RecordBrowser)

    @property
    def clock(self) -> SessionClock:
        return self.query_one("#clock", SessionClock)

    def on_mount(self) -> None:
        self.query_one("#ws-body").loading = True
        if self.task_row.interactive:
            self.query_one("#chat", ChatPane).set_waiting(True)
        self.start_clock_watch()  # opens the episode (after the first key with start_on_key)

    # -- opening --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="episode")
    def open_episode(self) -> None:
        episode = self.preset_episode or self.arena.start_episode(self.task_row)
        if episode.paused:
            episode.resume()  # coming back to a task is coming back to work
        schema = episode.org.describe()
        self.post_message(EpisodeReady(episode, schema))

    @on(EpisodeReady)
    def _episode_ready(self, event: EpisodeReady) -> None:
        episode = self.episode = event.episode
        self.schema = event.schema
        self.query_one("#ws-body").loading = False
        view = self.arena.blind_view  # blind mode: no type, idx or metric in the panel either
        heading = view.heading(self.task_row) if view.enabled else None
        self.query_one("#task-slot").mount(
            TaskPanel(episode.task, aided=episode.session.aided, heading=heading, id="task-panel")
        )
        self.editor.set_completer(Completer(event.schema))
        self.records.set_schema(event.schema)
        self.results.table.id_prefixes = self.records.table.id_prefixes
        self._replay(episode)
        self.clock.start(episode.active_seconds)
        if episode.finished:
            self._show_state(f"[b]{escape(episode.status)}[/]: this session is closed")
        self.editor.focus()

    def _replay(self, episode: Episode) -> None:
        """Rebuild the view of a resumed session from its events: history, chat, last query."""
        queries, chat, last = [], [], None
        for ev in episode.events:
            if ev.kind in ("query", "search") and ev.actor in ("human", "agent"):  # + taken over
                queries.append(ev.text)
            elif ev.kind == "message":
                chat.append((ev.actor, ev.text))
        for q in queries:
            self.editor.remember(q)
        last = queries[-1] if queries else None
        resumed = len(episode.events) > 1
        self._show_state(
            f"resumed: {len(queries)} queries so far"
            if resumed and queries
            else "session started"
            if not resumed
            else "session resumed"
        )
        if last:
            self.editor.load_text(last)
            self.results.query_one("#result-status", Static).update(
                f"[dim]resumed session · {len(queries)} queries · ctrl+r runs the query again[/]"
            )
        if self.task_row.interactive:
            pane = self.query_one("#chat", ChatPane)
            for actor, text in chat:
                pane.add_message(actor, text)
            if any(a == "user" and t == STOP for a, t in chat):
                pane.set_closed("the customer ended the conversation: submit with ctrl+s")
            elif not any(a == "user" for a, _ in chat) and not episode.finished:
                self.chat_opening()
            else:
                pane.set_waiting(episode.finished)

    def worker_failed(self, worker: Worker) -> None:
        if worker.group == "episode":
            self.query_one("#ws-body").loading = False
            self._show_state(f"[red]cannot open the session: {escape(str(worker.error))}[/]")
        elif worker.group == "query":
            self.results.query_one("#result-status", Static).update(
                f"[b red]{escape(type(worker.error).__name__)}: {escape(str(worker.error))}[/]"
            )
        elif worker.group == "chat" and self.task_row.interactive:
            self.query_one("#chat", ChatPane).set_waiting(False)
        elif worker.group == "submit":
            self._show_state("[red]submission failed[/]")

    def _show_state(self, text: str) -> None:
        self.query_one("#ws-state", Static).update(f"[dim]{text}[/]")

    # -- queries --------------------------------------------------------------------------------

    def action_run_query(self) -> None:
        # ctrl+r is a priority binding, handled by the app before keys still queued for the
        # editor (fast typing, a paste): read the text once the editor has caught up.
        self.editor.call_later(self._run_editor_text)

    def _run_editor_text(self) -> None:
        text = self.editor.text.strip()
        if self.episode is None:
            self.notify("The session is still opening.", severity="warning")
            return
        if not text:
            self.notify("Write a SOQL or SOSL query first.", severity="warning")
            return
        self._token += 1
        self.editor.remember(text)
        self.results.show_running(text)
        # Focus out of the records tab first: TabbedContent follows focus back to a hidden pane.
        self.editor.focus()
        self.query_one("#ws-tabs", TabbedContent).active = "tab-results"
        self.run_query(self._token, text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="query")
    def run_query(self, token: int, text: str) -> None:
        assert self.episode is not None
        result = self.arena.org_call(self.episode.execute, text)
        self.post_message(QueryDone(token, text, result))

    @on(QueryDone)
    def _query_done(self, event: QueryDone) -> None:
        if event.token != self._token:
            return  # a newer query was started meanwhile
        self.results.show_result(event.text, event.result)
        self._show_state(f"{self.episode.query_count} queries" if self.episode else "")

    @on(QueryEditor.CompletionsChanged)
    def _completions(self, event: QueryEditor.CompletionsChanged) -> None:
        names = event.completion.candidates[:8]
        hint = "  ".join(names)
        self.query_one("#completions", Static).update(
            f"[dim]tab ⇥[/] {escape(hint)}" if names and event.completion.prefix else ""
        )

    def action_toggle_json(self) -> None:
        self.results.toggle_json()

    def action_editor(self) -> None:
        self.editor.focus()

    # -- record browser -------------------------------------------------------------------------

    def action_records(self) -> None:
        self.query_one("#ws-tabs", TabbedContent).active = "tab-records"
        self.query_one("#rb-objects").focus()

    @on(ResultsTable.IdChosen, "#result-table")
    def _open_id_from_results(self, event: ResultsTable.IdChosen) -> None:
        if self.records.open_id(event.record_id):
            self.query_one("#ws-tabs", TabbedContent).active = "tab-records"
            self.call_after_refresh(self.records.table.focus)

    @on(RecordBrowser.Wanted)
    def _fetch(self, event: RecordBrowser.Wanted) -> None:
        if self.episode is not None:
            self.fetch_records(event.request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="records")
    def fetch_records(self, request: Request) -> None:
        assert self.episode is not None and self.schema is not None
        org = self.episode.org
        self.arena.log_browse(self.episode, request)
        call = self.arena.org_call
        if request.kind == "page":
            result = call(org.query, page_soql(self.schema, request.object_name, request.offset))
            self.post_message(PageFetched(request, result))
        else:
            record = call(org.get, request.object_name, request.record_id)
            related = call(org.related, request.object_name, request.record_id) if record else {}
            self.post_message(RecordFetched(request, record, related))

    @on(PageFetched)
    def _page(self, event: PageFetched) -> None:
        self.records.show_page(event.request, event.result)

    @on(RecordFetched)
    def _record(self, event: RecordFetched) -> None:
        self.records.show_record(event.request, event.record, event.related)

    # -- chat -----------------------------------------------------------------------------------

    def action_chat(self) -> None:
        if self.task_row.interactive:
            self.query_one("#chat", ChatPane).input.focus()

    @work(thread=True, exclusive=True, exit_on_error=False, group="chat")
    def chat_opening(self) -> None:
        assert self.episode is not None
        self.post_message(UserSpoke(self.episode.opening() or "", opening=True))

    @on(ChatPane.Said)
    def _said(self, event: ChatPane.Said) -> None:
        if self.episode is None:
            return
        pane = self.query_one("#chat", ChatPane)
        pane.add_message("human", event.text)
        pane.set_waiting(True)
        self.say(event.text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="chat")
    def say(self, text: str) -> None:
        assert self.episode is not None
        reply = self.episode.say(text)
        self.post_message(UserSpoke(reply or ""))

    @on(UserSpoke)
    def _user_spoke(self, event: UserSpoke) -> None:
        pane = self.query_one("#chat", ChatPane)
        if event.text:
            pane.add_message("user", event.text)
        if event.text == STOP:
            pane.set_closed("the customer ended the conversation: submit with ctrl+s")
            self.notify("The customer ended the conversation. Submit your final answer (ctrl+s).")
        else:
            pane.set_waiting(False)

    # -- submit ---------------------------------------------------------------------------------

    def action_submit(self) -> None:
        if self.episode is None or self._submitting:
            return
        if self.episode.finished:
            self.notify("This session is already closed.", severity="warning")
            return
        self.app.push_screen(
            SubmitDialog(self.draft_answer, interactive=self.task_row.interactive), self._confirmed
        )

    def _confirmed(self, answer: str | None) -> None:
        if answer is None:
            return
        self.draft_answer = answer
        self._submitting = True
        self._show_state("grading…")
        self.submit_answer(answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="submit")
    def submit_answer(self, answer: str) -> None:
        assert self.episode is not None
        try:
            grade = self.episode.submit(answer)
        finally:
            self._submitting = False
        self.post_message(
            Submitted(
                grade,
                self.episode.ground_truth(),
                self.episode.active_seconds,
                self.episode.query_count,
            )
        )

    @on(Submitted)
    def _submitted(self, event: Submitted) -> None:
        from crmarena_tui.screens.result_screen import ResultScreen

        self.clock.pause()
        self.arena.refresh_statuses()
        self.app.switch_screen(
            ResultScreen(
                self.task_row,
                event.grade,
                event.ground_truth,
                event.active_seconds,
                event.query_count,
            )
        )

    # -- pause and leaving ----------------------------------------------------------------------

    def action_pause(self) -> None:
        self.pause_work()

    def action_run_agent(self) -> None:
        """Hand this task to an agent (asks which); this session is paused and left."""
        self.arena.run_agent(self.task_row, from_screen=self)

    def action_back(self) -> None:
        if self.episode is not None and not self.episode.finished:
            self.arena.in_background(self.episode.pause, "pause")
        self.app.pop_screen()
