"""What a configuration spends per task type: cost per solved task, tokens per model call, time
per task (`report`'s `efficiency` section).

Usage comes from the sessions' `usage` events (tokens and cost: one event per model call as the
project's agents record them, several calls in one as an external agent or an upstream import
may report them; `storage.usage_calls` says how many calls an event stands for), summed per
session by one SQL query over the events table; nothing else of the events is read. A configuration without any
usage event (a human, the reference agent) has no token or cost figure: null, never 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import median
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, Attempt, latest_per_participant
from crmarena_tui.storage.usage_calls import CALLS_SQL
from crmarena_tui.storage.usage_models import model_of

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

_USAGE_SQL = (
    f"SELECT session_id, SUM({CALLS_SQL}),"
    " SUM(COALESCE(json_extract(payload, '$.total_tokens'),"
    "  COALESCE(json_extract(payload, '$.prompt_tokens'), 0)"
    "  + COALESCE(json_extract(payload, '$.completion_tokens'), 0))),"
    " SUM(json_extract(payload, '$.cost')), COUNT(json_extract(payload, '$.cost'))"
    " FROM events WHERE kind = 'usage' GROUP BY session_id"
)


@dataclass(frozen=True, slots=True)
class Usage:
    calls: int
    tokens: int
    cost: float | None  # None when no call reported a cost


def session_usage(store: Store) -> dict[int, Usage]:
    """Session id -> its model calls, tokens and cost (sessions without usage are absent)."""
    return {
        int(sid): Usage(int(calls), int(tokens or 0), float(cost) if priced else None)
        for sid, calls, tokens, cost, priced in store.read(_USAGE_SQL)
    }


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def efficiency_rows(
    attempts: Iterable[Attempt],
    usage: dict[int, Usage],
    fuzzy_threshold: float = FUZZY_THRESHOLD,
    named: dict[int, set[str]] | None = None,
) -> list[dict[str, Any]]:
    """One row per (configuration, task type), then one per configuration over every type;
    `named`: the models each participant's usage names (`storage.usage_models`), for the
    rows' `model`."""
    groups: dict[tuple[str, str], list[Attempt]] = defaultdict(list)
    for attempt in latest_per_participant(attempts).values():
        groups[(attempt.who, attempt.session.task_type)].append(attempt)
        groups[(attempt.who, "all task types")].append(attempt)
    rows = []
    for (who, task_type), found in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        used = [usage[a.session.id] for a in found if a.session.id in usage]
        solved = sum(1 for a in found if a.win(fuzzy_threshold))
        priced = [u.cost for u in used if u.cost is not None]
        cost = sum(priced) if priced else None
        calls = sum(u.calls for u in used)
        tokens = sum(u.tokens for u in used)
        times = [a.session.active_seconds for a in found if a.session.active_seconds is not None]
        rows.append(
            {
                "participant": who,
                "model": model_of([a.participant for a in found], named or {}),
                "task_type": task_type,
                "tasks": len(found),
                "solved": solved,
                "cost": cost,
                "cost_per_task": cost / len(found) if cost is not None else None,
                "cost_per_solved_task": cost / solved if cost is not None and solved else None,
                "model_calls": calls if used else None,
                "tokens_per_call": tokens / calls if calls else None,
                "tokens_per_task": _mean([float(u.tokens) for u in used]),
                "median_seconds_per_task": median(times) if times else None,
            }
        )
    return rows
