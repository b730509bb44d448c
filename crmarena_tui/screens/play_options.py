"""What `crmarena-tui play` (and `serve`, per browser tab) asks of the app and its screens (no
textual import): the app holds them, the screens read them (`Arena.options`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.tasks.rows import LoadRules


@dataclass(frozen=True)
class PlayOptions:
    """What `crmarena-tui play` was asked for."""

    tasks: str = "demo"
    org: str | None = None
    participant: str | None = None
    db: Path | None = None
    aided: bool = False
    blind: bool | None = None  # `--blind`/`--no-blind`; None: the `blind` setting
    pace: float = 0.0  # seconds between an agent's steps in the live view (demos)
    user_model: str | None = None  # interactive tasks: a model plays the user ('scripted': not)
    protocol: str | None = None  # `--protocol`: upstream | workbench (else the setting)
    org_today: date | None = None  # `--org-today`: the org's clock (else the setting)
    lenient: bool = False  # `--lenient`: local orgs answer what Salesforce refuses
    hidden_labels: bool | None = None  # `--hidden-labels`: hide others' labels (else the setting)
    study: str | None = None  # `--study`: a participant's queue (`--as`, else the join screen asks)
    allow_duplicates: bool = False  # `--allow-duplicates`: a file's repeated idx, first kept
    allow_unknown_types: bool = False  # `--allow-unknown-types`
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)  # the on-screen clock
    wall_clock: Callable[[], float] = field(default=time.time, compare=False)  # event timestamps

    def task_rules(self) -> LoadRules:
        """What the task source may hold beyond the benchmark's rules (tasks/rows.py)."""
        from crmarena_tui.tasks.rows import LoadRules

        return LoadRules(self.allow_duplicates, self.allow_unknown_types)
