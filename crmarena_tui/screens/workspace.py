"""The workspace: one task, worked through one Episode.

Left: the task panel (and, in interactive tasks, the chat under it). Right: the SOQL/SOSL editor,
then tabs with the results, the record browser and the scratch pane. Every org, store and
simulator call runs in a worker; workers post messages and handlers update the widgets. The chat,
the submit and the scratch pane live in the parts this screen derives from
(workspace_chat.py, workspace_submit.py, workspace_scratch.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static, TabbedContent, TabPane, Tabs

from crmarena_tui.app.messages import EpisodeReady, PageFetched, QueryDone, RecordFetched
from crmarena_tui.screens.workspace_scratch import WorkspaceScratch
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.chat_pane import ChatPane
from crmarena_tui.widgets.key_footer import KeyFooter
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.record_browser import RecordBrowser, Request, page_soql
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.results_view import ResultsView
from crmarena_tui.widgets.scratch_pane import ScratchPane
from crmarena_tui.widgets.session_clock import SessionClock
from crmarena_tui.widgets.soql_completion import Completer
from crmarena_tui.widgets.task_panel import TaskPanel

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.orgs.schema import Schema
    from crmarena_tui.scratch.result_tables import TableInfo
    from crmarena_tui.session.episode import Episode


class Workspace(WorkspaceScratch):
    """Work one task: query, browse, compute, chat, submit."""

    AUTO_FOCUS = "#editor"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "run_query", "Run query", priority=True, id="workspace.run-query"),
        Binding("ctrl+s", "submit", "Submit", priority=True, id="workspace.submit"),
        Binding("ctrl+j", "toggle_json", "JSON", id="workspace.toggle-json"),
        Binding("ctrl+b", "records", "Records", id="workspace.records"),
        Binding("ctrl+o", "scratch", "Scratch", id="workspace.scratch"),
        Binding("ctrl+t", "chat", "Chat", id="workspace.chat"),
        Binding("f2", "editor", "Editor", show=False, id="workspace.editor"),  # palette only
        Binding("f6", "pause", "Pause", priority=True, id="workspace.pause"),
        Binding("ctrl+g", "run_agent", "Run agent", priority=True, id="workspace.run-agent"),
        Binding("escape", "back", "Back", id="workspace.back"),
        Binding(  # the task panel (a chat's header) is one shift+tab from the editor
            "shift+tab", "previous_pane", show=False, priority=True, id="workspace.previous-pane"
        ),
    ]

    def __init__(
        self, task: Task, episode: Episode | None = None, *, start_on_key: bool = False
    ) -> None:
        """`episode`: open this session (e.g. a take-over's fork) instead of starting one;
        `start_on_key`: start the session with the first key (the task hidden until then)."""
        super().__init__()
        self.task_row = task
        self.start_on_key = start_on_key
        self.preset_episode = episode
        self.episode: Episode | None = None
        self.schema: Schema | None = None
        self._token = 0
        self.scratch_tables: list[TableInfo] = []  # r1, r2, ... as the scratch pane lists them

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`Chat` only in chat tasks (the footer stays within 120 columns); no agent in a study."""
        if action == "chat" and not self.task_row.interactive:
            return False
        if action == "run_agent" and self.arena.options.study:
            return False
        return super().check_action(action, parameters)

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        task = self.task_row
        today = task.today()
        with Horizontal(id="ws-top"):
            yield Static(  # blind mode: no type, idx or metric
                self.arena.blind_view.heading(task)
                + (f" [dim]· today {today.isoformat()}[/]" if today else ""),
                id="ws-title",
            )
            yield Static("[dim]opening session…[/]", id="ws-state")
            yield SessionClock(self.arena.options.clock, limit=self.time_limit(), id="clock")
        with Horizontal(id="ws-body"):
            with Vertical(id="ws-left", classes="interactive" if task.interactive else ""):
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
                    with TabPane("Scratch", id="tab-scratch"):
                        yield ScratchPane(id="scratch")
        yield KeyFooter()

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
        # `tab` from the editor goes straight to the results (or the open tab's content): the tab
        # headers are reached with ctrl+b, ctrl+o and ctrl+j instead.
        self.query_one("#ws-tabs", TabbedContent).query_one(Tabs).can_focus = False
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
        from crmarena_tui.orgs.base import QueryResult
        from crmarena_tui.scratch.result_tables import result_sets

        queries, chat, last = [], [], None
        for ev in episode.events:
            if ev.kind in ("query", "search") and ev.actor in ("human", "agent"):  # + taken over
                queries.append(ev.text)
            elif ev.kind == "message":
                chat.append((ev.actor, ev.text))
        sets = result_sets(episode.events)
        self.scratch_tables = [s.info() for s in sets]
        self.show_tables(self.scratch_tables)
        self.replay_scratch(episode.events)
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
        done = sets[-1] if sets else None
        if done is not None and (done.records is not None or done.error):
            # the last results as they were shown, read back from the log
            self.results.show_result(
                done.query,
                QueryResult(error=done.error)
                if done.records is None
                else QueryResult(records=done.records, total_size=len(done.records)),
                name=done.name,
                note=f"resumed session · {len(queries)} queries",
            )
        elif last:
            self.results.query_one("#result-status", Static).update(
                f"[dim]resumed session · {len(queries)} queries · ctrl+r runs the query again[/]"
            )
        if self.task_row.interactive:
            self.replay_chat(episode, chat)

    def worker_failed(self, worker: Worker) -> None:
        if worker.group == "episode":
            self.query_one("#ws-body").loading = False
            self.session_failed(worker.error)
        elif worker.group == "query":
            self.results.query_one("#result-status", Static).update(
                f"[b red]{escape(type(worker.error).__name__)}: {escape(str(worker.error))}[/]"
            )
        elif worker.group == "chat":
            self.chat_failed()
        elif worker.group == "submit":
            self._show_state("[red]submission failed[/]")

    # -- queries --------------------------------------------------------------------------------

    def action_run_query(self) -> None:
        # ctrl+r is a priority binding, handled by the app before keys still queued for the
        # editor (fast typing, a paste): read the text once the editor has caught up.
        self.editor.call_later(self._run_editor_text)

    def _run_editor_text(self) -> None:
        text = self.editor.text.strip()
        if self.episode is None:
            self.not_open()
            return
        if not self.accepting:
            self.notify("This session is closed: nothing more is run.", severity="warning")
            return
        if not text:
            self.notify("Write a SOQL or SOSL query first.", severity="warning")
            return
        self._token += 1
        self.editor.remember(text)
        self.query_one("#completions", Static).update("")
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
        number = self.episode.query_count if self.episode else 0
        self.results.show_result(event.text, event.result, name=f"r{number}")
        if event.result.warning:  # the org's word on values an import left as text (once)
            self.notify(event.result.warning, severity="warning", timeout=15, markup=False)
        self.query_one("#completions", Static).update("")
        self._show_state(f"{number} queries" if self.episode else "")
        if self.episode is not None:
            self.scratch_tables.append(self.table_info(number, event.text, event.result))
            self.show_tables(self.scratch_tables)

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

    def action_previous_pane(self) -> None:
        """`shift+tab`: from the editor to the task panel (in a chat task the chat's header,
        which comes before the chat in the focus order), elsewhere the previous widget."""
        panels = list(self.query("#task-panel").results(TaskPanel))
        if panels and self.focused is self.editor:
            self.set_focus(panels[0])
        else:
            self.focus_previous()

    # -- record browser -------------------------------------------------------------------------

    def action_records(self) -> None:
        self.query_one("#ws-tabs", TabbedContent).active = "tab-records"
        self.query_one("#rb-objects").focus()

    @on(ResultsTable.IdChosen, "#result-table")
    def _open_id_from_results(self, event: ResultsTable.IdChosen) -> None:
        if self.records.open_id(event.record_id):
            self.query_one("#ws-tabs", TabbedContent).active = "tab-records"
            self.call_after_refresh(self.records.focus_current)

    @on(RecordBrowser.Wanted)
    def _fetch(self, event: RecordBrowser.Wanted) -> None:
        if self.episode is not None:
            self.fetch_records(event.request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="records")
    def fetch_records(self, request: Request) -> None:
        assert self.episode is not None and self.schema is not None
        org = self.episode.org
        self.log_browse(self.episode, request)
        call = self.arena.org_call
        if request.kind == "page":
            result = call(
                org.query,
                page_soql(self.schema, request.object_name, request.offset, request.all_fields),
            )
            self.post_message(PageFetched(request, result))
        else:
            record = call(org.get, request.object_name, request.record_id)
            related = call(org.related, request.object_name, request.record_id) if record else {}
            self.post_message(RecordFetched(request, record, related))

    @staticmethod
    def log_browse(episode: Episode, request: Request) -> None:
        """Record-browser steps go into the session log (not counted as queries)."""
        episode.record(
            "system",
            {
                "event": "browse",
                "kind": request.kind,
                "object": request.object_name,
                "offset": request.offset,
                "record_id": request.record_id,
            },
            actor="human",
        )

    @on(PageFetched)
    def _page(self, event: PageFetched) -> None:
        self.records.show_page(event.request, event.result)

    @on(RecordFetched)
    def _record(self, event: RecordFetched) -> None:
        self.records.show_record(event.request, event.record, event.related)

    # -- pause and leaving ----------------------------------------------------------------------

    def action_pause(self) -> None:
        self.pause_work()

    def action_run_agent(self) -> None:
        """Hand this task to an agent (asks which); this session is paused and left (not in a
        study: `CrmArenaApp.run_agent` refuses)."""
        self.arena.run_agent(self.task_row, from_screen=self)

    def action_back(self) -> None:
        """`escape` from a pane (results, records, scratch, chat, the task panel) goes back to
        the editor; from the editor, back to the task browser."""
        if self.focused is not None and self.focused is not self.editor:
            self.set_focus(self.editor)  # at once: the next keys typed go to the editor
            self._show_state("escape again goes back to the tasks")
            return
        if self.episode is not None and not self.episode.finished:
            self.arena.in_background(self.episode.pause, "pause")
        self.app.pop_screen()
