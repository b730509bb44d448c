"""`report --sensitivity`: how many grades the other grading protocol would change, and why, per
configuration: the size of upstream's known grading quirks on this run. Offline: no model is
called and nothing is written; each stored answer is graded again in memory under both
protocols (`storage.submission_grade.grade_submission`, the rule `regrade` uses).

A judge's stored reading is reused, never asked again:
- exact_match: the items the judge extracted (the grade's parsed answer), handed to the other
  protocol in the shape its reading expects (upstream's `{"extracted_answers": [...]}`, the
  workbench's JSON list); a judge reply that gave no items is handed over as it was;
- privacy_rejection: the judge's YES/NO reply as it was (both protocols ask for one word);
- a grade made without a judge (the offline extractor, the strip rule, a structured answer) is
  graded again without one.
A session imported from upstream keeps upstream's own grade as its `upstream` grading (its judge
reply is not in upstream's files); its `workbench` grading is the offline extractor's.

A grade changes when its reward differs between the two protocols. The reason is the first that
applies, in this order:
- `unconfirmed`: the episode ended before an answer was confirmed (a turn limit, the user's
  limit): upstream scores 0, the workbench grades the last reply;
- `give_up`: the answer gives no answer ("I don't know"): upstream reads it (exact_match: as
  "None", which is right when the ground truth is None; privacy: the judge reads the
  trajectory), the workbench scores it 0;
- `privacy_yes`: a privacy verdict upstream reads as YES because "yes" occurs anywhere in the
  judge's reply ("No, ... yes"), where the workbench reads the first YES or NO;
- `fuzzy_f1`: the fuzzy reward's F1, computed against the ground truth's first element with
  upstream's ROUGE, or against all of it with rouge-score;
- `other`: the rest (the ground truth read differently, upstream comparing extracted items
  unstripped; for an imported session, the offline extractor against upstream's judge).
Sessions that ended on an infrastructure error are left out (as `report` does by default).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crmarena_tui.graders.base import Grade, GradingProtocol
from crmarena_tui.graders.privacy_rejection import parse_verdict, upstream_verdict
from crmarena_tui.graders.structured import StructuredAnswer
from crmarena_tui.reports.attempts import FUZZY_THRESHOLD, is_win
from crmarena_tui.storage.configuration import session_configuration
from crmarena_tui.storage.replay import trajectory
from crmarena_tui.storage.submission_grade import grade_submission, unconfirmed_end

if TYPE_CHECKING:
    from crmarena_tui.reports.filters import ReportFilter
    from crmarena_tui.storage import GradeRow, Participant, Session, Store
    from crmarena_tui.storage.models import Event

REASONS = ("unconfirmed", "give_up", "privacy_yes", "fuzzy_f1", "other")
EXAMPLES = 10  # session ids listed per reason and configuration


class StoredReading:
    """A judge that answers from a stored reading (see the module notes): never a model call."""

    def __init__(self, model: str, reply: str) -> None:
        self.model, self.reply = model, reply

    def __call__(self, prompt: str) -> str:
        return self.reply

    def chat(self, system: str, user: str) -> str:
        return self.reply


def _reading(stored: GradeRow, protocol: GradingProtocol) -> StoredReading | None:
    """The stored judge reading as `protocol` reads it; None when the grade used no judge."""
    if stored.extraction != "llm" or stored.judge_raw is None:
        return None
    model = stored.judge_model or "stored"
    items = stored.parsed_answer
    if stored.grader == "exact_match" and isinstance(items, list):
        shaped = {"extracted_answers": items} if protocol == "upstream" else items
        return StoredReading(model, json.dumps(shaped))
    return StoredReading(model, stored.judge_raw)


def regrade_offline(
    session: Session, events: list[Event], stored: GradeRow, protocol: GradingProtocol
) -> Grade | None:
    """The session's answer graded under `protocol` in memory; None without a submit event."""
    submits = [ev for ev in events if ev.kind == "submit"]
    if not submits:
        return None
    last = submits[-1]
    task = session.task()
    return grade_submission(
        task,
        last.payload,
        last.actor,
        session.settings,
        protocol,
        answer=last.text,
        structured=StructuredAnswer.from_payload(last.payload.get("structured")),
        judge=_reading(stored, protocol),
        trajectory=trajectory(None if task.interactive else task.query, events),
    )


def _reason(
    session: Session, events: list[Event], upstream: GradeRow | Grade, workbench: Grade
) -> str:
    submit = next(ev for ev in reversed(events) if ev.kind == "submit")
    if unconfirmed_end(session.settings, submit.payload) is not None:
        return "unconfirmed"
    grader = workbench.grader
    if grader != "fuzzy_match" and (
        upstream.metrics.get("no_answer") is True or workbench.metrics.get("no_answer") is True
    ):
        return "give_up"
    raw = upstream.judge_raw
    if grader == "privacy_rejection" and raw and upstream_verdict(raw) != parse_verdict(raw):
        return "privacy_yes"
    if grader == "fuzzy_match":
        return "fuzzy_f1"
    return "other"


@dataclass(slots=True)
class _Tally:
    sessions: int = 0
    upstream_wins: int = 0
    workbench_wins: int = 0
    changed: int = 0
    higher: int = 0  # the workbench's reward above upstream's
    lower: int = 0
    reasons: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))
    examples: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))


def _kept(
    store: Store, only: ReportFilter | None, with_infrastructure_errors: bool
) -> Iterable[tuple[Session, Participant, GradeRow]]:
    people = {p.id: p for p in store.participants()}
    for session in store.sessions(status="submitted"):
        stored = store.grade(session.id)
        if stored is None:
            continue
        person = people[session.participant_id]
        broken = stored.metrics.get("infrastructure_error") or session.settings.get(
            "infrastructure_error"
        )
        if broken and not with_infrastructure_errors:
            continue
        if only is not None and not only.keeps(person, session, stored.protocol):
            continue
        yield session, person, stored


def sensitivity(
    store: Store,
    *,
    only: ReportFilter | None = None,
    fuzzy_threshold: float = FUZZY_THRESHOLD,
    with_infrastructure_errors: bool = False,
) -> dict[str, Any]:
    """The `sensitivity` section of the report (JSON-ready): one row per configuration, then
    `all`."""
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    for session, person, stored in _kept(store, only, with_infrastructure_errors):
        events = store.events(session.id)
        imported = stored.imported or stored.extraction == "imported"
        upstream: GradeRow | Grade | None = (
            stored if imported else regrade_offline(session, events, stored, "upstream")
        )
        workbench = regrade_offline(session, events, stored, "workbench")
        if upstream is None or workbench is None:
            continue
        who = session_configuration(person, session)
        for tally in (tallies[who], tallies["all"]):
            tally.sessions += 1
            metric = workbench.grader
            tally.upstream_wins += is_win(upstream.reward, metric, fuzzy_threshold)
            tally.workbench_wins += is_win(workbench.reward, metric, fuzzy_threshold)
            if abs(upstream.reward - workbench.reward) <= 1e-9:
                continue
            reason = _reason(session, events, upstream, workbench)
            tally.changed += 1
            tally.reasons[reason] += 1
            if workbench.reward > upstream.reward:
                tally.higher += 1
            else:
                tally.lower += 1
            if len(tally.examples[reason]) < EXAMPLES:
                tally.examples[reason].append(session.id)
    names = sorted(n for n in tallies if n != "all") + (["all"] if tallies else [])
    return {
        "fuzzy_threshold": fuzzy_threshold,
        "rows": [_row(name, tallies[name]) for name in names],
    }


def _row(name: str, tally: _Tally) -> dict[str, Any]:
    return {
        "participant": name,
        "sessions": tally.sessions,
        "upstream_wins": tally.upstream_wins,
        "workbench_wins": tally.workbench_wins,
        "changed": tally.changed,
        "workbench_higher": tally.higher,
        "workbench_lower": tally.lower,
        "reasons": dict(tally.reasons),
        "examples": {k: v for k, v in tally.examples.items() if v},
    }
