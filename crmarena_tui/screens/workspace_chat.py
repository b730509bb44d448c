"""The workspace's chat with the simulated customer (interactive tasks): the opening line, each
message the participant sends and the customer's reply, each in a worker."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.agents.base import STOP
from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.session.episode import Episode
    from crmarena_tui.widgets.chat_pane import ChatPane

CLOSED = "the customer ended the conversation: submit with ctrl+s"


class WorkspaceChat(WorkspacePart):
    """The conversation with the simulated customer; the screen hands it `ChatPane.Said`.

    A message sent while a reply is awaited (the opening line, or the reply to the message
    before) is queued, shown as queued, and sent once the reply is in: none is lost."""

    @dataclass
    class Spoke(Message):
        """The simulated user said something (the opening, or a reply); `STOP` ends the
        dialogue."""

        text: str
        opening: bool = False

    def __init__(self, state: WorkspaceState, *, pane: ChatPane, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.pane = pane
        self.queued: list[str] = []

    def replay(self, episode: Episode, chat: Sequence[tuple[str, str]]) -> None:
        """Show the conversation of a resumed session; start it when nobody has spoken yet."""
        pane = self.pane
        for actor, text in chat:
            if actor == "user" and text == STOP:
                pane.add_end()
            else:
                pane.add_message(actor, text)
        if any(a == "user" and t == STOP for a, t in chat):
            pane.set_closed(CLOSED)
            self._unsent("the customer ended the conversation")
        elif not any(a == "user" for a, _ in chat) and not episode.finished:
            self.opening()
        elif episode.finished:
            pane.set_closed("this session is closed")
            self._unsent("this session is closed")
        else:
            pane.set_waiting(False)
            self._send_queued()

    @work(thread=True, exclusive=True, exit_on_error=False, group="chat")
    def opening(self) -> None:
        assert self.episode is not None
        self.post_message(self.Spoke(self.episode.opening() or "", opening=True))

    def send(self, text: str) -> None:
        """The participant said `text` (enter in the chat's input)."""
        pane = self.pane
        if self.episode is None or pane.waiting:
            self.queued.append(text)
            pane.add_queued(text)
            pane.set_waiting(True)
            return
        if not self.state.accepting:
            self.notify("This session is closed: the message was not sent.", severity="warning")
            pane.input.value = text
            return
        pane.add_message("human", text)
        pane.set_waiting(True)
        self.say(text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="chat")
    def say(self, text: str) -> None:
        assert self.episode is not None
        reply = self.episode.say(text)
        self.post_message(self.Spoke(reply or ""))

    @on(Spoke)
    def _user_spoke(self, event: Spoke) -> None:
        event.stop()
        pane = self.pane
        if event.text == STOP:
            pane.add_end()
        elif event.text:
            pane.add_message("user", event.text)
        if event.text == STOP:
            pane.set_closed(CLOSED)
            self.notify("The customer ended the conversation. Submit your final answer (ctrl+s).")
            self._unsent("the customer ended the conversation")
        else:
            pane.set_waiting(False)
            self._send_queued()

    def _send_queued(self) -> None:
        if self.queued:
            self.pane.drop_queued()
            self.send(self.queued.pop(0))

    def _unsent(self, why: str) -> None:
        """The queued messages cannot be sent: say so; the first goes back to the input."""
        if not self.queued:
            return
        pane, count = self.pane, len(self.queued)
        for _ in self.queued:
            pane.drop_queued()
        first = self.queued[0]
        self.queued.clear()
        if not pane.input.disabled:
            pane.input.value = first
        self.notify(
            f"{count} queued message(s) not sent: {why}. The first one was: {first}",
            severity="warning",
            timeout=15,
        )

    def worker_failed(self, worker: Worker) -> None:
        if self.task_row.interactive:
            self.pane.set_waiting(False)
            self._unsent("the reply failed")
