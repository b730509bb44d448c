"""The trajectory viewer's forking part (`f`): continue a session after one of its steps, as a
human (in the workspace) or as an agent (run here to its end). The fork dialog and the session
header number steps the same way ("after step N").

A part of the viewer (screens/screen_part.py): it owns the fork worker (group `viewer-fork`),
which posts `Progress` while an agent works and `Forked` once the fork exists, which it opens;
the viewer (screens/trajectory_viewer.py) says both on its status line.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on
from textual.message import Message
from textual.worker import get_current_worker

from crmarena_tui.screens.fork_dialog import FORK_HOLD, ForkChoice, ForkDialog
from crmarena_tui.screens.screen_part import ScreenPart

if TYPE_CHECKING:
    from textual.worker import Worker

    from crmarena_tui.screens.viewer_feed import ViewerFeed
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.widgets.step_list import Step


class ViewerFork(ScreenPart):
    """Forks of the session `feed` holds."""

    @dataclass
    class Forked(Message):
        """The fork exists (opened by this part)."""

        episode: Episode
        choice: ForkChoice

    @dataclass
    class Progress(Message):
        """What the fork is doing (an agent's steps)."""

        text: str  # rich markup

    def __init__(self, feed: ViewerFeed, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.feed = feed

    def ask(self, step: Step) -> None:
        """Offer to fork after `step` (refused at or after the submission)."""
        data = self.feed.data
        if data is None:
            return
        if any(s.kind in ("submit", "grade") for s in self.feed.steps[: step.index + 1]):
            self.notify(
                "A session cannot be forked at or after its submission: pick an earlier step.",
                severity="warning",
            )
            return
        self.app.push_screen(
            ForkDialog(f"session {data.session.id} after step {step.index + 1}", data.agent_model),
            lambda choice: self._chosen(choice, step.last_seq),
        )

    def _chosen(self, choice: ForkChoice | None, at_seq: int) -> None:
        if choice is None:
            return
        self.post_message(self.Progress(f"forking as {escape(choice.agent or 'you')}…"))
        work = partial(self._fork, choice, at_seq)
        self.run_worker(
            work, "fork", "viewer-fork", thread=True, exclusive=True, exit_on_error=False
        )

    def _fork(self, choice: ForkChoice, at_seq: int) -> None:
        """Blocking (worker thread): fork the session after event `at_seq`. As a human: the app's
        participant, ready for the workspace. As an agent: under its own participant, and the
        agent works the fork to its end here (or until the worker is cancelled, leaving the fork
        in progress)."""
        from crmarena_tui.screens.fork_dialog import fork_session

        data = self.feed.data
        assert data is not None
        worker = get_current_worker()
        episode = fork_session(
            self.arena,
            data.session,
            at_seq,
            choice,
            on_progress=lambda text: self.post_message(self.Progress(text)),
            should_stop=lambda: worker.is_cancelled,
        )
        self.post_message(self.Forked(episode, choice))

    def worker_failed(self, worker: Worker) -> None:
        """The fork worker failed: the keys held for its workspace go to the viewer."""
        self.arena.key_gate.release(FORK_HOLD)

    def on_unmount(self) -> None:
        self.arena.key_gate.release(FORK_HOLD)  # left while a fork was made: keys held no more

    @on(Forked)
    def _open(self, event: Forked) -> None:  # then on to the viewer
        """Open the fork: in the workspace for a human, in a viewer of its own for an agent."""
        episode = event.episode
        if event.choice.mode == "human":
            from crmarena_tui.screens.workspace import Workspace

            self.app.push_screen(Workspace.for_fork(episode))  # holds the keys itself
            self.arena.key_gate.release(FORK_HOLD)
        else:
            from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

            self.app.push_screen(TrajectoryViewer(episode.session_id))
