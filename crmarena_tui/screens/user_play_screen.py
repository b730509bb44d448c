"""A human plays the user for an agent in an interactive task.

The human sees the hidden instruction (the task's real request and persona, from the session's
task snapshot) that the agent never sees; the agent's messages appear in the chat and the human
answers them. `ctrl+d` ends the conversation (the user's `###STOP###`), after which the agent
submits its last answer and the result shows. The agent runs in a worker; when it wants a reply it
blocks on a `HumanUser` queue that this screen fills.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, Static

from crmarena_tui.agents.base import STOP
from crmarena_tui.screens.agent_run_screen import AgentRunScreen
from crmarena_tui.session.agent_driver import AgentRunConfig, DriverState, HumanUser, StepReport
from crmarena_tui.widgets.agent_step_log import LABELS, escape
from crmarena_tui.widgets.chat_pane import ChatPane
from crmarena_tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.tasks.model import Task

REPLY_HINT = "reply as the customer… (enter sends)"
OPENING_HINT = "write your first message as the customer… (enter sends)"


def instruction_markdown(query: str, persona: str) -> str:
    """The hidden brief of the user: what they need, and who they are."""
    parts = ["## What you need\n" + (query.strip() or "_(no request recorded)_")]
    if persona.strip():
        parts.append("## Who you are\n" + persona.strip())
    parts.append(
        "_The agent never sees this. Reveal it as a customer would: a piece at a time, "
        "answering what the agent asks. End with ctrl+d once you have your answer._"
    )
    return "\n\n".join(parts)


class UserPlayScreen(AgentRunScreen, inherit_bindings=False):
    """The agent's chat partner is the human at the keyboard."""

    AUTO_FOCUS = "#chat-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+d", "done", "Done (###STOP###)", priority=True, id="user-play.done"),
        Binding("escape", "back", "Back", id="user-play.back"),
    ]

    @dataclass
    class UserTurn(Message):
        """The agent waits for the user: `kind` "opening" or "reply" (to `message`)."""

        kind: str
        message: str

    def __init__(self, task: Task, config: AgentRunConfig) -> None:
        super().__init__(task, config)
        self.human = HumanUser(
            lambda kind, message: self.post_message(self.UserTurn(kind, message))
        )
        self.opened = False  # the conversation has its first user message
        self.closed = False  # the human (or the turn limit) ended it
        self._last_agent_message: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="ar-top"):
            yield Static(self._title(), id="ar-title")
            yield Static(self.state_text("idle"), id="ar-state")
        with Horizontal(id="ar-body"):
            with VerticalScroll(id="up-brief"):
                yield Static("[b]You play the customer[/]", id="up-role")
                yield Markdown("", id="up-instruction")
            with Vertical(id="up-right"):
                yield Static("[dim]the agent is starting…[/]", id="up-agent")
                yield ChatPane(id="chat")
        yield KeyFooter()

    @property
    def chat(self) -> ChatPane:
        return self.query_one("#chat", ChatPane)

    def on_mount(self) -> None:
        self.chat.set_waiting(True)

    def on_unmount(self) -> None:
        self.driver.stop()  # first: a reply wait that ends now is a stop, not a failure
        self.human.leave()  # an agent waiting for a reply gives up; the session stays open

    def make_user(self, service: SessionService) -> HumanUser:
        return self.human

    def state_text(self, state: DriverState) -> str:
        return {
            "idle": "starting…",
            "running": "[b green]the agent is working[/]",
            "paused": "[b yellow]paused[/]",
            "stopped": "[b]stopped[/]",
            "finished": "[b]finished[/]",
            "failed": "[b red]the agent stopped with an error[/]",
        }.get(state, state)

    # -- the agent's side -----------------------------------------------------------------------

    def show_ready(self, event: AgentRunScreen.Ready) -> None:
        query, persona = event.instruction or ("", "")
        self.query_one("#up-instruction", Markdown).update(instruction_markdown(query, persona))
        for ev in event.earlier:  # a resumed conversation
            if ev.kind == "message":
                self._add("human" if ev.actor == "user" else "agent", ev.text)
                self.opened = self.opened or ev.actor == "user"

    def show_step(self, report: StepReport) -> None:
        step = report.step
        label = LABELS.get(step.action, step.action)
        self._agent_status(f"agent · step {report.index}: {label}")
        if step.observation == STOP and not self.closed:  # the turn limit ended it
            if step.text and step.text != self._last_agent_message:
                self._add("agent", step.text)
            self._close("the conversation has ended")

    @on(UserTurn)
    def _user_turn(self, event: UserTurn) -> None:
        if event.kind == "reply" and event.message:
            self._add("agent", event.message)
        if self.closed:
            return
        self.chat.set_waiting(False)
        self.chat.input.placeholder = REPLY_HINT if event.kind == "reply" else OPENING_HINT
        self.chat.input.focus()
        self._agent_status("the agent waits for your message")
        self._show_state(
            "[b $accent]your turn[/]"
            if event.kind == "reply"
            else "[b $accent]your turn: open the conversation[/]"
        )

    # -- the human's side -----------------------------------------------------------------------

    @on(ChatPane.Said)
    def _said(self, event: ChatPane.Said) -> None:
        event.stop()
        if event.text.strip() == STOP:
            self.action_done()
            return
        self._add("human", event.text)
        self.opened = True
        self.chat.set_waiting(True)
        self._show_state(self.state_text("running"))
        self._agent_status("the agent is working on your message…")
        self.human.answer(event.text)

    def action_done(self) -> None:
        """End the conversation: the user's `###STOP###`."""
        if self.closed:
            return
        if not self.opened:
            self.notify("Open the conversation first: write what you need.", severity="warning")
            return
        self.human.stop()
        self._add("human", STOP)
        self._close("you ended the conversation: the agent submits its answer")

    def action_back(self) -> None:
        self.driver.stop()
        self.human.leave()
        self.app.pop_screen()

    def _agent_status(self, text: str) -> None:
        self.query_one("#up-agent", Static).update(f"[dim]{escape(text)}[/]")

    def _add(self, actor: str, text: str) -> None:
        if actor == "agent":
            self._last_agent_message = text
        self.chat.add_message(actor, text)

    def _close(self, reason: str) -> None:
        self.closed = True
        self.chat.set_closed(reason)
