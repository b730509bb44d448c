"""Which agent to run on a task, and how: the reference agent or a model (litellm string,
strategy, API base), aided, privacy-aware, who plays the user in interactive tasks, the pace of the
live view, start paused (`space` toggles it). `enter` starts, `escape` cancels."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from crmarena_tui.session.agent_driver import HUMAN_USER, AgentRunConfig
from crmarena_tui.tasks.catalog import BY_NAME
from crmarena_tui.tasks.model import Task

if TYPE_CHECKING:
    from crmarena_tui.settings.config import Settings

REFERENCE = "reference"
MODEL = "model"
PROTOCOL_NOTE = {
    "upstream": "Protocol upstream: a model agent runs as upstream's code runs it (scores "
    "comparable with the paper; a model plays the user). The reference agent runs under "
    "workbench.",
    "workbench": "Protocol workbench: this project's agent loop (JSON results, tool calling on "
    "every task, the scripted user).",
}


def default_config(settings: Settings, *, aided: bool = False) -> AgentRunConfig:
    """The dialog's starting values: the configured agent and user models, else the reference
    agent, and the user the protocol gives a model agent (upstream's user model under `upstream`,
    the scripted user otherwise)."""
    from crmarena_tui.agents.upstream import UPSTREAM_USER_MODEL

    agent = getattr(settings, "agent_model", None) or REFERENCE
    upstream = agent != REFERENCE and getattr(settings, "protocol", None) == "upstream"
    user = getattr(settings, "user_model", None) or (
        UPSTREAM_USER_MODEL if upstream else "scripted"
    )
    return AgentRunConfig(
        agent=agent, aided=aided, api_base=getattr(settings, "api_base", None), user=user
    )


def user_choices(
    config: AgentRunConfig, user_model: str | None, protocol: str = "workbench"
) -> list[tuple[str, str]]:
    """Who may play the user: the scripted user, the configured models (and, under `upstream`,
    upstream's user model, which a model agent needs there), or the human at the keyboard."""
    from crmarena_tui.agents.upstream import UPSTREAM_USER_MODEL

    choices = [("the scripted user (offline)", "scripted")]
    upstream = UPSTREAM_USER_MODEL if protocol == "upstream" else None
    for model in dict.fromkeys(
        m for m in (user_model, config.user, upstream) if m not in (None, "scripted", HUMAN_USER)
    ):
        choices.append((f"a model: {model}", str(model)))
    choices.append(("me: I play the user (I see the hidden request)", HUMAN_USER))
    return choices


class AgentSetupDialog(ModalScreen[AgentRunConfig | None]):
    """Dismisses with the run's `AgentRunConfig`, or None when cancelled."""

    DEFAULT_CSS = """
    AgentSetupDialog { align: center middle; }
    AgentSetupDialog > #setup-box {
        width: 84; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    AgentSetupDialog .setup-row { height: 1; margin-top: 1; }
    AgentSetupDialog .setup-label { width: 12; }
    AgentSetupDialog .setup-row > Select, AgentSetupDialog .setup-row > Input { width: 1fr; }
    AgentSetupDialog #setup-flags { height: auto; margin-top: 1; }
    AgentSetupDialog #setup-flags Checkbox { margin-bottom: 1; }
    AgentSetupDialog #setup-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    AgentSetupDialog #setup-buttons Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="agent-setup.cancel"),
        Binding("ctrl+s", "start", "Start", priority=True, id="agent-setup.start"),
        Binding("space", "toggle_paused", "Start paused", id="agent-setup.toggle-paused"),
    ]

    def __init__(
        self,
        task: Task,
        defaults: AgentRunConfig,
        *,
        user_model: str | None = None,
        protocol: str = "upstream",
    ) -> None:
        super().__init__()
        self.task_row = task
        self.defaults = defaults
        self.user_model = user_model
        self.protocol = protocol

    def compose(self) -> ComposeResult:
        d, task = self.defaults, self.task_row
        entry = BY_NAME.get(task.task)
        is_model = d.agent != REFERENCE
        with Vertical(id="setup-box"):
            yield Label(
                f"[b]Run an agent on[/] {entry.label if entry else task.task} "
                f"[dim]#{task.idx} · {task.org_type}"
                f"{' · interactive' if task.interactive else ''}[/]"
            )
            yield Static(
                "[dim]The agent works in its own session; you watch it step by step, "
                "pause it, or take over.[/]"
            )
            yield Static(f"[dim]{PROTOCOL_NOTE[self.protocol]}[/]", id="setup-protocol")
            with Horizontal(classes="setup-row"):
                yield Label("Agent", classes="setup-label")
                yield Select(
                    [("the reference agent (offline)", REFERENCE), ("a model or your own", MODEL)],
                    value=MODEL if is_model else REFERENCE,
                    allow_blank=False,
                    compact=True,
                    id="setup-agent",
                )
            with Horizontal(classes="setup-row"):
                yield Label("Model", classes="setup-label")
                yield Input(
                    d.agent if is_model else "",
                    id="setup-model",
                    disabled=not is_model,
                    compact=True,
                    placeholder="openai/gpt-4o-mini, ollama/…, or my_agent.py:MyAgent",
                )
            with Horizontal(classes="setup-row"):
                yield Label("Strategy", classes="setup-label")
                yield Select(
                    [
                        ("ReAct (<execute> / <respond>)", "react"),
                        ("native tool calling", "tool_call"),
                    ],
                    value=d.strategy,
                    allow_blank=False,
                    compact=True,
                    id="setup-strategy",
                    disabled=not is_model,
                )
            with Horizontal(classes="setup-row"):
                yield Label("API base", classes="setup-label")
                yield Input(
                    d.api_base or "",
                    id="setup-api-base",
                    disabled=not is_model,
                    compact=True,
                    placeholder="optional: an OpenAI-compatible server's URL",
                )
            with Horizontal(classes="setup-row"):
                yield Label("Pace", classes="setup-label")
                yield Input(
                    f"{d.pace:g}" if d.pace else "",
                    id="setup-pace",
                    type="number",
                    compact=True,
                    placeholder="seconds to wait after each step, to watch a fast agent (0: none)",
                )
            if task.interactive:
                with Horizontal(classes="setup-row"):
                    yield Label("User", classes="setup-label")
                    choices = user_choices(d, self.user_model, self.protocol)
                    value = d.user if d.user in {v for _, v in choices} else "scripted"
                    yield Select(
                        choices, value=value, allow_blank=False, compact=True, id="setup-user"
                    )
            with Vertical(id="setup-flags"):
                yield Checkbox(
                    "aided: show the agent the optional domain details",
                    d.aided,
                    id="setup-aided",
                    compact=True,
                )
                yield Checkbox(
                    "privacy-aware system prompt", d.privacy_aware, id="setup-privacy", compact=True
                )
                yield Checkbox(
                    "start paused (step from the first action; space toggles)",
                    d.start_paused,
                    id="setup-paused",
                    compact=True,
                )
            with Horizontal(id="setup-buttons"):
                yield Button("Cancel", id="setup-cancel")
                yield Button("Start (ctrl+s)", variant="primary", id="setup-start")

    def on_mount(self) -> None:
        self.query_one("#setup-start", Button).focus()

    @on(Select.Changed, "#setup-agent")
    def _agent_kind(self, event: Select.Changed) -> None:
        is_model = event.value == MODEL
        for selector in ("#setup-model", "#setup-strategy", "#setup-api-base"):
            self.query_one(selector).disabled = not is_model
        if is_model:
            self.query_one("#setup-model", Input).focus()

    def config(self) -> AgentRunConfig | None:
        """What the form says, or None (with a notice) when it is incomplete."""
        kind = self.query_one("#setup-agent", Select).value
        model = self.query_one("#setup-model", Input).value.strip()
        if kind == MODEL and not model:
            self.notify(
                "Name the model (a litellm model string) or your agent (FILE.py:NAME, "
                "module:NAME, an installed agent's name), or pick the reference agent.",
                severity="warning",
            )
            return None
        pace_text = self.query_one("#setup-pace", Input).value.strip() or "0"
        try:
            pace = float(pace_text)
        except ValueError:
            pace = -1.0
        if not 0 <= pace <= 60:
            self.notify("Pace: seconds between 0 and 60 (e.g. 0.5).", severity="warning")
            return None
        user = self.defaults.user
        if self.task_row.interactive:
            user = str(self.query_one("#setup-user", Select).value)
        return replace(
            self.defaults,
            agent=model if kind == MODEL else REFERENCE,
            strategy=str(self.query_one("#setup-strategy", Select).value),
            api_base=self.query_one("#setup-api-base", Input).value.strip() or None,
            user=user,
            aided=self.query_one("#setup-aided", Checkbox).value,
            privacy_aware=self.query_one("#setup-privacy", Checkbox).value,
            start_paused=self.query_one("#setup-paused", Checkbox).value,
            pace=pace,
        )

    @on(Input.Submitted)
    @on(Button.Pressed, "#setup-start")
    def _start(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        self.action_start()

    @on(Button.Pressed, "#setup-cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()

    def action_toggle_paused(self) -> None:
        """`space` outside a text field: toggle "start paused" (a focused checkbox or list
        takes its own space)."""
        paused = self.query_one("#setup-paused", Checkbox)
        paused.value = not paused.value

    def action_start(self) -> None:
        config = self.config()
        if config is not None:
            self.dismiss(config)

    def action_cancel(self) -> None:
        self.dismiss(None)
