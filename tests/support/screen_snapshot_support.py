"""Helpers for the screens' SVG snapshot tests (no tests here).

Every picture is deterministic: the sample task file, a fixed fake org (fixed timings), a
temporary sessions database seeded with fixed timestamps (`app_trajectory_support.seed`), a
frozen on-screen clock and wall clock, no cursor blink, and the picture taken only once every
worker has finished. Two terminal sizes: `SMALL` (100x30) and `LARGE` (160x48); keep the large one
for the screens whose layout changes with the width, since the SVG grows with the cells.

A task file's rows are keyed by its absolute path (`<source>#<idx>`), and blind mode orders them
by a hash of their keys: blind pictures read the sample from one fixed path (`STABLE_SAMPLE`), so
they are the same in every checkout.

Review a diff (`pytest tests/test_snapshots_*.py --snapshot-report`) before `--snapshot-update`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.graders import Grade
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.results_table import ResultsTable
from tests.support.app_support import SAMPLE, FakeOrg, wait_for_workers
from tests.support.app_trajectory_support import T0
from tests.support.spec_support import session_spec

SMALL = (100, 30)
LARGE = (160, 48)
SIZES = {"100x30": SMALL, "160x48": LARGE}

Steps = Callable[[Pilot], Awaitable[None]]

STABLE_SAMPLE = Path("/tmp/crmarena-tui-snapshots") / SAMPLE.name


def stable_sample() -> Path:
    """The sample task file at `STABLE_SAMPLE` (written atomically: xdist workers share it)."""
    STABLE_SAMPLE.parent.mkdir(parents=True, exist_ok=True)
    if not STABLE_SAMPLE.exists() or STABLE_SAMPLE.read_bytes() != SAMPLE.read_bytes():
        part = STABLE_SAMPLE.with_name(f"{SAMPLE.name}.{os.getpid()}")
        part.write_bytes(SAMPLE.read_bytes())
        part.replace(STABLE_SAMPLE)
    return STABLE_SAMPLE


def play_app(
    tmp_path: Path,
    tasks: Path = SAMPLE,
    participant: str | None = "ann",
    **kw: object,
) -> CrmArenaApp:
    """The app `play` opens, on the fake org, with frozen clocks (an hour after the seed's T0)."""
    org = FakeOrg()
    return CrmArenaApp(
        PlayOptions(
            tasks=str(tasks),
            participant=participant,
            db=tmp_path / "sessions.db",
            clock=lambda: 0.0,
            wall_clock=lambda: T0 + 3600,
            **kw,  # type: ignore[arg-type]
        ),
        org_factory=lambda org_type: org,
    )


def seed_statuses(db: Path, sample: Path = SAMPLE) -> None:
    """ann submitted the first `sample` task (reward 1) and has the second in progress."""
    rows = json.loads(sample.read_text())
    tasks = [Task(**{**r, "source": str(sample.resolve())}) for r in rows[:2]]
    store = Store(db, clock=lambda: T0)
    ann = store.participant("human", "ann")
    done = store.create_session(session_spec(ann, tasks[0], "local", "fake"))
    store.set_status(done.id, "submitted", ended_at=T0 + 60, active_seconds=60)
    store.add_grade(
        done.id,
        Grade(
            answer="x", parsed_answer=["x"], reward=1.0, grader="exact_match", extraction="strip"
        ),
        graded_at=T0,
    )
    store.create_session(session_spec(ann, tasks[1], "local", "fake"))
    store.close()


async def still(pilot: Pilot) -> None:
    """Every worker finished, no cursor blinking: the picture no longer depends on timing.

    A focused editor (a TextArea) draws its cursor or not depending on when its blink timer
    last fired, even with the blink turned off: the focus moves to the results table then."""
    await wait_for_workers(pilot, pilot.app)
    for screen in pilot.app.screen_stack:
        for widget in screen.query("Input, TextArea"):
            if isinstance(widget, Input | TextArea):
                widget.cursor_blink = False
    tables = pilot.app.screen.query(ResultsTable)
    if isinstance(pilot.app.focused, TextArea) and tables:
        tables.first().focus()
    await pilot.pause()


def then_still(*steps: Steps) -> Steps:
    """Run `steps` in order, then wait until the screen is still."""

    async def run(pilot: Pilot) -> None:
        await wait_for_workers(pilot, pilot.app)
        for step in steps:
            await step(pilot)
            await wait_for_workers(pilot, pilot.app)
        await still(pilot)

    return run


def keys(*pressed: str) -> Steps:
    async def press(pilot: Pilot) -> None:
        await pilot.press(*pressed)

    return press
