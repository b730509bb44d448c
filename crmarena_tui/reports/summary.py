"""The whole report as JSON-ready data: what `crmarena-tui report` prints and the report screen shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.agreement import all_agreements, fleiss_agreements
from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, attempts_of
from crmarena_tui.reports.efficiency import efficiency_rows, session_usage
from crmarena_tui.reports.filters import NO_FILTER, ReportFilter
from crmarena_tui.reports.labels import label_report
from crmarena_tui.reports.success import (
    by_session_kind,
    overall,
    success_by_skill,
    success_by_task_type,
)
from crmarena_tui.reports.timing import human_time
from crmarena_tui.reports.versus import head_to_head
from crmarena_tui.storage.report_reads import report_sessions

if TYPE_CHECKING:
    from crmarena_tui.storage import Store


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
    (`agreement_fleiss`).
    Only attempts count in the figures: forks and take-overs (sessions continuing another session)
    are reported apart, in `continuations`.
    Rows are per configuration (`storage.configuration`) and split (`splits` counts the attempts
    per split); `only` keeps the sessions it names, in every section (`filter` states it).
    `efficiency` gives cost per solved task, tokens per model call and time per task by
    configuration and task type (`reports.efficiency`); with `versus` (two sides), `paired` holds
    McNemar's exact test and paired bootstrap intervals on their shared tasks (`reports.paired`).
    `cancelled` is asked between the reads and before each section; when it says True the
    report stops there with `ReportCancelled` (the report screen, left while it computes).
    """
    sessions, grades = report_sessions(store)  # no task snapshots: `storage.report_reads`
    if cancelled():
        raise ReportCancelled
    graded = [
        a
        for a in attempts_of(store, sessions, grades)
        if only.keeps(a.participant, a.session, a.grade.protocol if a.grade else None)
    ]
    continued = [a for a in graded if not a.session.is_attempt]
    every = [a for a in graded if a.session.is_attempt]
    broken = [a for a in every if a.infrastructure_error]
    attempts = (
        every if with_infrastructure_errors else [a for a in every if not a.infrastructure_error]
    )
    annotations = store.annotations.find(kind=None)  # labels, and notes: a note marks a review
    participants = store.participants()
    if only.active:
        people = {p.id: p for p in participants}
        sessions = [s for s in sessions if only.keeps(people[s.participant_id], s)]
        kept = {s.id for s in sessions}
        annotations = [a for a in annotations if a.session_id in kept]
    sections: dict[str, Callable[[], Any]] = {
        "filter": lambda: only.row(),
        "infrastructure_errors": lambda: {
            "counted_in_success": with_infrastructure_errors,
            "total": len(broken),
            "by_participant": [
                {"participant": who, "sessions": n}
                for who, n in sorted(Counter(a.who for a in broken).items())
            ],
        },
        "protocols": lambda: dict(sorted(Counter(a.protocol for a in attempts).items())),
        "session_protocols": lambda: dict(
            sorted(Counter(a.session_protocol for a in attempts).items())
        ),
        "win_rule": lambda: {
            "exact_match": "reward >= 1",
            "privacy_rejection": "reward >= 1",
            "fuzzy_match": f"F1 >= {fuzzy_threshold}",
        },
        "graded_sessions": lambda: len(attempts),
        "splits": lambda: dict(sorted(Counter(a.split for a in attempts).items())),
        "continuations": lambda: [c.row() for c in by_session_kind(continued, fuzzy_threshold)],
        "overall": lambda: [c.row() for c in overall(attempts, fuzzy_threshold)],
        "by_task_type": lambda: [c.row() for c in success_by_task_type(attempts, fuzzy_threshold)],
        "by_skill": lambda: [c.row() for c in success_by_skill(attempts, fuzzy_threshold)],
        "human_time": lambda: [s.row() for s in human_time(attempts)],
        "human_vs_agent": lambda: [h.row() for h in head_to_head(attempts, fuzzy_threshold)],
        "labels": lambda: label_report(annotations, sessions, participants),
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
        "efficiency": lambda: efficiency_rows(attempts, session_usage(store), fuzzy_threshold),
        "paired": lambda: _paired(attempts, versus, fuzzy_threshold),
    }
    report: dict[str, Any] = {}
    for key, make in sections.items():
        if cancelled():  # the screen was left: stop between sections
            raise ReportCancelled
        report[key] = make()
    return report


def _paired(
    attempts: list[Any], versus: tuple[str, str] | None, fuzzy_threshold: float
) -> dict[str, Any] | None:
    if versus is None:
        return None
    from crmarena_tui.reports.paired import paired_report

    return paired_report(attempts, *versus, fuzzy_threshold=fuzzy_threshold)
