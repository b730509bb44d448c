"""The session clock redraws only when what it shows changes: a paused clock (under the pause
overlay) redrew every second, and under an overlay each redraw repainted the whole screen, sent to
a served participant's browser."""

from __future__ import annotations

from textual.app import App, ComposeResult

from crmarena_tui.widgets.session_clock import SessionClock


class _Clocked(App[None]):
    def __init__(self, clock: SessionClock) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield self.clock


async def test_a_paused_clock_is_not_redrawn_and_a_running_one_is_each_second() -> None:
    now = [0.0]
    clock = SessionClock(lambda: now[0])
    drawn: list[str] = []
    update = clock.update
    clock.update = lambda content="": (drawn.append(str(content)), update(content))[1]  # type: ignore[method-assign]
    async with _Clocked(clock).run_test():
        clock.start()
        now[0] = 5.0
        clock.refresh_time()
        clock.pause()
        drawn.clear()
        for second in range(6, 60):  # a minute paused: the interval still calls it each second
            now[0] = float(second)
            clock.refresh_time()
        assert drawn == []
        assert str(clock.render()) == "time 00:05 paused"
        clock.resume()  # at 59 s
        for second in (60, 60, 61):
            now[0] = float(second)
            clock.refresh_time()
        assert drawn == ["time 00:05", "time 00:06", "time 00:07"]
