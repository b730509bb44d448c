"""Helpers for the app's study-mode tests (no tests here): a study over the sample tasks made with
`crmarena-tui study create`, and the app as `crmarena-tui play --study` builds it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from crmarena_tui.app.app import CrmArenaApp
from crmarena_tui.cli import build_parser
from crmarena_tui.commands.play import options_from
from crmarena_tui.storage import Store
from crmarena_tui.studies import db
from tests.support.app_support import SAMPLE, FakeOrg
from tests.support.study_support import cli


def make_study(
    path: Path,
    *options: str,
    name: str = "pilot",
    participants: str = "ann,bob",
    per_task: int = 1,
    sample: int = 6,
    tasks: Path = SAMPLE,
) -> dict[str, str]:
    """A study in the sessions database `path`, as `study create` writes it; participant -> join
    code."""
    code, out, err = cli(
        "study",
        "create",
        name,
        "--tasks",
        str(tasks),
        "--participants",
        participants,
        "--per-task",
        str(per_task),
        "--sample",
        str(sample),
        "--seed",
        "7",
        "--db",
        str(path),
        *options,
    )
    assert code == 0, err
    with Store(path) as store:
        return dict(db.participants(store, db.get_study(store, name)))


def queue_keys(path: Path, participant: str, name: str = "pilot") -> list[str]:
    """The participant's queue as `Task.key`s, in order."""
    with Store(path) as store:
        seat = db.seat(store, name, participant)
    return [f"{source}#{idx}" for source, idx in seat.queue]


def study_app(
    path: Path,
    *play_args: str,
    name: str = "pilot",
    org: FakeOrg | None = None,
    clock: Callable[[], float] | None = None,
    wall_clock: Callable[[], float] | None = None,
) -> CrmArenaApp:
    """The app `crmarena-tui play --study NAME --db PATH *play_args` opens, on a fake org."""
    args = build_parser().parse_args(["play", "--study", name, "--db", str(path), *play_args])
    options = options_from(args)
    assert not isinstance(options, int), "play refused to start"
    clocks = {"clock": clock, "wall_clock": wall_clock}
    options = dataclasses.replace(options, **{k: v for k, v in clocks.items() if v is not None})
    the_org = org or FakeOrg()
    return CrmArenaApp(options, org_factory=lambda org_type: the_org)
