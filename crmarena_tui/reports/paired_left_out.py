"""What `report --versus A B` leaves out on each side, and why (issue 35).

The tasks seen are those either side has an attempt on (graded or not, that the report's filter
keeps; forks and take-overs are not attempts). A task is paired when both sides have a graded
attempt the report counts; every other seen task is left out, and counted on each side that has
no counted grade on it, by the first reason that holds:

- `failed run`: an attempt of the side on the task was abandoned or ended on an infrastructure
  error (rate limit, timeout, org outage: `settings` or the grade's `metrics`
  `infrastructure_error`), which the report leaves out unless `--with-infrastructure-errors`;
- `not graded`: the side has an attempt on the task, none of it graded (still open, or submitted
  and never graded);
- `not run`: the side has no attempt on the task.

The same rule on both sides: a task the other side did not grade either is counted on both.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.paired import side_has
from crmarena_tui.reports.report_groups import place_of
from crmarena_tui.reports.report_sql import SETTINGS_KEYS, SIDE_COLUMNS, side_sessions
from crmarena_tui.storage.configuration import session_configuration

if TYPE_CHECKING:
    from crmarena_tui.reports.filters import ReportFilter
    from crmarena_tui.storage.models import Participant
    from crmarena_tui.storage.store import Store

REASONS = ("not run", "not graded", "failed run")
MIN_PAIRS = 10  # fewer paired tasks than this and the report says so (as tau2-bench does)


def left_out(
    store: Store,
    people: dict[int, Participant],
    only: ReportFilter,
    sides: tuple[str, str],
    configurations: set[str],
    graded: tuple[set[tuple[str, int]], set[tuple[str, int]]],
    table: str | None = None,
) -> dict[str, Any]:
    """{"tasks_seen", "left_out": {"a": {reason: tasks}, "b": ...}} for the two `sides` (a side
    that is one of `configurations` is that configuration alone), `graded` the task keys each
    side has counted grades on; `table`: `report_sql.report_rows`' (the graded sessions read from
    it, not parsed again)."""
    seen: tuple[dict[tuple[str, int], bool], ...] = ({}, {})  # task -> an attempt failed
    width = len(SIDE_COLUMNS)
    for raw in side_sessions(store, table):
        row = dict(zip(SIDE_COLUMNS, raw[:width], strict=True))
        idx, _graded, failed = raw[width:]
        settings = json.loads(row["st"]) if row["st"] else [None] * len(SETTINGS_KEYS)
        place = place_of(row, settings)
        person = people[row["pid"]]
        if not only.keeps(person, place.session, row["gp"]):
            continue
        who = session_configuration(person, place.session)
        for bit, side in enumerate(sides):
            if side_has(side, person.kind, who, person.name, side in configurations):
                key = (row["task_source"], idx)
                seen[bit][key] = seen[bit].get(key, False) or bool(failed)
    universe = set(seen[0]) | set(seen[1]) | graded[0] | graded[1]
    found: dict[str, Any] = {}
    for bit, name in enumerate(("a", "b")):
        counts = dict.fromkeys(REASONS, 0)
        for key in universe - graded[bit]:
            failed = seen[bit].get(key)
            reason = "not run" if failed is None else "failed run" if failed else "not graded"
            counts[reason] += 1
        found[name] = counts
    return {"tasks_seen": len(universe), "left_out": found}
