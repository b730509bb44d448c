"""Choose who continues a session forked from one of its steps: yourself in the workspace, or an
agent (the reference agent, or a model string). The trajectory viewer makes the fork
(`fork_session`, in its worker).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

FORK_HOLD = "fork"  # who holds the app's key gate while a human's fork is made

if TYPE_CHECKING:
    from crmarena_tui.screens.arena import Arena
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.storage.models import Session


@dataclass(frozen=True)
class ForkChoice:
    """`mode` "human" (you, in the workspace) or "agent" (`agent` is "reference" or a model)."""

    mode: str
    agent: str = ""


class ForkDialog(ModalScreen[ForkChoice | None]):
    """Choose who continues the session after the step."""

    DEFAULT_CSS = """
    ForkDialog { align: center middle; }
    ForkDialog > #fork-box {
        width: 76; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    ForkDialog #fork-options { height: auto; margin: 1 0; }
    ForkDialog #fork-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="fork-dialog.cancel")
    ]

    def __init__(self, target: str, default_model: str = "") -> None:
        super().__init__()
        self.target = target
        self.default_model = default_model

    def compose(self) -> ComposeResult:
        with Vertical(id="fork-box"):
            yield Label(f"[b]Fork {escape(self.target)}[/]")
            yield Static(
                "The new session starts with every event up to this step and continues "
                "from there; the original stays as it is."
            )
            yield OptionList(
                Option("Continue as me, in the workspace", id="human"),
                Option("Continue as the reference agent", id="reference"),
                Option("Continue as a model (type it below)", id="model"),
                id="fork-options",
            )
            yield Input(
                self.default_model,
                placeholder="model, e.g. gpt-4o or ollama/llama3",
                id="fork-model",
            )
            yield Static("enter: choose · escape: cancel", id="fork-hint")

    def on_mount(self) -> None:
        options = self.query_one("#fork-options", OptionList)
        options.highlighted = 0
        self.set_focus(options)

    @on(OptionList.OptionSelected, "#fork-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = str(event.option.id)
        if choice == "human":
            # the keys typed while the fork is made wait for its workspace (not the viewer)
            cast("Arena", self.app).key_gate.hold(FORK_HOLD, "the fork to open")
            self.dismiss(ForkChoice("human"))
        elif choice == "reference":
            self.dismiss(ForkChoice("agent", "reference"))
        else:
            self.set_focus(self.query_one("#fork-model", Input))

    @on(Input.Submitted, "#fork-model")
    def _model(self, event: Input.Submitted) -> None:
        event.stop()
        model = event.value.strip()
        if not model:
            self.notify("Type a model name first.", severity="warning")
            return
        self.dismiss(ForkChoice("agent", model))

    def action_cancel(self) -> None:
        self.dismiss(None)


def fork_session(
    arena: Arena,
    session: Session,
    at_seq: int,
    choice: ForkChoice,
    *,
    on_progress: Callable[[str], object],
    should_stop: Callable[[], bool],
) -> Episode:
    """Blocking (a worker): fork `session` after event `at_seq`. As a human: the app's
    participant, ready for the workspace. As an agent: under its own participant, and the agent
    works the fork to its end here (or until `should_stop`, leaving the fork in progress). The
    fork continues under `session`'s protocol (the reference agent's under `workbench`:
    `SessionService.fork_protocol`), whose refusals (`protocols.ProtocolRefused`) are raised
    before anything is stored."""
    from crmarena_tui.orgs.strictness import lenient_wanted
    from crmarena_tui.session.agent_driver import StepReport, run_to_end

    service, store = arena.service, arena.sessions_store()
    task = session.task()
    protocol = service.fork_protocol(session, None if choice.mode == "human" else choice.agent)
    wanted = arena.options.user_model
    if choice.mode == "human":
        user = service.user(wanted, protocol=protocol) if task.interactive else None
        org = arena.org_for(task, session)
        return service.fork(store, session, at_seq, org, arena.named_participant(), user=user)
    service.check_agent_run(
        choice.agent,
        interactive=task.interactive,
        org_type=task.org_type,
        user=wanted,
        lenient=lenient_wanted(arena.options.lenient, arena.settings),
        protocol=protocol,
    )
    user = service.agent_user(wanted, protocol=protocol) if task.interactive else None
    org = arena.org_for(task, session)
    agent = service.agent(choice.agent)
    loading = "loading the model client…"  # litellm's import takes seconds: said, not timed
    service.load_model_client(agent, user, on_loading=lambda: on_progress(loading))
    episode = service.fork_for_agent(store, session, at_seq, org, agent, user=user)

    def progress(report: StepReport) -> None:
        step = report.step
        on_progress(f"{choice.agent}: step {report.index} · {step.action} {step.text[:60]}")

    run_to_end(agent, episode, on_step=progress, should_stop=should_stop)
    return episode
