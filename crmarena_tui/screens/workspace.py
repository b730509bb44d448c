"""The workspace: one task, worked through one Episode (docs/ARCHITECTURE.md, "The workspace").

Left: the task panel (and, in interactive tasks, the chat under it). Right: the SOQL/SOSL editor,
then tabs with the results, the record browser and the scratch pane. The screen lays them out,
binds the keys and hands the widgets' events to its parts (screens/screen_part.py), which own the
work: `WorkspaceOpening` (the session), `WorkspaceQuery` (queries), `WorkspaceResults` (the record
browser), `WorkspaceScratch`, `WorkspaceSubmit`, `WorkspaceChat` and `WorkspaceClock` (pause,
idle, time limit, start gate). Each is handed the `WorkspaceState` they share and the widgets it
drives. Every org, store and simulator call runs in a part's worker; workers post messages and
the part's handlers update its widgets; the parts tell the screen what happened by messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static, TabbedContent, TabPane, Tabs

from crmarena_tui.screens.base_screen import FOCUS_MARK, BaseScreen
from crmarena_tui.screens.screen_part import ScreenPart
from crmarena_tui.screens.workspace_chat import WorkspaceChat
from crmarena_tui.screens.workspace_clock import WorkspaceClock
from crmarena_tui.screens.workspace_opening import (
    WorkspaceOpening,
    history,
    opening_note,
    org_clock_note,
)
from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState
from crmarena_tui.screens.workspace_query import WorkspaceQuery
from crmarena_tui.screens.workspace_results import WorkspaceResults
from crmarena_tui.screens.workspace_scratch import WorkspaceScratch
from crmarena_tui.screens.workspace_submit import WorkspaceSubmit
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.chat_pane import ChatPane
from crmarena_tui.widgets.key_footer import KeyFooter
from crmarena_tui.widgets.query_editor import QueryEditor
from crmarena_tui.widgets.record_browser import RecordBrowser
from crmarena_tui.widgets.results_table import ResultsTable
from crmarena_tui.widgets.results_view import ResultsView
from crmarena_tui.widgets.scratch_pane import ScratchPane
from crmarena_tui.widgets.session_clock import SessionClock
from crmarena_tui.widgets.soql_completion import Completer
from crmarena_tui.widgets.task_panel import TaskPanel

if TYPE_CHECKING:
    from crmarena_tui.orgs.schema import Schema
    from crmarena_tui.session.episode import Episode


class Workspace(BaseScreen):
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
        self,
        task: Task,
        episode: Episode | None = None,
        *,
        start_on_key: bool = False,
        fork: bool = False,
    ) -> None:
        """`episode`: open this session (e.g. a take-over's fork) instead of starting one;
        `start_on_key`: start the session with the first key (the task hidden until then);
        `fork`: `episode` is a fork just made in the viewer (its org described on the app's org
        thread, nothing to resume); it shows as a resumed session would (queries before the fork
        in the editor's history, the dialogue in the chat)."""
        super().__init__()
        self.task_row = task
        self.start_on_key = start_on_key
        self.fork = fork
        self.state = WorkspaceState(task)  # what the parts share
        self.opening = WorkspaceOpening(self.state, preset=episode, fork=fork, id="ws-opening")
        if not start_on_key:  # the keys typed while the session opens wait for the editor
            self.arena.key_gate.hold(self, "the session to open")

    @property
    def episode(self) -> Episode | None:
        return self.state.episode

    @property
    def schema(self) -> Schema | None:
        return self.state.schema

    @classmethod
    def for_fork(cls, episode: Episode) -> Workspace:
        """The workspace on a fork just made (the trajectory viewer's `f`)."""
        return cls(episode.session.task(), episode, fork=True)

    FOOTER_FIRST = ("run_query", "submit", "chat", "keys", "maximize_pane")  # (first to show)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`Chat` only in chat tasks (the footer stays within 120 columns); no agent in a study."""
        if action == "chat" and not self.task_row.interactive:
            return False
        if action == "run_agent" and self.arena.options.study:
            return False
        return super().check_action(action, parameters)

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        task, state = self.task_row, self.state
        clock = SessionClock(self.arena.options.clock, limit=self.time_limit(), id="clock")
        with Horizontal(id="ws-top"):
            yield Static(self._title(), id="ws-title")
            yield Static("[dim]opening session…[/]", id="ws-state")
            yield clock
        with Horizontal(id="ws-body"):
            with Vertical(id="ws-left", classes="interactive" if task.interactive else ""):
                with Vertical(id="task-slot", classes="panel") as slot:
                    slot.border_title = "Task"
                if task.interactive:
                    chat = ChatPane(queue=True, id="chat").add_class("panel")
                    chat.border_title = "Chat"
                    yield chat
            with Vertical(id="ws-right"):
                editor = QueryEditor(id="editor").add_class("panel")
                editor.border_title = "Query · SOQL or SOSL"
                yield editor
                yield (hints := Static("", id="completions"))
                with TabbedContent(id="ws-tabs", classes="panel") as tabs:
                    tabs.border_title = "Results"
                    with TabPane("Results", id="tab-results"):
                        yield (results := ResultsView(id="results"))
                    with TabPane("Records", id="tab-records"):
                        yield (records := RecordBrowser(id="records"))
                    with TabPane("Scratch", id="tab-scratch"):
                        yield (scratch := ScratchPane(id="scratch"))
        yield KeyFooter()
        # the parts: no look of their own
        yield self.opening
        yield WorkspaceQuery(
            state, editor=editor, results=results, hints=hints, tabs=tabs, id="ws-query"
        )
        yield WorkspaceResults(state, results=results, records=records, tabs=tabs, id="ws-results")
        yield WorkspaceScratch(state, pane=scratch, id="ws-scratch")
        yield WorkspaceSubmit(state, clock=clock, id="ws-submit")
        if task.interactive:
            yield WorkspaceChat(state, pane=chat, id="ws-chat")
        yield WorkspaceClock(state, clock=clock, start_on_key=self.start_on_key, id="ws-clock")

    # the widgets
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
    def scratch(self) -> ScratchPane:
        return self.query_one("#scratch", ScratchPane)

    @property
    def chat(self) -> ChatPane:
        return self.query_one("#chat", ChatPane)

    @property
    def clock(self) -> SessionClock:
        return self.query_one("#clock", SessionClock)

    # the parts
    @property
    def query_part(self) -> WorkspaceQuery:
        return self.query_one(WorkspaceQuery)

    @property
    def results_part(self) -> WorkspaceResults:
        return self.query_one(WorkspaceResults)

    @property
    def scratch_part(self) -> WorkspaceScratch:
        return self.query_one(WorkspaceScratch)

    @property
    def submit_part(self) -> WorkspaceSubmit:
        return self.query_one(WorkspaceSubmit)

    @property
    def chat_part(self) -> WorkspaceChat:
        return self.query_one(WorkspaceChat)

    @property
    def clock_part(self) -> WorkspaceClock:
        return self.query_one(WorkspaceClock)

    def on_mount(self) -> None:
        # `tab` from the editor goes straight to the results (or the open tab's content): the tab
        # headers are reached with ctrl+b, ctrl+o and ctrl+j instead.
        self.query_one("#ws-tabs", TabbedContent).query_one(Tabs).can_focus = False
        if self.task_row.interactive:
            self.chat.set_waiting(True)
        self.clock_part.start()  # the session opens now (or after the first key)

    # -- the time limit and the state line -----------------------------------------------------

    def time_limit(self) -> float | None:
        """Active seconds this task may take (a study's limit; None: no limit)."""
        study = self.arena.study
        return study.time_limit_seconds if study is not None else None

    def _show_state(self, text: str) -> None:
        self.query_one("#ws-state", Static).update(f"[dim]{text}[/]")

    @on(WorkspacePart.Noted)
    def _state_noted(self, event: WorkspacePart.Noted) -> None:
        self._show_state(event.text)

    # -- opening --------------------------------------------------------------------------------

    @on(WorkspaceClock.Started)
    def _started(self) -> None:
        # Loading only once it opens: behind the start overlay the indicator's frames repainted
        # the whole screen many times a second (100 KB/s to a served participant's browser).
        self.query_one("#ws-body").loading = True
        self.opening.open_episode()

    @on(WorkspaceOpening.Opened)
    def _opened(self, event: WorkspaceOpening.Opened) -> None:
        episode = event.episode
        self.query_one("#ws-body").loading = False
        view = self.arena.blind_view  # blind mode: no type, idx or metric in the panel either
        heading = view.heading(self.task_row) if view.enabled else None
        self.query_one("#task-slot").mount(
            TaskPanel(episode.task, aided=episode.session.aided, heading=heading, id="task-panel")
        )
        self.editor.set_completer(Completer(event.schema))
        self.results_part.open(event.schema)
        if note := org_clock_note(episode, self.task_row.today()):
            self.query_one("#ws-title", Static).update(f"{self._title()} {note}")
        queries, chat = history(episode)
        self.scratch_part.replay(episode.events)
        self._show_state(opening_note(episode, len(queries)))
        self.query_part.replay(queries)
        self.results_part.replay(episode.events, len(queries))
        if self.task_row.interactive:
            self.chat_part.replay(episode, chat)
        self.clock.start(episode.active_seconds)
        self.clock_part.opened()
        if episode.finished:
            self._show_state(f"[b]{escape(episode.status)}[/]: this session is closed")
        self.set_focus(self.editor)  # now: the keys held while it opened go to the editor
        self.arena.key_gate.release(self)

    def _title(self) -> str:
        """The title: the task's heading (blind mode: no type, idx or metric) and its date."""
        task, today = self.task_row, self.task_row.today()
        heading = self.arena.blind_view.heading(task)
        return heading + (f" [dim]· today {today.isoformat()}[/]" if today else "")

    @on(ScreenPart.Failed)
    def _part_failed(self, event: ScreenPart.Failed) -> None:
        if event.group == "episode":
            self.query_one("#ws-body").loading = False
            self._show_state(f"[red]cannot open the session: {escape(str(event.error))}[/]")
            self.notify(str(event.error), severity="error", markup=False)  # the line, whole
            self.arena.key_gate.release(self)

    def on_unmount(self) -> None:
        self.arena.key_gate.release(self)  # left before it opened

    # -- the widgets' events, to the parts ------------------------------------------------------

    @on(QueryEditor.CompletionsChanged)
    def _completions(self, event: QueryEditor.CompletionsChanged) -> None:
        self.query_part.show_completions(event.completion)

    @on(WorkspaceQuery.Ran)
    def _query_ran(self, event: WorkspaceQuery.Ran) -> None:
        self.scratch_part.add_table(event.number, event.text, event.result)

    @on(ResultsTable.IdChosen, "#result-table")
    def _open_id_from_results(self, event: ResultsTable.IdChosen) -> None:
        self.results_part.open_id(event.record_id)

    @on(RecordBrowser.Wanted)
    def _fetch(self, event: RecordBrowser.Wanted) -> None:
        self.results_part.fetch(event.request)

    @on(TabbedContent.TabActivated, "#ws-tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        """The pane's border says which tab shows (its mark kept when it holds the focus)."""
        tabs = event.tabbed_content
        mark = FOCUS_MARK if str(tabs.border_title or "").startswith(FOCUS_MARK) else ""
        tabs.border_title = mark + event.tab.label.plain

    @on(ScratchPane.Run)
    def _compute(self, event: ScratchPane.Run) -> None:
        self.scratch_part.run(event.text)

    @on(ScratchPane.SaveWanted)
    def _save_wanted(self, event: ScratchPane.SaveWanted) -> None:
        self.scratch_part.save(event.output)

    @on(ChatPane.Said)
    def _said(self, event: ChatPane.Said) -> None:
        self.chat_part.send(event.text)

    @on(WorkspaceClock.TimeUp)
    def _time_up(self) -> None:
        self.submit_part.end_at_time_limit()

    # -- actions --------------------------------------------------------------------------------

    def action_run_query(self) -> None:
        # ctrl+r is a priority binding, handled by the app before keys still queued for the
        # editor (fast typing, a paste): read the text once the editor has caught up.
        self.editor.call_later(self.query_part.run_editor_text)

    def action_submit(self) -> None:
        self.submit_part.start()

    def action_toggle_json(self) -> None:
        self.results.toggle_json()

    def action_records(self) -> None:
        self.results_part.show_records()

    def action_scratch(self) -> None:
        # the input focused at once (the keys typed next go to it), and again once the tab is
        # drawn (TabbedContent follows the focus back to the pane it had)
        self.query_one("#ws-tabs", TabbedContent).active = "tab-scratch"
        self.set_focus(self.scratch.input)
        self.call_after_refresh(self.scratch.input.focus)

    def action_chat(self) -> None:
        # focused now, not after the keys already typed: `Widget.focus` waits for them, so a
        # message typed right after ctrl+t would go to the editor
        if self.task_row.interactive:
            self.set_focus(self.chat.input)

    def action_editor(self) -> None:
        self.set_focus(self.editor)  # now: a key typed right after f2 goes to the editor

    def action_previous_pane(self) -> None:
        """`shift+tab`: from the editor to the task panel (in a chat task the chat's header,
        which comes before the chat in the focus order), elsewhere the previous widget."""
        panels = list(self.query("#task-panel").results(TaskPanel))
        if panels and self.focused is self.editor:
            self.set_focus(panels[0])
        else:
            self.focus_previous()

    def action_pause(self) -> None:
        self.clock_part.pause_work()

    def action_run_agent(self) -> None:
        """Hand this task to an agent (asks which); this session is paused and left (not in a
        study: `CrmArenaApp.run_agent` refuses)."""
        self.arena.run_agent(self.task_row, from_screen=self)

    def action_back(self) -> None:
        """`escape` goes back one level: a completion hint is dismissed; from a pane (results,
        records, scratch, chat, the task panel) the focus goes back to the editor; from the
        editor, leaving the task is asked first (enter leaves, escape stays)."""
        if self.focused is self.editor and self.editor.dismiss_completion():
            self.query_part.show_completions(None)
            return
        if self.focused is not None and self.focused is not self.editor:
            self.set_focus(self.editor)  # at once: the next keys typed go to the editor
            self._show_state("escape again asks to leave the task")
            return
        if self.state.open_error is not None:  # nothing opened: nothing to leave by surprise
            self.app.pop_screen()
            return
        from crmarena_tui.screens.leave_dialog import LeaveDialog

        self.app.push_screen(LeaveDialog(self.arena.blind_view.heading(self.task_row)), self._leave)

    def _leave(self, leave: bool | None) -> None:
        if not leave:
            self.set_focus(self.editor)
            return
        if self.episode is not None and not self.episode.finished:
            self.arena.in_background(self.episode.pause, "pause")
        self.app.pop_screen()
