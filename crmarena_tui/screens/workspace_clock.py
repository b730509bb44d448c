"""The workspace's clock: active time only.

The clock stops when the participant pauses (f6), when they leave the task, and by itself after
`idle_pause_minutes` (a setting, default 2) without a key or mouse input anywhere in the app: the
pause is logged like a manual one, marked `auto` with the idle time that caused it, and the pause
overlay hides the task until a key is pressed. After `n` on the result screen the next task opens
behind the `start` overlay: its session (and clock) starts with the first key.

The idle time before the clock stops counts as work (reading takes no keys); what follows it
does not. Sessions keep their wall time too (`started_at`/`ended_at`); reports use active time.

In a study with a time limit (study_mode.py) the clock shows the limit, a notice warns a minute
before it, and at the limit the session ends (`TimeUp`, which the submit part handles): nothing
more is accepted, an answer not submitted by then is recorded as none (reward 0, the end reason
says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from crmarena_tui.screens.pause_screen import PauseScreen
from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState

if TYPE_CHECKING:
    from crmarena_tui.widgets.session_clock import SessionClock

IDLE_CHECK_SECONDS = 5.0
LIMIT_CHECK_SECONDS = 1.0


class WorkspaceClock(WorkspacePart):
    """Pausing, idle auto-pause, the study's time limit and the start gate."""

    class Started(Message):
        """The session may open: at once, or after the first key behind the start overlay."""

    class TimeUp(Message):
        """The study's time limit is reached: the session ends with what was submitted."""

    def __init__(
        self,
        state: WorkspaceState,
        *,
        clock: SessionClock,
        start_on_key: bool = False,
        id: str | None = None,
    ) -> None:
        """`clock`: the workspace's clock widget; `start_on_key`: the session opens with the
        first key, behind the start overlay (`n` on the result screen)."""
        super().__init__(state, id=id)
        self.clock = clock
        self.start_on_key = start_on_key
        self._time_warned = False
        self._opened_at: float | None = None  # by the app's clock, once the session is open

    @property
    def time_up(self) -> bool:
        """The study's time limit ended the session: nothing more goes in."""
        return self.state.time_up

    def start(self) -> None:
        """From the screen's mount: watch for idleness; let the session open now, or after the
        first key."""
        self.set_interval(IDLE_CHECK_SECONDS, self.check_idleness)
        if self.time_limit() is not None:
            self.set_interval(LIMIT_CHECK_SECONDS, self.check_time_limit)
        if self.start_on_key:
            heading = self.arena.blind_view.heading(self.task_row)
            hold = self._hold_keys  # the keys after the starting key wait for the session
            self.app.push_screen(
                PauseScreen("start", heading=heading, on_go=hold), self._start_gate
            )
        else:
            self.post_message(self.Started())

    def _hold_keys(self) -> None:
        self.arena.key_gate.hold(self.screen, "the session to open")  # the screen releases it

    def _start_gate(self, go_on: bool | None) -> None:
        if go_on:
            self.post_message(self.Started())
        else:
            self.app.pop_screen()  # back to the tasks: no session was started

    def pause_work(self, *, idle_seconds: float | None = None) -> None:
        """Stop the clock and hide the task (`idle_seconds`: an automatic pause after that long
        without input)."""
        episode = self.episode
        if episode is None or episode.finished or self.clock.paused:
            return
        self.clock.pause()
        if idle_seconds is None:
            self.arena.in_background(episode.pause, "pause")
            self.app.push_screen(PauseScreen(), self._resumed)
            return
        self.arena.in_background(lambda: episode.pause(idle_seconds=idle_seconds), "pause")
        minutes = self.idle_limit() / 60
        self.app.push_screen(PauseScreen("idle", idle_minutes=minutes), self._resumed)

    def _resumed(self, _: bool | None) -> None:
        if self.episode is not None:
            self.clock.resume()
            self.arena.in_background(self.episode.resume, "resume")

    def idle_limit(self) -> float:
        """Seconds without input before the clock stops by itself (0: never)."""
        return float(self.arena.settings.idle_pause_minutes) * 60.0

    def opened(self) -> None:
        """The session is open: idleness counts from now at the earliest. The wait for it (on a
        loaded machine, minutes) was the app's, not the participant's: counted, it paused the
        task as it appeared, and the key typed into it only ended the pause."""
        self._opened_at = self.arena.options.clock()

    def check_idleness(self) -> None:
        """Every few seconds: pause the clock when nothing was typed or clicked for too long
        since the session opened. (Not `check_idle`: that is Textual's own, which a message pump
        calls to wake itself.)"""
        if self._opened_at is None:
            return
        limit = self.idle_limit()
        idle = min(self.arena.idle_seconds(), self.arena.options.clock() - self._opened_at)
        if limit > 0 and idle >= limit:
            self.pause_work(idle_seconds=idle)

    def time_limit(self) -> float | None:
        """Active seconds this task may take (a study's limit; None: no limit)."""
        study = self.arena.study
        return study.time_limit_seconds if study is not None else None

    def check_time_limit(self) -> None:
        """Every second (a study's time limit): warn a minute before it, end the session at it."""
        from crmarena_tui.studies.mode import WARN_SECONDS

        limit, episode = self.time_limit(), self.episode
        if limit is None or episode is None or episode.finished or self.time_up:
            return
        seconds = self.clock.seconds
        if seconds >= limit:
            self.state.time_up = True
            self.post_message(self.TimeUp())
        elif seconds >= limit - WARN_SECONDS and not self._time_warned:
            self._time_warned = True
            self.notify(
                "One minute left on this task: at the time limit it ends, with the answer "
                "submitted by then (none: not answered).",
                title="Time limit",
                severity="warning",
                timeout=30,
            )
