"""Waiting in pilot tests for what a test needs, never for a fixed time (no tests here).

`await wait_until(pilot, lambda: "ready" in screen_text(app), "the ready notice")` lets the app
run in short pauses until the condition holds and returns at once when it does; when `timeout`
seconds pass first, the test fails saying what it waited for (the description, or the condition's
source line when none is given).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable

from textual.app import App
from textual.command import CommandList
from textual.pilot import Pilot

STEP = 0.01  # seconds between two looks at the condition


def described(condition: Callable[[], object]) -> str:
    """The condition's source line (`lambda: ...` as written in the test), or its name."""
    try:
        source = inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return getattr(condition, "__qualname__", repr(condition))
    start = source.find("lambda")
    return source[start:] if start >= 0 else source


async def wait_until(
    pilot: Pilot,
    condition: Callable[[], object],
    what: str | None = None,
    *,
    timeout: float = 30.0,  # a ceiling for a loaded machine: a pass takes what it takes
    step: float = STEP,
) -> float:
    """Pause the pilot in steps of `step` seconds until `condition()` is true; the seconds it took.

    Raises AssertionError naming `what` (or the condition) once `timeout` seconds have passed."""
    started = time.monotonic()
    while not condition():
        waited = time.monotonic() - started
        if waited > timeout:
            raise AssertionError(
                f"waited {timeout:g} s for {what or described(condition)}; it never came"
            )
        await pilot.pause(step)  # the one timed pause of the tests: a step, not a guess
    return time.monotonic() - started


def palette_highlights(app: App, title: str) -> bool:
    """The open command palette has found its commands and highlights the one named `title`
    (enter would run it)."""
    found = app.screen.query(CommandList)
    if not found:
        return False
    commands = found.first()
    if commands.highlighted is None:
        return False
    return str(commands.get_option_at_index(commands.highlighted).prompt).startswith(title)
