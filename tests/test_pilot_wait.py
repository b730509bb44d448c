"""The pilot tests wait for conditions, not for fixed times: `wait_until` returns as soon as its
condition holds, fails naming what it waited for, and no test pauses for a guessed duration."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from pilot_wait import wait_until
from textual.app import App, ComposeResult
from textual.widgets import Label

TESTS = Path(__file__).parent


class Later(App):
    """Shows "ready" a tenth of a second after it starts."""

    def compose(self) -> ComposeResult:
        yield Label("", id="status")

    def on_mount(self) -> None:
        self.set_timer(0.1, lambda: self.query_one("#status", Label).update("ready"))


def shown(app: App) -> str:
    return str(app.query_one("#status", Label).content)


async def test_wait_until_returns_once_the_condition_holds() -> None:
    app = Later()
    async with app.run_test(size=(20, 3)) as pilot:
        took = await wait_until(pilot, lambda: shown(app) == "ready", "the ready label")
        assert shown(app) == "ready" and 0.05 < took < 1.0


async def test_wait_until_fails_saying_what_it_waited_for() -> None:
    app = Later()
    async with app.run_test(size=(20, 3)) as pilot:
        started = time.monotonic()
        with pytest.raises(AssertionError, match="waited 0.2 s for the done label"):
            await wait_until(pilot, lambda: shown(app) == "done", "the done label", timeout=0.2)
        assert time.monotonic() - started < 1.5
        with pytest.raises(AssertionError, match=r"lambda: shown\(app\) == \"gone\""):
            await wait_until(pilot, lambda: shown(app) == "gone", timeout=0.05)


def test_no_pilot_test_pauses_for_a_fixed_time() -> None:
    timed = re.compile(r"pilot\.pause\(\s*[^)\s]")
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != "pilot_wait.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if timed.search(line)
    ]
    assert found == [], "wait for a condition (pilot_wait.wait_until) instead:\n" + "\n".join(found)
