"""The workspace opened on an already forked episode (instead of starting or resuming one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from crmarena_tui.app.messages import EpisodeReady
from crmarena_tui.screens.workspace import Workspace

if TYPE_CHECKING:
    from crmarena_tui.session.episode import Episode


class ForkedWorkspace(Workspace):
    """The fork's log shows as a resumed session's would (queries before the fork in the editor's
    history, the dialogue in the chat)."""

    def __init__(self, episode: Episode) -> None:
        super().__init__(episode.session.task())
        self.forked = episode

    @work(thread=True, exclusive=True, exit_on_error=False, group="episode")
    def open_episode(self) -> None:
        episode = self.forked
        schema = self.arena.org_call(episode.org.describe)
        self.post_message(EpisodeReady(episode, schema))
