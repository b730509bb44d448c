"""Fork a session from one of its steps: continue as yourself in the workspace, or as an agent
(the reference agent, or a model string). The new session records its parent and fork step.

`ForkedWorkspace` is the workspace opened on an already forked episode (instead of starting or
resuming one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from crmarena_tui.messages import EpisodeReady
from crmarena_tui.screens.workspace import Workspace


@dataclass(frozen=True)
class ForkChoice:
    """`mode` "human" (you, in the workspace) or "agent" (`agent` is "reference" or a model)."""

    mode: str
    agent: str = ""


def fork_session(
    arena: Any,
    session: Any,
    at_seq: int,
    choice: ForkChoice,
    progress: Callable[[str], bool] | None = None,
) -> Any:
    """Blocking (worker threads): fork `session` after event `at_seq` and return the new Episode.

    As a human: the app's participant, ready for the workspace. As an agent: the agent's own
    participant; the agent then works the fork to its end here, `progress(text)` told after each
    step (it returns False to stop early, leaving the fork in progress)."""
    from crmarena_tui.episode import Episode

    store = arena.sessions_store()
    task = session.task()
    org = arena.org_for(task, session)
    user = arena.user_simulator() if task.interactive else None
    clock = arena.options.wall_clock
    if choice.mode == "human":
        return Episode.fork(
            store, session.id, at_seq, org, arena.named_participant(), user=user, clock=clock
        )
    from crmarena_tui.agents.agent import make_agent
    from crmarena_tui.config import load_settings

    agent = make_agent(choice.agent, settings=load_settings())
    settings = agent.settings()
    participant = store.participant(
        "agent", agent.name, model=getattr(agent, "model", None), settings=settings
    )
    episode = Episode.fork(
        store, session.id, at_seq, org, participant, user=user, settings=settings, clock=clock
    )
    for n, step in enumerate(agent.steps(episode), start=1):
        keep_going = (
            progress(f"{choice.agent}: step {n} · {step.action} {step.text[:60]}")
            if progress is not None
            else True
        )
        if step.done or not keep_going:
            break
    return episode


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
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

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
        options.focus()

    @on(OptionList.OptionSelected, "#fork-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = str(event.option.id)
        if choice == "human":
            self.dismiss(ForkChoice("human"))
        elif choice == "reference":
            self.dismiss(ForkChoice("agent", "reference"))
        else:
            self.query_one("#fork-model", Input).focus()

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


class ForkedWorkspace(Workspace):
    """The workspace on a forked episode: the fork's log shows as a resumed session's would
    (queries before the fork in the editor's history, the dialogue in the chat)."""

    def __init__(self, episode: Any) -> None:
        super().__init__(episode.session.task())
        self.forked = episode

    @work(thread=True, exclusive=True, exit_on_error=False, group="episode")
    def open_episode(self) -> None:
        episode = self.forked
        schema = self.arena.org_call(episode.org.describe)
        self.post_message(EpisodeReady(episode, schema))
