"""Agreement of model scanners with people (issue 41, item 3): per scan and label, the scanner's
precision, recall and Cohen's kappa against each annotator and against the majority, with the
counts they come from, so a scanner (model, prompt) can be chosen by its agreement.

The unit is a session, and the rating is whether it has the label: the scanner says "L" of a
session when one of its suggestions there (on the session or a step) is L; a person says "L"
when one of their labels there is L. The sessions compared with annotator A are those the scan
read (a reading stored `ok`, with or without suggestions) and A reviewed (left a label or a note
on, as `reports/agreement.py` counts a review); a reviewed session without label L is a "no L".
Labels that are a suggestion accepted in a review queue (storage/reviews.py, `accept`) are left
out of the people's labels: they are the scanner's reading, not a person's own. A suggestion of
label L an annotator rejected in a review queue (`x`) is their reading "no L" of its session, even
when they left no label or note there: for label L that session is compared with them (a false
positive for a scanner that says L, unless they gave L there after all), and counts as theirs in
the majority for L; it says nothing of the other labels.

The majority: over the sessions the scan read that two annotators or more reviewed (for label L,
or rejected a suggestion of L there), a session has L when more than half of them gave it L (a
tie is "no L").

Per (scan, label, against): `sessions` compared, `tp` (both say L), `fp` (only the scanner),
`fn` (only the people), `tn` (neither); precision tp/(tp+fp) and recall tp/(tp+fn) (None when
the denominator is 0); Cohen's kappa of the two yes/no ratings (`reports.agreement.cohen_kappa`,
None when undefined), with a warning under `MIN_ITEMS` sessions. The labels are those the
scanner suggested or the people gave on the compared sessions, in the taxonomy's order when a
scan carries one, then by name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.agreement import FEW_ITEMS, MIN_ITEMS, cohen_kappa

if TYPE_CHECKING:
    from crmarena_tui.storage import Annotation
    from crmarena_tui.storage.store import Store

MAJORITY = "(majority)"
Says = Mapping[int, set[str]]  # session -> the labels said of it


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def compare(label: str, scanner: Says, person: Says, sessions: Iterable[int]) -> dict[str, Any]:
    """The counts, precision, recall and kappa of `scanner` against `person` on `sessions`."""
    pairs = [
        ("yes" if label in scanner.get(s, ()) else "no", "yes" if label in person.get(s, ()) else "no")
        for s in sorted(sessions)
    ]  # fmt: skip
    tp = sum(a == b == "yes" for a, b in pairs)
    fp = sum(a == "yes" and b == "no" for a, b in pairs)
    fn = sum(a == "no" and b == "yes" for a, b in pairs)
    kappa = cohen_kappa(pairs)
    return {
        "sessions": len(pairs),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": len(pairs) - tp - fp - fn,
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "kappa": None if kappa is None else round(kappa, 4),
        "warning": FEW_ITEMS if len(pairs) < MIN_ITEMS else None,
    }


def majority(people: Mapping[str, Says], reviewed: Mapping[str, set[int]]) -> tuple[Says, set[int]]:
    """The majority's labels per session, over the sessions two annotators or more reviewed."""
    raters: dict[int, list[str]] = defaultdict(list)
    for who, sessions in reviewed.items():
        for s in sessions:
            raters[s].append(who)
    shared = {s for s, who in raters.items() if len(who) >= 2}
    said: dict[int, set[str]] = {}
    for s in shared:
        counts: dict[str, int] = defaultdict(int)
        for who in raters[s]:
            for label in people.get(who, {}).get(s, ()):
                counts[label] += 1
        said[s] = {label for label, n in counts.items() if 2 * n > len(raters[s])}
    return said, shared


def agreement_rows(
    scan: str,
    scanner: Says,
    scanned: set[int],
    people: Mapping[str, Says],
    reviewed: Mapping[str, set[int]],
    order: Sequence[str] = (),
    rejected: Mapping[str, Mapping[str, set[int]]] | None = None,
) -> list[dict[str, Any]]:
    """Rows {scan, label, against, sessions, tp, fp, fn, tn, precision, recall, kappa,
    warning}: per label, each annotator (by name) then the majority (module's rules).
    `rejected`: annotator -> label -> the sessions where they rejected a suggestion of it."""
    rejected = rejected or {}
    names = sorted(set(reviewed) | set(rejected))

    def seen(who: str, label: str) -> set[int]:
        """The sessions compared with `who` for `label`: reviewed, or a suggestion of it
        rejected there; read by the scan."""
        return (reviewed.get(who, set()) | rejected.get(who, {}).get(label, set())) & scanned

    compared = {s for who in names for s in reviewed.get(who, set()) & scanned}
    found = {label for s in compared for label in scanner.get(s, ())}
    found |= {label for who in names for s in compared for label in people.get(who, {}).get(s, ())}
    found |= {
        label
        for who in names
        for label, sessions in rejected.get(who, {}).items()
        if sessions & scanned
    }
    ranked = {label: n for n, label in enumerate(order)}
    labels = sorted(found, key=lambda label: (ranked.get(label, len(ranked)), label))
    rows: list[dict[str, Any]] = []
    for label in labels:
        sides = {who: seen(who, label) for who in names}
        rows += [
            {"scan": scan, "label": label, "against": who,
             **compare(label, scanner, people.get(who, {}), sessions)}
            for who, sessions in sides.items()
            if sessions
        ]  # fmt: skip
        said, shared = majority(people, sides)
        if shared & scanned:
            rows.append(
                {"scan": scan, "label": label, "against": MAJORITY,
                 **compare(label, scanner, said, shared & scanned)}
            )  # fmt: skip
    return rows


def people_says(
    annotations: Iterable[Annotation],
    leave_out: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[dict[str, dict[int, set[str]]], dict[str, set[int]]]:
    """Each annotator's labels per session (any level) and the sessions they reviewed (a label
    or a note), leaving out the annotations `leave_out` names."""
    says: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    reviewed: dict[str, set[int]] = defaultdict(set)
    for a in annotations:
        if a.id in leave_out:
            continue
        reviewed[a.annotator].add(a.session_id)
        if a.kind == "label":
            says[a.annotator][a.session_id].add(a.label)
    return {who: dict(s) for who, s in says.items()}, dict(reviewed)


def scanner_agreement(
    store: Store,
    annotations: Iterable[Annotation],
    keep: Callable[[set[int]], set[int]] | None = None,
) -> list[dict[str, Any]]:
    """Blocking: the rows of every labels scan (its each run by name: `NAME` or `NAME#ID` when
    a name has several runs) against the people's `annotations` (the report's, filtered) and
    their rejections in review queues (of the sessions `keep` keeps, when given: the report's
    filter)."""
    from crmarena_tui.storage.reviews import ReviewQueues

    runs = store.suggestions.scans("labels")
    if not runs:
        return []
    queues = ReviewQueues(store)
    people, reviewed = people_says(annotations, queues.accepted_annotations())
    rejected = queues.rejections()
    if keep is not None:
        kept = keep({s for labels in rejected.values() for ss in labels.values() for s in ss})
        rejected = {
            who: {label: ss & kept for label, ss in labels.items()}
            for who, labels in rejected.items()
        }
    if not reviewed and not any(ss for labels in rejected.values() for ss in labels.values()):
        return []
    names: dict[str, int] = defaultdict(int)
    for run in runs:
        names[run.name] += 1
    rows: list[dict[str, Any]] = []
    for run in runs:
        scanner: dict[int, set[str]] = defaultdict(set)
        for s in store.suggestions.of_scan(run.id):
            if s.label:
                scanner[s.session_id].add(s.label)
        name = run.name if names[run.name] == 1 else f"{run.name}#{run.id}"
        scanned = store.suggestions.read_sessions(run.id)
        found = agreement_rows(name, scanner, scanned, people, reviewed, run.taxonomy, rejected)
        rows += [{**r, "model": run.model, "prompt_version": run.prompt_version} for r in found]
    return rows
