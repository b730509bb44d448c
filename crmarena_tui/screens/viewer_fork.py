"""Forking in the trajectory viewer (`f`): continue a session after one of its steps, as a human
(in the workspace) or as an agent (run here to its end). The viewer (trajectory_viewer.py) derives
from this screen; the fork dialog and the session header number steps the same way ("after step
N")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.message import Message
from textual.worker import get_current_worker

from crmarena_tui.screens.fork_dialog import ForkChoice, ForkDialog
from crmarena_tui.screens.viewer_annotations import ViewerAnnotations

if TYPE_CHECKING:
    from crmarena_tui.session.episode import Episode


class ViewerFork(ViewerAnnotations):
    """The fork action of the trajectory viewer."""

    @dataclass
    class Forked(Message):
        episode: Episode
        choice: ForkChoice

    @dataclass
    class Progress(Message):
        text: str

    def _status(self, text: str) -> None:
        raise NotImplementedError

    def action_fork(self) -> None:
        step = self.current
        if step is None or self.data is None:
            return
        if any(s.kind in ("submit", "grade") for s in self.steps[: step.index + 1]):
            self.notify(
                "A session cannot be forked at or after its submission: pick an earlier step.",
                severity="warning",
            )
            return
        self.app.push_screen(
            ForkDialog(
                f"session {self.data.session.id} after step {step.index + 1}", self.data.agent_model
            ),
            lambda choice: self._fork_chosen(choice, step.last_seq),
        )

    def _fork_chosen(self, choice: ForkChoice | None, at_seq: int) -> None:
        if choice is not None:
            self._status(f"[dim]forking as {escape(choice.agent or 'you')}…[/]")
            self.fork(choice, at_seq)

    @work(thread=True, exclusive=True, exit_on_error=False, group="viewer-fork")
    def fork(self, choice: ForkChoice, at_seq: int) -> None:
        """Fork the session after event `at_seq`. As a human: the app's participant, ready for the
        workspace. As an agent: under its own participant, and the agent works the fork to its
        end here (or until the worker is cancelled, leaving the fork in progress)."""
        from crmarena_tui.screens.fork_dialog import fork_session

        assert self.data is not None
        worker = get_current_worker()
        episode = fork_session(
            self.arena,
            self.data.session,
            at_seq,
            choice,
            on_progress=lambda text: self.post_message(self.Progress(text)),
            should_stop=lambda: worker.is_cancelled,
        )
        self.post_message(self.Forked(episode, choice))

    @on(Progress)
    def _progress(self, event: Progress) -> None:
        self._status(f"[dim]{event.text}[/]")

    @on(Forked)
    def _forked(self, event: Forked) -> None:
        from crmarena_tui.screens.forked_workspace import ForkedWorkspace

        episode = event.episode
        self._status(f"forked: session {episode.session_id}")
        if event.choice.mode == "human":
            self.app.push_screen(ForkedWorkspace(episode))
        else:
            from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

            self.app.push_screen(TrajectoryViewer(episode.session_id))
