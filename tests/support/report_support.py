"""The report as the per-session Python path computes it (the sections of tests/support/report_oracle_support.py
over one model per session): `build_report` as it was before issue 30, kept to check the report
computed in SQL against (tests/reports/test_report_sql.py, tests/reports/test_report_trials.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from crmarena_tui.reports.agreement import all_agreements, fleiss_agreements
from crmarena_tui.reports.attempts import FUZZY_THRESHOLD
from crmarena_tui.reports.filters import NO_FILTER, ReportFilter
from crmarena_tui.reports.provenance import facts
from crmarena_tui.reports.provenance import rows_of as provenance_rows_of
from crmarena_tui.reports.scanner_agreement import scanner_agreement
from crmarena_tui.reports.summary import paired_with_left_out
from crmarena_tui.reports.task_units import Options, default_ks
from crmarena_tui.storage import Store
from crmarena_tui.storage.usage_models import participant_models
from tests.support.report_oracle_support import (
    by_session_kind,
    efficiency_rows,
    head_to_head,
    human_time,
    label_report,
    load_attempts,
    on_side,
    overall,
    paired_report,
    session_usage,
    success_by_skill,
    success_by_task_type,
)


def _grade(attempt: Any) -> dict[str, Any] | None:
    grade = attempt.grade
    return None if grade is None else grade.model_dump(include=GRADE_FACTS)


GRADE_FACTS = {"judge_model", "extraction", "imported", "metrics"}


def python_report(
    store: Store,
    fuzzy_threshold: float = FUZZY_THRESHOLD,
    *,
    with_infrastructure_errors: bool = False,
    only: ReportFilter = NO_FILTER,
    no_label_as_category: bool = False,
    versus: tuple[str, str] | None = None,
    interval: str = "wilson",
    cluster: str | None = None,
    ks: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """`build_report` as it was before issue 30: one model per session, sections in Python;
    the task figures of issue 35 counted attempt by attempt."""
    graded = [
        a
        for a in load_attempts(store)
        if only.keeps(a.participant, a.session, a.grade.protocol if a.grade else None)
    ]
    continued = [a for a in graded if not a.session.is_attempt]
    every = [a for a in graded if a.session.is_attempt]
    broken = [a for a in every if a.infrastructure_error]
    attempts = (
        every if with_infrastructure_errors else [a for a in every if not a.infrastructure_error]
    )
    annotations = store.annotations.find(kind=None)
    participants = store.participants()
    sessions = store.sessions()
    if only.active:
        people = {p.id: p for p in participants}
        sessions = [s for s in sessions if only.keeps(people[s.participant_id], s)]
        kept = {s.id for s in sessions}
        annotations = [a for a in annotations if a.session_id in kept]
    paired = None
    if versus:
        paired = paired_report(attempts, *versus, fuzzy_threshold=fuzzy_threshold, cluster=cluster)
        paired = paired_with_left_out(
            paired, store, {p.id: p for p in store.participants()}, only, versus,
            {a.who for a in attempts}, graded_sides(attempts, versus, fuzzy_threshold),
        )  # fmt: skip
    t = fuzzy_threshold
    if ks is None:
        trials = Counter((a.who, a.protocol, a.task_key) for a in attempts)
        ks = default_ks(min(trials.values(), default=1))
    units = (Options(interval, cluster, ks), [] if with_infrastructure_errors else broken)
    return {
        "filter": only.row(),
        "infrastructure_errors": {
            "counted_in_success": with_infrastructure_errors,
            "total": len(broken),
            "by_participant": [
                {"participant": who, "sessions": n}
                for who, n in sorted(Counter(a.who for a in broken).items())
            ],
        },
        "protocols": dict(sorted(Counter(a.protocol for a in attempts).items())),
        "session_protocols": dict(sorted(Counter(a.session_protocol for a in attempts).items())),
        "win_rule": {
            "exact_match": "reward >= 1",
            "privacy_rejection": "reward >= 1",
            "fuzzy_match": f"F1 >= {t}",
        },
        "graded_sessions": len(attempts),
        "provenance": provenance_rows_of(
            ((a.who, a.session_protocol), facts(a.session.settings, _grade(a)), 1) for a in attempts
        ),
        "splits": dict(sorted(Counter(a.split for a in attempts).items())),
        "units": units[0].row(),
        "continuations": [c.row() for c in by_session_kind(continued, t)],
        "overall": [c.row() for c in overall(attempts, t, *units)],
        "by_task_type": [c.row() for c in success_by_task_type(attempts, t, *units)],
        "by_skill": [c.row() for c in success_by_skill(attempts, t, *units)],
        "human_time": [s.row() for s in human_time(attempts)],
        "human_vs_agent": [h.row() for h in head_to_head(attempts, t)],
        "labels": label_report(annotations, sessions, participants),
        "agreement": [
            a.row() for a in all_agreements(annotations, no_label_as_category=no_label_as_category)
        ],
        "agreement_presence": [a.row() for a in all_agreements(annotations, measure="presence")],
        "agreement_fleiss": [
            *fleiss_agreements(annotations, no_label_as_category=no_label_as_category),
            *fleiss_agreements(annotations, measure="presence"),
        ],
        "agreement_scanners": scanner_agreement(store, annotations),
        "efficiency": efficiency_rows(attempts, session_usage(store), t, participant_models(store)),
        "paired": paired,
    }


def graded_sides(
    attempts: list[Any], versus: tuple[str, str], fuzzy_threshold: float
) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """The task keys each side of `versus` has counted grades on, attempt by attempt."""
    latest = [a for a in attempts if a.session.is_attempt]
    exact = [any(x.who == side for x in latest) for side in versus]
    a, b = (
        {x.task_key for x in latest if on_side(side, x, exact[k])} for k, side in enumerate(versus)
    )
    return a, b
