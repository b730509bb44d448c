"""The workspace's chat with the simulated customer (interactive tasks), and what every part of
the workspace shares: the task, the episode and the state line.

`Workspace` (workspace.py) derives from the parts in a chain (`WorkspaceChat` <-
`WorkspaceSubmit` <- `WorkspaceScratch` <- `Workspace`), each a Screen so that Textual collects
its message handlers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.widgets import Static

from crmarena_tui.agents.base import STOP
from crmarena_tui.app.messages import UserSpoke
from crmarena_tui.screens.workspace_clock import WorkspaceClock
from crmarena_tui.widgets.chat_pane import ChatPane

if TYPE_CHECKING:
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.tasks.model import Task

CLOSED = "the customer ended the conversation: submit with ctrl+s"


class WorkspaceChat(WorkspaceClock):
    """The chat half of the workspace."""

    task_row: Task
    episode: Episode | None = None

    def _show_state(self, text: str) -> None:
        self.query_one("#ws-state", Static).update(f"[dim]{text}[/]")

    @property
    def chat(self) -> ChatPane:
        return self.query_one("#chat", ChatPane)

    def replay_chat(self, episode: Episode, chat: Sequence[tuple[str, str]]) -> None:
        """Show the conversation of a resumed session; start it when nobody has spoken yet."""
        pane = self.chat
        for actor, text in chat:
            if actor == "user" and text == STOP:
                pane.add_end()
            else:
                pane.add_message(actor, text)
        if any(a == "user" and t == STOP for a, t in chat):
            pane.set_closed(CLOSED)
        elif not any(a == "user" for a, _ in chat) and not episode.finished:
            self.chat_opening()
        elif episode.finished:
            pane.set_closed("this session is closed")
        else:
            pane.set_waiting(False)

    def action_chat(self) -> None:
        # focused now, not after the keys already typed: `Widget.focus` waits for them, so a
        # message typed right after ctrl+t would go to the editor
        if self.task_row.interactive:
            self.set_focus(self.chat.input)

    @work(thread=True, exclusive=True, exit_on_error=False, group="chat")
    def chat_opening(self) -> None:
        assert self.episode is not None
        self.post_message(UserSpoke(self.episode.opening() or "", opening=True))

    @on(ChatPane.Said)
    def _said(self, event: ChatPane.Said) -> None:
        if not self.accepting:
            return
        pane = self.chat
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
        pane = self.chat
        if event.text == STOP:
            pane.add_end()
        elif event.text:
            pane.add_message("user", event.text)
        if event.text == STOP:
            pane.set_closed(CLOSED)
            self.notify("The customer ended the conversation. Submit your final answer (ctrl+s).")
        else:
            pane.set_waiting(False)

    def chat_failed(self) -> None:
        if self.task_row.interactive:
            self.chat.set_waiting(False)

    open_error: str | None = None  # why the session could not open (nothing can work then)

    def session_failed(self, error: BaseException | None) -> None:
        self.open_error = str(error)
        self._show_state(f"[red]cannot open the session: {escape(str(error))}[/]")

    def not_open(self) -> None:
        """Say why nothing runs yet: the session is opening, or it could not open."""
        if self.open_error is not None:
            self.notify(
                f"The session could not open: {self.open_error} (escape goes back to the tasks)",
                severity="error",
            )
        else:
            self.notify("The session is still opening.", severity="warning")
