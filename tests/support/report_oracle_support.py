"""The report as the per-session Python path computes it: one model per session (every
session's whole model and its latest grade, read one by one), each section added up attempt by
attempt in Python. The report itself is computed in SQL (`reports/report_sql.py`); this is the
oracle its tests check it against (tests/support/report_support.py composes the sections as
`build_report` did before issue 30). Nothing in the package calls these."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import median
from typing import Any

from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, Attempt, latest_per_participant
from crmarena_tui.reports.labels import _labels, labels_of
from crmarena_tui.reports.paired import SEED, members_of, paired_of, side_has
from crmarena_tui.reports.report_groups import Cell, skill_of
from crmarena_tui.reports.task_units import CLUSTERS, Options, merged, unit_figures
from crmarena_tui.reports.timing import Spread, spread
from crmarena_tui.reports.versus import HeadToHead
from crmarena_tui.storage import Store
from crmarena_tui.storage.configuration import ALL_SPLITS, session_configuration
from crmarena_tui.storage.models import Annotation, Participant, Session
from crmarena_tui.storage.usage_calls import CALLS_SQL
from crmarena_tui.storage.usage_models import model_of


def load_attempts(store: Store, *, graded_only: bool = True) -> list[Attempt]:
    """Every session with its participant and latest grade (only graded ones by default): the
    whole models, read one by one."""
    people = {p.id: p for p in store.participants()}
    found = []
    for s in store.sessions():
        grade = store.grade(s.id)
        if graded_only and grade is None:
            continue
        found.append(Attempt(s, people[s.participant_id], grade))
    return found


def _table(
    attempts: Iterable[Attempt],
    group: Callable[[Attempt], str],
    fuzzy_threshold: float,
    options: Options | None = None,
    left_out: Iterable[Attempt] = (),
) -> list[Cell]:
    """With `options`, each cell's task figures (`reports.task_units`) and the attempts of
    `left_out` in its place (`excluded`)."""
    buckets = _buckets(attempts, group)
    excluded = {k: len(v) for k, v in _buckets(left_out, group).items()}
    cells = []
    for key, items in sorted(buckets.items(), key=_order):
        who, protocol, split, name = key
        rewards = [a.reward or 0.0 for a in items]
        units = None
        if options is not None:
            column = CLUSTERS.get(options.cluster or "")
            units = unit_figures(
                merged(
                    (
                        a.task_key,
                        1,
                        int(a.win(fuzzy_threshold)),
                        getattr(a.session, column) if column else None,
                    )
                    for a in items
                ),  # fmt: skip
                options,
            )
            units["excluded"] = excluded.get(key, 0)
        cells.append(
            Cell(
                who,
                name,
                len(items),
                sum(a.win(fuzzy_threshold) for a in items),
                sum(rewards) / len(rewards),
                protocol,
                split,
                sum(a.no_answer for a in items),
                units,
            )
        )
    return cells


def _buckets(
    attempts: Iterable[Attempt], group: Callable[[Attempt], str]
) -> dict[tuple[str, str, str, str], list[Attempt]]:
    buckets: dict[tuple[str, str, str, str], list[Attempt]] = defaultdict(list)
    splits = set()
    for attempt in attempts:
        split = attempt.split
        splits.add(split)
        buckets[(attempt.who, attempt.protocol, split, group(attempt))].append(attempt)
    if len(splits) > 1:  # the "all splits" rows: every session once, whatever its split
        for (who, protocol, _split, name), items in list(buckets.items()):
            buckets[(who, protocol, ALL_SPLITS, name)] += items
    return buckets


def _order(item: tuple[tuple[str, str, str, str], list[Attempt]]) -> tuple:
    """Participant, protocol, then the splits in order with `all` last, then the group."""
    who, protocol, split, name = item[0]
    return (who, protocol, split == ALL_SPLITS, split, name)


def success_by_task_type(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD, *units: Any
) -> list[Cell]:
    return _table(attempts, lambda a: a.session.task_type, fuzzy_threshold, *units)


def success_by_skill(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD, *units: Any
) -> list[Cell]:
    return _table(attempts, lambda a: skill_of(a.session.task_type), fuzzy_threshold, *units)


def overall(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD, *units: Any
) -> list[Cell]:
    return _table(attempts, lambda a: "all", fuzzy_threshold, *units)


def by_session_kind(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD
) -> list[Cell]:
    """Success by participant and session kind (`fork`, `takeover`): reported apart, since a
    continuation of someone else's session is not its participant's own attempt."""
    return _table(attempts, lambda a: a.session.kind, fuzzy_threshold)


def human_time(attempts: Iterable[Attempt]) -> list[Spread]:
    """Per task type, then `all`: active seconds of human sessions that recorded them."""
    groups: dict[str, list[float]] = defaultdict(list)
    for attempt in attempts:
        seconds = attempt.session.active_seconds
        if attempt.participant.kind == "human" and seconds is not None:
            groups[attempt.session.task_type].append(float(seconds))
    rows = [spread(name, values) for name, values in sorted(groups.items())]
    everything = [v for values in groups.values() for v in values]
    if everything:
        rows.append(spread("all", everything))
    return rows


def head_to_head(
    attempts: Iterable[Attempt], fuzzy_threshold: float = FUZZY_THRESHOLD
) -> list[HeadToHead]:
    """One row per (human, agent) pair that share at least one task."""
    by_task: dict[tuple[str, int], dict[str, list[Attempt]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for attempt in latest_per_participant(attempts).values():
        by_task[attempt.task_key][attempt.participant.kind].append(attempt)
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    protocols: dict[tuple[str, str], set[str]] = defaultdict(set)
    for sides in by_task.values():
        for human in sides.get("human", []):
            for agent in sides.get("agent", []):
                h, a = human.win(fuzzy_threshold), agent.win(fuzzy_threshold)
                slot = 2 if h and a else 0 if h else 1 if a else 3
                counts[(human.who, agent.who)][slot] += 1
                protocols[(human.who, agent.who)].update((human.protocol, agent.protocol))
    return [
        HeadToHead(h, a, sum(c), c[0], c[1], c[2], c[3], " + ".join(sorted(protocols[(h, a)])))
        for (h, a), c in sorted(counts.items())
    ]


def label_report(
    annotations: Iterable[Annotation],
    sessions: Iterable[Session],
    participants: Iterable[Participant],
) -> dict[str, list[dict[str, Any]]]:
    """The report's `labels` section."""
    notes = list(annotations)
    return labels_of(notes, _owners(sessions, participants, {a.session_id for a in _labels(notes)}))


def _owners(
    sessions: Iterable[Session],
    participants: Iterable[Participant],
    labelled: set[int] | None = None,
) -> dict[int, tuple[str, str]]:
    """{session id: (configuration, task type)}, of the `labelled` sessions only when given."""
    people = {p.id: p for p in participants}
    return {
        s.id: (session_configuration(people[s.participant_id], s), s.task_type)
        for s in sessions
        if s.participant_id in people and (labelled is None or s.id in labelled)
    }


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
    every = "all task types"  # each configuration's last row (issue 40)
    order = sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] == every, kv[0][1]))
    for (who, task_type), found in order:
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


def paired_report(
    attempts: Iterable[Attempt],
    a: str,
    b: str,
    *,
    fuzzy_threshold: float = FUZZY_THRESHOLD,
    seed: int = SEED,
    cluster: str | None = None,
) -> dict[str, Any]:
    """Side `a` against side `b` on the tasks both graded: overall, then per task type."""
    latest = latest_per_trial(attempts)
    exact_a, exact_b = (any(x.who == side for x in latest) for side in (a, b))
    members = members_of(
        (
            (x.who, x.session.protocol == "upstream"), x.task_key, x.session.trial,
            x.session.task_type, x.win(fuzzy_threshold), x.reward or 0.0,
            x.metric == "fuzzy_match",
            on_side(a, x, exact_a) | on_side(b, x, exact_b) << 1,
            x.protocol, x.session.org_ref,
        )
        for x in latest
    )  # fmt: skip
    return paired_of(members, a, b, seed=seed, cluster=cluster)


def latest_per_trial(attempts: Iterable[Attempt]) -> list[Attempt]:
    """Each configuration's latest graded attempt of each trial of a task, in the order the
    (configuration, task, trial) was first attempted."""
    first: dict[tuple[Any, ...], int] = {}
    latest: dict[tuple[Any, ...], Attempt] = {}
    for x in attempts:
        if not x.session.is_attempt:
            continue
        key = (x.who, x.session.protocol == "upstream", x.task_key, x.session.trial)
        first[key] = min(first.get(key, x.session.id), x.session.id)
        if key not in latest or x.session.id > latest[key].session.id:
            latest[key] = x
    return [latest[k] for k in sorted(latest, key=first.__getitem__)]


def on_side(side: str, attempt: Attempt, exact: bool = False) -> bool:
    """Whether `attempt` is on `side`; `exact`: the side is a configuration, matched whole."""
    return side_has(side, attempt.participant.kind, attempt.who, attempt.participant.name, exact)
