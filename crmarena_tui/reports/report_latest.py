"""The report's sections that read each configuration's latest attempt per task, and human time,
from `reports.report_sql.latest_figures`' tagged rows (issue 30): human time, efficiency and
human vs agent (`reports.versus.HeadToHead`), each row as the per-session functions the tests keep
as their oracle (tests/support/report_oracle_support.py) make it.

Efficiency is what a configuration spends per task type: cost per solved task, tokens per model
call, time per task. Usage comes from the sessions' `usage` events (one per model call as the
project's agents record them, several calls in one as an external agent or an upstream import may
report them: `storage.usage_calls` says how many calls an event stands for). A configuration
without any usage event (a human, the reference agent) has no token or cost figure: null, never 0.

SQLite hands back the counts and sums and, of each sorted list of seconds, only the values a
median or a quartile reads (`timing.spread_of`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.report_sql import (
    EFFICIENCY,
    MEDIAN,
    TIME,
    VERSUS,
    keep_groups,
    latest_figures,
    paired_members,
)
from crmarena_tui.reports.timing import spread_of
from crmarena_tui.reports.versus import HeadToHead
from crmarena_tui.storage.usage_models import model_of, participant_models

if TYPE_CHECKING:
    from crmarena_tui.reports.report_groups import Group
    from crmarena_tui.storage.store import Store

EVERY_TYPE = "all task types"


@dataclass
class LatestFigures:
    human_time: list[dict[str, Any]]
    efficiency: list[dict[str, Any]]
    human_vs_agent: list[dict[str, Any]]
    paired: dict[str, Any] | None = None
    graded: tuple[set[tuple[str, int]], set[tuple[str, int]]] = (set(), set())  # per side


def _ranked(rows: list[tuple[Any, ...]]) -> dict[tuple[Any, Any], tuple[int, dict[int, float]]]:
    """{(group, configuration number): (n, {rank: value})}."""
    found: dict[tuple[Any, Any], tuple[int, dict[int, float]]] = {}
    for _tag, head, wid, n, rank, value, *_ in rows:
        found.setdefault((head, wid), (int(n), {}))[1][int(rank)] = float(value)
    return found


def _median(n: int, at: dict[int, float]) -> float:
    return at[n // 2] if n % 2 else (at[n // 2 - 1] + at[n // 2]) / 2


def latest_sections(
    store: Store,
    table: str,
    groups: list[Group],
    versus: tuple[str, str] | None = None,
    cluster: str | None = None,
) -> LatestFigures:
    """The three sections over `groups` (the attempts the report counts), and with `versus`
    the paired report of its two sides (`reports.paired`, standard errors clustered by
    `cluster`)."""
    names = sorted({g.who for g in groups})
    number = {who: k for k, who in enumerate(names)}
    kept = [
        (g.number, number[g.who], g.participant.kind == "human", _sides(g, versus, number))
        for g in groups
    ]
    tagged: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    if kept:
        keep_groups(store, table, kept)
        for row in latest_figures(store, table):
            tagged[row[0]].append(row)
    times = _ranked(tagged[TIME])
    human_time = [
        spread_of(head, n, at.__getitem__).row()
        for (head, _), (n, at) in sorted(times.items(), key=lambda kv: kv[0][0] or "")
        if head is not None
    ]
    if (None, None) in times:
        n, at = times[(None, None)]
        human_time.append(spread_of("all", n, at.__getitem__).row())
    medians = _ranked(tagged[MEDIAN])
    named = participant_models(store) if tagged[EFFICIENCY] else {}
    people: dict[int, list[Any]] = defaultdict(list)
    for g in groups:
        people[number[g.who]].append(g.participant)
    efficiency = []
    for _tag, wid, task_type, tasks, solved, cost, used, calls, tokens in tagged[EFFICIENCY]:
        cost = None if cost is None else float(cost)
        timed = medians.get((task_type, wid))
        efficiency.append(
            {
                "participant": names[wid],
                "model": model_of(people[wid], named),
                "task_type": EVERY_TYPE if task_type is None else task_type,
                "tasks": tasks,
                "solved": solved,
                "cost": cost,
                "cost_per_task": cost / tasks if cost is not None else None,
                "cost_per_solved_task": cost / solved if cost is not None and solved else None,
                "model_calls": calls if used else None,
                "tokens_per_call": tokens / calls if calls else None,
                "tokens_per_task": float(tokens) / used if used else None,
                "median_seconds_per_task": _median(*timed) if timed else None,
            }
        )
    # (each participant's task types in order, its "all task types" row last)
    efficiency.sort(key=lambda r: (r["participant"], r["task_type"] == EVERY_TYPE, r["task_type"]))
    paired = None
    if versus is not None:
        from crmarena_tui.reports.paired import members_of, paired_of

        members = members_of(
            ((wid, up), (source, idx), trial, task_type, win, float(reward), fuzzy, sides, gp, ref)
            for wid, up, source, idx, trial, task_type, win, reward, fuzzy, sides, gp, ref in (
                paired_members(store, table) if kept else []
            )
        )
        paired = paired_of(members, *versus, cluster=cluster)
        graded = tuple({m.task_key for m in members if m.sides & bit} for bit in (1, 2))
        return LatestFigures(
            human_time, efficiency, _versus(tagged[VERSUS], names), paired, (graded[0], graded[1])
        )
    return LatestFigures(human_time, efficiency, _versus(tagged[VERSUS], names), paired)


def _sides(group: Group, versus: tuple[str, str] | None, configurations: dict[str, int]) -> int:
    """1: the group is on side a, 2: on side b, 3: both (a side that is a configuration of
    the report is that configuration alone: `reports.paired`)."""
    if versus is None:
        return 0
    from crmarena_tui.reports.paired import side_has

    person = group.participant
    a, b = (
        side_has(side, person.kind, group.who, person.name, side in configurations)
        for side in versus
    )
    return a | b << 1


def _versus(rows: list[tuple[Any, ...]], names: list[str]) -> list[dict[str, Any]]:
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    protocols: dict[tuple[str, str], set[str]] = defaultdict(set)
    for _tag, human, agent, human_protocol, agent_protocol, h, a, n, _ in rows:
        slot = 2 if h and a else 0 if h else 1 if a else 3
        pair = (names[human], names[agent])
        counts[pair][slot] += n
        protocols[pair].update((human_protocol, agent_protocol))
    return [
        HeadToHead(
            h, a, sum(c), c[0], c[1], c[2], c[3], " + ".join(sorted(protocols[(h, a)]))
        ).row()
        for (h, a), c in sorted(counts.items())
    ]
