"""The pilot tests wait for conditions, not for fixed times: `wait_until` returns as soon as its
condition holds, fails naming what it waited for, and no test pauses for a guessed duration: no
fixed Pilot pause, and no `time.sleep`/`asyncio.sleep` of a constant outside a polling loop
unless `FIXED_SLEEPS` below says why that pause is a stimulus or a window for nothing to happen."""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Label

from tests.support.pilot_wait_support import wait_until
from tests.support.source_tree_support import parsed

TESTS = Path(__file__).parents[1]


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
        if path.name != "pilot_wait_support.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if timed.search(line)
    ]
    assert found == [], (
        "wait for a condition (pilot_wait_support.wait_until) instead:\n" + "\n".join(found)
    )


# Constant sleeps outside a polling loop that are not waits for a result, by "file::function",
# each with its reason. A sleep inside a `while`/`for` loop is a poll interval (the loop checks
# its condition against a deadline) and needs no entry. Waiting for a result takes a condition
# with a deadline instead (pilot_wait_support.wait_until, a `while ...: sleep` with
# `time.monotonic()`). Keys are paths under tests/.
FIXED_SLEEPS = {
    # the stimulus: the importer is killed while its readers are well past their start
    "storage/test_import_upstream_read.py::"
    "test_the_reading_processes_die_with_a_killed_importer": "kill",
    # the stimulus: the run is killed a moment into its first task, between queries
    "agents/test_python_agent.py::test_a_killed_run_resumes_its_sessions_with_their_events": "kill",
    # a window in which a third query could still run after the driver stopped the agent
    "agents/test_python_agent.py::"
    "test_a_stopped_run_stops_the_agent_between_actions_and_keeps_the_session_open": "no-event",
    # a window in which a session could open before the model client is loaded
    "commands/test_run_loads_model_client.py::"
    "test_the_apps_agent_run_says_it_loads_the_model_client_first": "no-event",
    # the stimulus: ctrl+u must reach the app before the name that follows (a person's pace)
    "commands/test_serve_study_guard.py::_try": "pace",
    # a window in which the app could still crash on the fork's result screen
    "cli/test_tty_fork_submit.py::test_a_fork_submitted_from_a_result_screen_in_a_terminal": (
        "no-event"
    ),
    # the stimulus: keys at a person's pace (sent in one burst they arrive as a paste)
    "cli/test_tty_frictions.py::test_a_chat_task_walked_through_at_100x30": "pace",
    # the stimulus: the event loop stalls past a timer's moment (a descheduled process)
    "widgets/test_later.py::test_a_callback_fires_though_the_loop_stalled_past_its_moment": "stall",
}


def _fixed_sleeps(path: Path) -> list[tuple[str, int, str]]:
    """(function, line, call) of each constant `time.sleep`/`asyncio.sleep` outside a loop."""
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, function: str, in_loop: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function, in_loop = node.name, False
        elif isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
            in_loop = True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "sleep"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("time", "asyncio")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and not in_loop
        ):
            found.append((function, node.lineno, ast.unparse(node)))
        for child in ast.iter_child_nodes(node):
            visit(child, function, in_loop)

    visit(parsed(path), "<module>", False)
    return found


def test_the_fixed_sleep_finder_tells_a_pause_from_a_poll(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import asyncio, time\n"
        "def test_pause():\n    time.sleep(0.5)\n"
        "async def test_wait():\n    await asyncio.sleep(2)\n"
        "def test_poll(ready):\n    while not ready():\n        time.sleep(0.1)\n"
        "def test_given(seconds):\n    time.sleep(seconds)\n"
    )
    assert [(f, call) for f, _, call in _fixed_sleeps(sample)] == [
        ("test_pause", "time.sleep(0.5)"),
        ("test_wait", "asyncio.sleep(2)"),
    ]


def test_no_test_sleeps_a_fixed_time_for_a_result() -> None:
    found, used = [], set()
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == Path(__file__).name:
            continue
        for function, line, call in _fixed_sleeps(path):
            key = f"{path.relative_to(TESTS)}::{function}"
            if key in FIXED_SLEEPS:
                used.add(key)
            else:
                found.append(f"{path.relative_to(TESTS)}:{line} in {function}: {call}")
    assert found == [], (
        "wait for a condition with a deadline instead (or, for a stimulus or a window in which "
        "nothing may happen, add the function to FIXED_SLEEPS with its reason):\n"
        + "\n".join(found)
    )
    assert set(FIXED_SLEEPS) == used, f"stale FIXED_SLEEPS entries: {set(FIXED_SLEEPS) - used}"
