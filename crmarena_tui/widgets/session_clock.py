"""The clock of a session: active time only (pauses do not count), ticking once a second."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.widgets import Static


def format_seconds(seconds: float) -> str:
    seconds = int(max(0.0, seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class SessionClock(Static):
    """Shows `base + time running since start/resume` (and `limit`, a time limit in seconds);
    `clock` is injectable for tests."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        limit: float | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__("", id=id)
        self.clock = clock
        self.limit = limit
        self.base = 0.0
        self.running_since: float | None = None
        self._shown = ""

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_time)
        self.refresh_time()

    @property
    def seconds(self) -> float:
        extra = self.clock() - self.running_since if self.running_since is not None else 0.0
        return self.base + extra

    def start(self, base: float = 0.0) -> None:
        self.base = base
        self.running_since = self.clock()
        self.refresh_time()

    def pause(self) -> None:
        self.base = self.seconds
        self.running_since = None
        self.refresh_time()

    def resume(self) -> None:
        if self.running_since is None:
            self.running_since = self.clock()
        self.refresh_time()

    @property
    def paused(self) -> bool:
        return self.running_since is None

    def refresh_time(self) -> None:
        state = " [b yellow]paused[/]" if self.paused and self.base else ""
        limit = f" of {format_seconds(self.limit)}" if self.limit else ""
        # words, not a clock glyph: the browser's terminal font (`serve`) has none and drew a box
        shown = f"time {format_seconds(self.seconds)}{limit}{state}"
        if shown != self._shown:  # a paused clock repainted the screen every second (under an
            self._shown = shown  # overlay, the whole screen: 7 KB/s to a served browser)
            self.update(shown)
