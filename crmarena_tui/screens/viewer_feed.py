"""The trajectory viewer's steps part: the session it shows, read in a worker, then tailed.

An in-progress session is read again every half second (`TAIL_SECONDS`) while the viewer is open,
so a live run can be watched as it goes, wherever it runs: the app's own agent, `run`, or an
external agent through `crmarena-tui mcp` in another process (the new events are read from the
database). The feed is a part of the viewer (screens/screen_part.py): it owns its two workers and
the timer, keeps what they read, and tells the viewer (screens/trajectory_viewer.py) by `Loaded`
and `Grew`, whose handlers redraw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.reports.trajectory import Trajectory, load_trajectory
from crmarena_tui.screens.screen_part import ScreenPart
from crmarena_tui.storage.end_reason import end_reason
from crmarena_tui.widgets.step_list import Step, build_steps

if TYPE_CHECKING:
    from textual.timer import Timer

    from crmarena_tui.storage.models import Event, GradeRow, Session

TAIL_SECONDS = 0.5  # how often an in-progress session is read again (new steps within a second)


class ViewerFeed(ScreenPart):
    """One session's trajectory: `session_id`, or the latest of `task_key` by you."""

    @dataclass
    class Loaded(Message):
        """The trajectory is read (and kept: `data`, `steps`)."""

        data: Trajectory

    @dataclass
    class Grew(Message):
        """New events of the session tailed are kept (`steps_before`: how many steps there
        were); `status`: the session's now."""

        steps_before: int
        status: str

    @dataclass
    class Tail(Message):
        events: list[Event]
        session: Session  # as stored now (its status, and once ended its time)
        grade: GradeRow | None = None  # read once the session has ended

        @property
        def status(self) -> str:
            return self.session.status

    def __init__(
        self, session_id: int | None, task_key: tuple[str, int] | None, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.session_id = session_id
        self.task_key = task_key
        self.data: Trajectory | None = None
        self.steps: list[Step] = []
        self.tail_timer: Timer | None = None

    # -- loading --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="viewer-load")
    def load(self) -> None:
        """The whole trajectory, posted as `Loaded`."""
        arena = self.arena
        store = arena.sessions_store()
        me = arena.participant_name or ""
        session_id = self.session_id
        if session_id is None and self.task_key is not None:
            participant = arena.named_participant()
            found = store.sessions(
                participant_id=participant.id,
                task_source=self.task_key[0],
                task_idx=self.task_key[1],
            )
            if not found:
                raise LookupError(
                    f"you have no session on task {self.task_key[0]}#{self.task_key[1]}"
                )
            session_id = found[-1].id
        assert session_id is not None
        data = load_trajectory(store, session_id, arena.settings, me, arena.hidden_labels)
        self.post_message(self.Loaded(data))

    @on(Loaded)
    def _take(self, event: Loaded) -> None:  # then on to the viewer
        """Keep what `Loaded` brought; an in-progress session starts being tailed."""
        data = self.data = event.data
        self.session_id = data.session.id
        arena = self.arena
        if arena.hidden_labels is None:
            arena.hidden_labels = data.hidden
        self.steps = build_steps(data.events)
        if data.session.status == "in_progress":
            self.tail_timer = self.set_interval(TAIL_SECONDS, self.poll)

    # -- tailing --------------------------------------------------------------------------------

    def poll(self) -> None:
        """One tick of the tail: read what was written since the last event shown."""
        if self.data is None:
            return
        if self.data.session.status != "in_progress":
            self.stop_tailing()
            return
        self._tail(self.data.events[-1].seq if self.data.events else 0)

    def stop_tailing(self) -> None:
        if self.tail_timer is not None:
            self.tail_timer.stop()
            self.tail_timer = None

    @work(thread=True, exclusive=True, exit_on_error=False, group="viewer-tail")
    def _tail(self, after_seq: int) -> None:
        """The events after `after_seq` and the session as it is now, posted as `Tail` when
        there is something new (or the session has ended)."""
        store = self.arena.sessions_store()
        assert self.session_id is not None
        new = store.events(self.session_id, after_seq=after_seq)
        session = store.session(self.session_id)
        if new or session.status != "in_progress":
            grade = store.grade(self.session_id) if session.status != "in_progress" else None
            self.post_message(self.Tail(new, session, grade))

    @on(Tail)
    def _absorb(self, event: Tail) -> None:
        """Add the events a `Tail` brought that are not shown yet; the steps are built again.
        An ended session stops being tailed."""
        event.stop()
        data = self.data
        if data is None:
            return
        before = len(self.steps)
        last = data.events[-1].seq if data.events else 0
        data.events.extend(ev for ev in event.events if ev.seq > last)
        data.session = event.session
        if event.grade is not None:
            data.grade = event.grade
        data.ended = end_reason(data.session, data.events, data.grade)
        self.steps = build_steps(data.events)
        if event.status != "in_progress":
            self.stop_tailing()
        self.post_message(self.Grew(before, event.status))
