"""The report's groups of sessions, named (issue 30): what `reports.report_sql` counts, with the
names the per-session models gave.

A `Group` is the graded sessions that share every raw column a name is made from; its
configuration (`storage.configuration.session_configuration`), split, protocols, flags and the
report filter's verdict (`ReportFilter.keeps`) are worked out once per group, from a stand-in
session (`Place`) holding those columns, by the same functions the per-session report called.
The success tables (`cells`) add up the groups' counts as the per-session oracle of the tests
(tests/support/report_oracle_support.py) adds up attempts, and each cell's tasks (`task_parts`) into the figures
that take the task as the unit.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from crmarena_tui.reports.report_sql import (
    GROUP_COLUMNS,
    PLACE_COLUMNS,
    SETTINGS_KEYS,
    session_places,
)
from crmarena_tui.reports.task_units import CLUSTERS, DEFAULT, Options, merged, unit_figures
from crmarena_tui.storage.configuration import (
    ALL_SPLITS,
    mode_of,
    org_type_of,
    session_configuration,
    split_name,
)
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.reports.filters import ReportFilter
    from crmarena_tui.storage.models import Participant, Session
    from crmarena_tui.storage.store import Store


@dataclass(frozen=True, slots=True)
class Cell:
    """One participant on one group of tasks."""

    participant: str
    group: str
    attempts: int
    wins: int
    mean_reward: float
    protocol: str = "unknown"
    split: str = ALL_SPLITS
    no_answer: int = 0  # rewards that came from answers giving no answer (`metrics.no_answer`)
    units: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def rate(self) -> float:
        return self.wins / self.attempts if self.attempts else 0.0

    def row(self) -> dict:
        return {
            "participant": self.participant,
            "group": self.group,
            "protocol": self.protocol,
            "split": self.split,
            "org_type": self.split.split(" ")[0] if self.split != ALL_SPLITS else ALL_SPLITS,
            "mode": self.split.split(" ")[-1] if self.split != ALL_SPLITS else ALL_SPLITS,
            "attempts": self.attempts,
            "wins": self.wins,
            "success_rate": round(self.rate, 4),
            "mean_reward": round(self.mean_reward, 4),
            "no_answer": self.no_answer,
            **(self.units or {}),
        }


def skill_of(task_type: str) -> str:
    known = BY_NAME.get(task_type)
    return known.skill if known else "other"


@dataclass(frozen=True, slots=True)
class Place:
    """What the configuration, split and filter functions read of a session."""

    settings: dict[str, Any]
    aided: bool
    task_json: dict[str, Any]
    org_ref: str
    task_source: str
    interactive: bool
    protocol: str
    kind: str
    task_type: str
    user_simulator: str | None = None  # a chat session's user (`configuration.named_user`)

    @property
    def session(self) -> Session:
        return cast("Session", self)


@dataclass(frozen=True, slots=True)
class Group:
    """Graded sessions alike in every column the report names them by."""

    number: int  # the group's number in `reports.report_sql.report_rows`' table
    participant: Participant
    place: Place
    grader: str
    grade_protocol: str | None
    no_answer: bool
    infrastructure_error: bool
    n: int
    reward_sum: float
    wins: int
    who: str = field(default="", compare=False)
    split: str = field(default="", compare=False)

    @property
    def protocol(self) -> str:
        return self.grade_protocol or "unknown"

    @property
    def session_protocol(self) -> str:
        return "upstream" if self.place.protocol == "upstream" else "workbench"

    @property
    def is_attempt(self) -> bool:
        return self.place.kind == "attempt"

    @property
    def task_type(self) -> str:
        return self.place.task_type

    def keeps(self, only: ReportFilter) -> bool:
        return only.keeps(self.participant, self.place.session, self.grade_protocol)


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def place_of(row: dict[str, Any], settings: list[Any]) -> Place:
    """The stand-in session of a row of raw columns (`reports.report_sql`)."""
    org_type = _json(row["ot"])
    return Place(
        settings={k: v for k, v in zip(SETTINGS_KEYS, settings, strict=True) if v is not None},
        aided=bool(row["aided"]),
        task_json={} if org_type is None else {"org_type": org_type},
        org_ref=row["org_ref"],
        task_source=row["task_source"],
        interactive=bool(row["interactive"]),
        protocol="upstream" if row["up"] else "workbench",
        kind=row["kind"],
        task_type=row["task_type"],
        user_simulator=row["us"],
    )


def groups_of(rows: Iterable[tuple[Any, ...]], people: dict[int, Participant]) -> list[Group]:
    """`reports.report_sql.report_groups`' rows, named."""
    found = []
    for raw in rows:
        row = dict(zip(GROUP_COLUMNS, raw, strict=False))
        n, reward_sum, wins = raw[len(GROUP_COLUMNS) :]
        settings = _json(row["st"]) or [None] * len(SETTINGS_KEYS)
        no_answer, broken = _json(row["gm"]) or [None, None]
        place = place_of(row, settings)
        person = people[row["pid"]]
        found.append(
            Group(
                row["g"], person, place, row["grader"], row["gp"], no_answer is True,
                bool(broken or place.settings.get("infrastructure_error")),
                int(n), float(reward_sum or 0.0), int(wins or 0),
                session_configuration(person, place.session),
                split_name(org_type_of(place.session), mode_of(place.session)),
            )
        )  # fmt: skip
    return found


def task_parts(
    group_rows: Iterable[tuple[Any, ...]], task_rows: Iterable[tuple[Any, ...]]
) -> dict[int, list[tuple[int, int, int]]]:
    """{group number: [(task idx, graded sessions, wins)]} from `report_sql.report_groups`' and
    `report_sql.task_tallies`' rows (a task's rows name its group by the raw columns)."""
    width = len(GROUP_COLUMNS) - 1
    number = {tuple(raw[1 : width + 1]): raw[0] for raw in group_rows}
    found: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for raw in task_rows:
        idx, n, wins = raw[width:]
        found[number[tuple(raw[:width])]].append((idx, int(n), int(wins or 0)))
    return found


def cluster_of(group: Group, column: str | None) -> Any:
    """The value of `column` (`task_units.CLUSTERS`) the group's tasks share."""
    if column is None:
        return None
    return getattr(group.place, CLUSTERS[column])


def cells(
    groups: Iterable[Group],
    name: Callable[[Group], str],
    tasks: dict[int, list[tuple[int, int, int]]] | None = None,
    options: Options = DEFAULT,
    left_out: Iterable[Group] = (),
) -> list[Cell]:
    """The success table over groups: per configuration, protocol, split and `name`,
    and over every split when there are several; with `tasks` (`task_parts`) each cell's task
    figures (`reports.task_units`) and the sessions of `left_out` in its place."""
    buckets = _buckets(groups, name)
    excluded = {k: sum(g.n for g in v) for k, v in _buckets(left_out, name).items()}
    found = []
    for key, items in sorted(buckets.items(), key=_order):
        who, protocol, split, label = key
        n = sum(g.n for g in items)
        units = None
        if tasks is not None:
            units = unit_figures(
                merged(
                    ((g.place.task_source, idx), trials, wins, cluster_of(g, options.cluster))
                    for g in items
                    for idx, trials, wins in tasks[g.number]
                ),
                options,
            )
            units["excluded"] = excluded.get(key, 0)
        found.append(
            Cell(
                who, label, n, sum(g.wins for g in items),
                sum(g.reward_sum for g in items) / n, protocol, split,
                sum(g.n for g in items if g.no_answer), units,
            )
        )  # fmt: skip
    return found


def _buckets(
    groups: Iterable[Group], name: Callable[[Group], str]
) -> dict[tuple[str, str, str, str], list[Group]]:
    buckets: dict[tuple[str, str, str, str], list[Group]] = defaultdict(list)
    splits = set()
    for group in groups:
        splits.add(group.split)
        buckets[(group.who, group.protocol, group.split, name(group))].append(group)
    if len(splits) > 1:
        for (who, protocol, _split, label), items in list(buckets.items()):
            buckets[(who, protocol, ALL_SPLITS, label)] += items
    return buckets


def _order(item: tuple[tuple[str, str, str, str], list[Group]]) -> tuple:
    who, protocol, split, label = item[0]
    return (who, protocol, split == ALL_SPLITS, split, label)


def by_task_type(groups: Iterable[Group], *units: Any) -> list[Cell]:
    return cells(groups, lambda g: g.task_type, *units)


def by_skill(groups: Iterable[Group], *units: Any) -> list[Cell]:
    return cells(groups, lambda g: skill_of(g.task_type), *units)


def overall(groups: Iterable[Group], *units: Any) -> list[Cell]:
    return cells(groups, lambda g: "all", *units)


def by_session_kind(groups: Iterable[Group]) -> list[Cell]:
    return cells(groups, lambda g: g.place.kind)


def label_owners(
    store: Store, ids: set[int], people: dict[int, Participant], only: ReportFilter
) -> dict[int, tuple[str, str]]:
    """{session id: (configuration, task type)} of the sessions `ids` names that `only` keeps
    (labels are counted on every session, graded or not: `only` reads no grade)."""
    owners = {}
    for raw in session_places(store, ids):
        row = dict(zip(PLACE_COLUMNS, raw, strict=True))
        place = place_of(row, _json(row["st"]) or [None] * len(SETTINGS_KEYS))
        person = people[row["pid"]]
        if only.keeps(person, place.session):
            owners[row["id"]] = (session_configuration(person, place.session), place.task_type)
    return owners
