"""The trajectory viewer's forking part (`f`): continue a session after one of its steps, as a
human (in the workspace) or as an agent (run here to its end). The fork dialog and the session
header number steps the same way ("after step N").

It owns the fork worker (group `viewer-fork`), which posts `Progress` while an agent works and
`Forked` once the fork exists; the viewer (screens/trajectory_viewer.py) shows the progress on
its status line and hands `Forked` back (`open`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.message import Message
from textual.worker import get_current_worker

from crmarena_tui.screens.fork_dialog import FORK_HOLD, ForkChoice, ForkDialog

if TYPE_CHECKING:
    from crmarena_tui.screens.base_screen import BaseScreen
    from crmarena_tui.screens.viewer_feed import ViewerFeed
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.widgets.step_list import Step


class ViewerFork:
    """Forks of the session `feed` holds, for `host`."""

    @dataclass
    class Forked(Message):
        episode: Episode
        choice: ForkChoice

    @dataclass
    class Progress(Message):
        text: str  # rich markup

    def __init__(self, host: BaseScreen, feed: ViewerFeed) -> None:
        self.host = host
        self.feed = feed

    def ask(self, step: Step) -> None:
        """Offer to fork after `step` (refused at or after the submission)."""
        data = self.feed.data
        if data is None:
            return
        if any(s.kind in ("submit", "grade") for s in self.feed.steps[: step.index + 1]):
            self.host.notify(
                "A session cannot be forked at or after its submission: pick an earlier step.",
                severity="warning",
            )
            return
        self.host.app.push_screen(
            ForkDialog(f"session {data.session.id} after step {step.index + 1}", data.agent_model),
            lambda choice: self._chosen(choice, step.last_seq),
        )

    def _chosen(self, choice: ForkChoice | None, at_seq: int) -> None:
        if choice is None:
            return
        self.host.post_message(self.Progress(f"forking as {escape(choice.agent or 'you')}…"))
        work = partial(self._fork, choice, at_seq)
        self.host.run_worker(
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
            self.host.arena,
            data.session,
            at_seq,
            choice,
            on_progress=lambda text: self.host.post_message(self.Progress(text)),
            should_stop=lambda: worker.is_cancelled,
        )
        self.host.post_message(self.Forked(episode, choice))

    def failed(self) -> None:
        """The fork worker failed: the keys held for its workspace go to the viewer."""
        self.host.arena.key_gate.release(FORK_HOLD)

    def open(self, event: Forked) -> None:
        """Open the fork: in the workspace for a human, in a viewer of its own for an agent."""
        episode = event.episode
        if event.choice.mode == "human":
            from crmarena_tui.screens.workspace import Workspace

            self.host.app.push_screen(Workspace.for_fork(episode))  # holds the keys itself
            self.host.arena.key_gate.release(FORK_HOLD)
        else:
            from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

            self.host.app.push_screen(TrajectoryViewer(episode.session_id))
