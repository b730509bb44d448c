"""The workspace's opening: the session started, resumed or (a fork just made in the viewer) taken
as it is, in a worker; then what a resumed session's log says of where the work stands (its
queries, its dialogue, the state line's words), which the workspace hands to the other parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState

if TYPE_CHECKING:
    from datetime import date

    from textual.worker import Worker

    from crmarena_tui.orgs.schema import Schema
    from crmarena_tui.session.episode import Episode


class WorkspaceOpening(WorkspacePart):
    """Opens the workspace's episode (once the clock part says it may start)."""

    @dataclass
    class Opened(Message):
        """The workspace's episode is open (started or resumed); `schema` feeds completion."""

        episode: Episode
        schema: Schema

    def __init__(
        self,
        state: WorkspaceState,
        *,
        preset: Episode | None = None,
        fork: bool = False,
        id: str | None = None,
    ) -> None:
        """`preset`: open this session (a take-over's fork) instead of starting one; `fork`:
        `preset` is a fork just made in the viewer (its org described on the app's org thread,
        nothing to resume)."""
        super().__init__(state, id=id)
        self.preset = preset
        self.fork = fork

    @work(thread=True, exclusive=True, exit_on_error=False, group="episode")
    def open_episode(self) -> None:
        if self.fork and self.preset is not None:
            episode = self.preset
            schema = self.arena.org_call(episode.org.describe)
        else:
            episode = self.preset or self.arena.start_episode(self.task_row)
            if episode.paused:
                episode.resume()  # coming back to a task is coming back to work
            schema = episode.org.describe()
        self.post_message(self.Opened(episode, schema))

    @on(Opened)
    def _opened(self, event: Opened) -> None:  # then on to the screen
        self.state.episode, self.state.schema = event.episode, event.schema

    def worker_failed(self, worker: Worker) -> None:
        self.state.open_error = str(worker.error)


def history(episode: Episode) -> tuple[list[str], list[tuple[str, str]]]:
    """A session's queries so far (the human's, and an agent's before a take-over) and its
    dialogue, as (actor, text)."""
    queries: list[str] = []
    chat: list[tuple[str, str]] = []
    for ev in episode.events:
        if ev.kind in ("query", "search") and ev.actor in ("human", "agent"):
            queries.append(ev.text)
        elif ev.kind == "message":
            chat.append((ev.actor, ev.text))
    return queries, chat


def opening_note(episode: Episode, queries: int) -> str:
    """The state line once the session is open: started, resumed, or a fork's origin."""
    resumed = len(episode.events) > 1
    if (fork := fork_of(episode)) is not None:
        return f"{fork} · {queries} queries so far"
    if not resumed:
        return "session started"
    return f"resumed: {queries} queries so far" if queries else "session resumed"


def fork_of(episode: Episode) -> str | None:
    """A fork's or take-over's workspace says where it came from: "fork of #12 after step 3"
    (the steps numbered as the viewer numbers them)."""
    from crmarena_tui.storage.steps import fork_step

    session = episode.session
    if session.parent_session_id is None:
        return None
    step = fork_step(episode.events, session.fork_seq)
    after = f" after step {step}" if step is not None else " at its start"
    return f"fork of #{session.parent_session_id}{after}"


def org_clock_note(episode: Episode, task_today: date | None) -> str | None:
    """The org's date, when the task states another (under `upstream` the org counts from the
    run's date: session/org_clock.py), so the person is not misled; else None."""
    from crmarena_tui.session.org_clock import stored_day

    day = stored_day(episode.session.settings)
    if day is None or task_today is None or day == task_today:
        return None
    return f"[yellow]· org today {day.isoformat()}[/]"
