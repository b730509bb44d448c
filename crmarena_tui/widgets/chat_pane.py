"""The conversation with the simulated user in interactive tasks."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

SPEAKERS = {"user": "Customer", "human": "You", "agent": "Agent", "system": "System"}


HOLD = "A reply is on its way: your message stays here; enter sends it once the reply is in."


class ChatPane(Vertical):
    """Messages, newest at the bottom, and an input; `enter` posts `ChatPane.Said`.

    The input stays enabled (and focused) while a reply is awaited, so the next message can be
    typed at once: a disabled input would lose the focus and the keys typed next. `enter` while
    waiting: with `queue` (the workspace) the message is posted all the same and shown as queued
    (`add_queued`) until its turn comes; without, the text stays in the input and a notice says
    so."""

    waiting = False

    def __init__(self, *, queue: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue = queue

    @dataclass
    class Said(Message):
        pane: ChatPane
        text: str

        @property
        def control(self) -> ChatPane:
            return self.pane

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="chat-log")
        yield Input(placeholder="message the customer… (enter sends)", id="chat-input")

    @property
    def input(self) -> Input:
        return self.query_one("#chat-input", Input)

    def add_message(self, actor: str, text: str) -> None:
        log = self.query_one("#chat-log", VerticalScroll)
        who = SPEAKERS.get(actor, actor)
        line = Text.assemble((f"{who}: ", "bold"), text)  # plain text: `[` in JSON is no markup
        log.mount(Static(line, classes=f"chat-msg chat-{actor}"))
        log.scroll_end(animate=False)

    def add_end(self, who: str = "Customer") -> None:
        """The end of the conversation, as a line (never the raw end marker)."""
        log = self.query_one("#chat-log", VerticalScroll)
        line = Text(f"— {who} ended the conversation —", style="italic")
        log.mount(Static(line, classes="chat-msg chat-end"))
        log.scroll_end(animate=False)

    @property
    def messages(self) -> list[str]:
        """Every message shown, as `Speaker: text`."""
        return [str(s.render()) for s in self.query(".chat-msg").results(Static)]

    def add_queued(self, text: str) -> None:
        """A message typed while a reply is awaited: shown as queued until it is sent."""
        log = self.query_one("#chat-log", VerticalScroll)
        line = Text.assemble(("You (queued, sent after the reply): ", "italic"), text)
        log.mount(Static(line, classes="chat-msg chat-queued"))
        log.scroll_end(animate=False)

    def drop_queued(self) -> None:
        """The oldest queued line: its message is being sent (or will not be)."""
        for line in self.query(".chat-queued").results(Static):
            line.remove()
            return

    def set_waiting(self, waiting: bool) -> None:
        self.waiting = waiting
        queued = len(self.query(".chat-queued"))
        self.input.placeholder = (
            "message the customer… (enter sends)"
            if not waiting
            else f"waiting for the reply… ({queued} queued: enter queues more)"
            if queued
            else "waiting for the reply… (enter queues a message)"
            if self.queue
            else "waiting for the reply…"
        )

    def set_closed(self, reason: str) -> None:
        self.input.disabled = True
        self.input.placeholder = reason

    @on(Input.Submitted, "#chat-input")
    def _send(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text and self.waiting and not self.queue:
            self.notify(HOLD, severity="warning")
        elif text:
            self.input.value = ""
            self.post_message(self.Said(self, text))
