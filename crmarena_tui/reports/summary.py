"""The whole report as JSON-ready data: what `crmarena-tui report` prints and the report screen shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports import report_groups as groups_
from crmarena_tui.reports.agreement import all_agreements, fleiss_agreements
from crmarena_tui.reports.attempts import FUZZY_THRESHOLD
from crmarena_tui.reports.filters import NO_FILTER, ReportFilter
from crmarena_tui.reports.labels import labels_of
from crmarena_tui.reports.provenance import name_judges, provenance_of
from crmarena_tui.reports.report_latest import LatestFigures, latest_sections
from crmarena_tui.reports.report_sql import report_groups, report_rows, task_tallies
from crmarena_tui.reports.scanner_agreement import scanner_agreement
from crmarena_tui.reports.task_units import Options, default_ks

if TYPE_CHECKING:
    from crmarena_tui.reports.report_groups import Group
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.models import Participant


class ReportCancelled(Exception):
    """`build_report` was told to stop (its `cancelled` said True)."""


def build_report(
    store: Store,
    fuzzy_threshold: float = FUZZY_THRESHOLD,
    *,
    with_infrastructure_errors: bool = False,
    only: ReportFilter = NO_FILTER,
    no_label_as_category: bool = False,
    versus: tuple[str, str] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    interval: str = "wilson",
    cluster: str | None = None,
    ks: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """Every section of the report, computed from the store's graded sessions and annotations.

    Attempts that ended on an infrastructure error are left out of every figure unless
    `with_infrastructure_errors`; `infrastructure_errors` counts them by participant either way.
    `protocols` counts the graded attempts by grading protocol and `session_protocols` by the
    protocol their session ran under, so that a report mixing them says so; every success figure
    and head-to-head row names its protocol. Labels are counted by annotator and level
    (`reports.labels`), agreement per level (`reports.agreement`): on the label (`agreement`, "no
    label" a category of its own with `no_label_as_category`), on whether there is a failure
    (`agreement_presence`) and, with three annotators or more, Fleiss' kappa
    (`agreement_fleiss`); model scanners against the people, per label
    (`agreement_scanners`, `reports.scanner_agreement`).
    Only attempts count in the figures: forks and take-overs (sessions continuing another session)
    are reported apart, in `continuations`.
    Rows are per configuration (`storage.configuration`) and split (`splits` counts the attempts
    per split); `only` keeps the sessions it names, in every section (`filter` states it).
    `efficiency` gives cost per solved task, tokens per model call and time per task by
    configuration and task type (`reports.report_latest`); with `versus` (two sides), `paired` holds
    McNemar's exact test and paired bootstrap intervals on their shared tasks (`reports.paired`).
    `provenance` gives each configuration's org clock, schema and prompt sources and judge, and
    which of them its sessions mix (`reports.provenance`).
    `cancelled` is asked between the reads and before each section; when it says True the
    report stops there with `ReportCancelled` (the report screen, left while it computes).
    Every success row also takes the task as the unit (`reports.task_units`): its tasks, trials,
    task mean, standard error (clustered by `cluster`), interval (`interval` with one trial per
    task) and, for each k of `ks` (None: 1 and the smallest trial count when tasks have several
    trials), pass@k and pass^k; `units` states those choices.
    """
    with report_rows(store, fuzzy_threshold) as table:  # the database counts: `report_sql`
        return _sections(
            store, table, fuzzy_threshold, with_infrastructure_errors, only,
            no_label_as_category, versus, cancelled, (interval, cluster, ks),
        )  # fmt: skip


def _sections(
    store: Store,
    table: str,
    fuzzy_threshold: float,
    with_infrastructure_errors: bool,
    only: ReportFilter,
    no_label_as_category: bool,
    versus: tuple[str, str] | None,
    cancelled: Callable[[], bool],
    choices: tuple[str, str | None, tuple[int, ...] | None],
) -> dict[str, Any]:
    people = {p.id: p for p in store.participants()}
    rows = report_groups(store, table)
    tasks = groups_.task_parts(rows, task_tallies(store, table))
    if cancelled():
        raise ReportCancelled
    graded = [g for g in groups_.groups_of(rows, people) if g.keeps(only)]
    continued = [g for g in graded if not g.is_attempt]
    every = [g for g in graded if g.is_attempt]
    broken = [g for g in every if g.infrastructure_error]
    attempts = (
        every if with_infrastructure_errors else [g for g in every if not g.infrastructure_error]
    )
    interval, cluster, ks = choices
    options = Options(
        interval, cluster, default_ks(_smallest_trials(attempts, tasks)) if ks is None else ks
    )
    units = (tasks, options, [] if with_infrastructure_errors else broken)
    annotations = store.annotations.find(kind=None)  # labels, and notes: a note marks a review
    owners = groups_.label_owners(store, {a.session_id for a in annotations}, people, only)
    if only.active:
        annotations = [a for a in annotations if a.session_id in owners]
    latest: list[LatestFigures] = []  # one read for three sections, made when first asked

    def per_task() -> LatestFigures:
        if not latest:
            latest.append(latest_sections(store, table, attempts, versus, cluster))
        return latest[0]

    sections: dict[str, Callable[[], Any]] = {
        "filter": lambda: only.row(),
        "infrastructure_errors": lambda: {
            "counted_in_success": with_infrastructure_errors,
            "total": _count(broken),
            "by_participant": [
                {"participant": who, "sessions": n}
                for who, n in sorted(_counts(broken, lambda g: g.who).items())
            ],
        },
        "protocols": lambda: dict(sorted(_counts(attempts, lambda g: g.protocol).items())),
        "session_protocols": lambda: dict(
            sorted(_counts(attempts, lambda g: g.session_protocol).items())
        ),
        "win_rule": lambda: {
            "exact_match": "reward >= 1",
            "privacy_rejection": "reward >= 1",
            "fuzzy_match": f"F1 >= {fuzzy_threshold}",
        },
        "graded_sessions": lambda: _count(attempts),
        "provenance": lambda: provenance_of(store, table, attempts),
        "splits": lambda: dict(sorted(_counts(attempts, lambda g: g.split).items())),
        "units": options.row,
        "continuations": lambda: [c.row() for c in groups_.by_session_kind(continued)],
        "overall": lambda: [c.row() for c in groups_.overall(attempts, *units)],
        "by_task_type": lambda: [c.row() for c in groups_.by_task_type(attempts, *units)],
        "by_skill": lambda: [c.row() for c in groups_.by_skill(attempts, *units)],
        "human_time": lambda: per_task().human_time,
        "human_vs_agent": lambda: per_task().human_vs_agent,
        "labels": lambda: labels_of(annotations, owners),
        "agreement": lambda: [
            a.row() for a in all_agreements(annotations, no_label_as_category=no_label_as_category)
        ],
        "agreement_presence": lambda: [
            a.row() for a in all_agreements(annotations, measure="presence")
        ],
        "agreement_fleiss": lambda: [
            *fleiss_agreements(annotations, no_label_as_category=no_label_as_category),
            *fleiss_agreements(annotations, measure="presence"),
        ],
        "agreement_scanners": lambda: scanner_agreement(
            store,
            annotations,
            (lambda ids: set(groups_.label_owners(store, ids, people, only)))
            if only.active
            else None,
        ),
        "efficiency": lambda: per_task().efficiency,
        "paired": lambda: paired_with_left_out(
            per_task().paired,
            store,
            people,
            only,
            versus,
            {g.who for g in attempts},
            per_task().graded,
            table,
        ),
    }
    report: dict[str, Any] = {}
    for key, make in sections.items():
        if cancelled():  # the screen was left: stop between sections
            raise ReportCancelled
        report[key] = make()
    if "provenance" in report:
        name_judges(report)  # the paper's table names each row's judge
    return report


def paired_with_left_out(
    paired: dict[str, Any] | None,
    store: Store,
    people: dict[int, Participant],
    only: ReportFilter,
    versus: tuple[str, str] | None,
    configurations: set[str],
    graded: tuple[set[tuple[str, int]], set[tuple[str, int]]],
    table: str | None = None,
) -> dict[str, Any] | None:
    """The paired section with what each side leaves out (`reports.paired_left_out`) and
    whether there are too few pairs."""
    if paired is None or versus is None:
        return paired
    from crmarena_tui.reports.paired_left_out import MIN_PAIRS, left_out

    paired.update(left_out(store, people, only, versus, configurations, graded, table))
    paired["few_pairs"] = paired["shared_tasks"] < MIN_PAIRS
    return paired


def _smallest_trials(groups: list[Group], tasks: dict[int, list[tuple[int, int, int]]]) -> int:
    """The fewest graded trials of any task of any configuration and protocol (1 when none)."""
    trials: Counter[tuple[str, str, str, int]] = Counter()
    for g in groups:
        for idx, n, _wins in tasks[g.number]:
            trials[(g.who, g.protocol, g.place.task_source, idx)] += n
    return min(trials.values(), default=1)


def _count(groups: list[Group]) -> int:
    return sum(g.n for g in groups)


def _counts(groups: list[Group], name: Callable[[Group], str]) -> Counter[str]:
    """Sessions per name (`Counter` of the per-session report, from the groups' counts)."""
    found: Counter[str] = Counter()
    for group in groups:
        found[name(group)] += group.n
    return found
