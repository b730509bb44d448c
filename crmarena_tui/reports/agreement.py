"""Inter-annotator agreement: Cohen's kappa between two annotators, Fleiss' kappa over K.

An item is a session (`level="session"`, labels without an event) or a step (`level="step"`,
(session, event seq)). When an annotator gave one item several labels, their latest counts.

Two measures:
- `label`: which label. By default over the items both annotators labelled; with
  `no_label_as_category` "(no label)" is a category of its own, over the items either labelled in
  the sessions both reviewed.
- `presence`: whether there is a failure at all (a label, any label, on the item; at session level
  on the session or any of its steps), over the sessions both reviewed: "no label" always counts.
An annotator reviewed a session when they left any annotation on it, a label or a note (a note
such as "no failure" marks a session reviewed and found clean).

A kappa over fewer than `MIN_ITEMS` items is reported with a warning: it moves too much with one
item to be read. With three annotators or more, whose pairs change from task to task, each measure
and level also gets Fleiss' kappa over the items rated by the same number of annotators.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from crmarena_tui.storage import Annotation

Level = Literal["session", "step"]
Measure = Literal["label", "presence"]
NO_LABEL = "(no label)"
FAILURE, NO_FAILURE = "failure", "no failure"
MIN_ITEMS = 5
FEW_ITEMS = f"fewer than {MIN_ITEMS} shared items: the kappa is not reliable"
Item = tuple[int, ...]


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """kappa = (p_o - p_e) / (1 - p_e) over (label by A, label by B) pairs.

    None when undefined: no pairs, or both annotators used one and the same label throughout
    (p_e = 1)."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(a == b for a, b in pairs) / n
    left, right = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(left[label] * right[label] for label in left) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa: one row per item, the number of raters who chose each category (every row
    sums to the same number of raters m >= 2).

    P_i = (sum_j n_ij^2 - m) / (m (m - 1)), P = mean of P_i, p_j = sum_i n_ij / (N m),
    P_e = sum_j p_j^2, kappa = (P - P_e) / (1 - P_e). None when undefined (no items, or every
    rating in one category: P_e = 1)."""
    if not counts:
        return None
    observed, expected = _fleiss_parts(counts)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def _fleiss_parts(counts: Sequence[Sequence[int]]) -> tuple[float, float]:
    """(P, P_e) of Fleiss' kappa."""
    raters = sum(counts[0])
    if raters < 2 or any(sum(row) != raters for row in counts):
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of raters for every item")
    items = len(counts)
    agreement = sum((sum(c * c for c in row) - raters) / (raters * (raters - 1)) for row in counts)
    shares = [sum(row[j] for row in counts) / (items * raters) for j in range(len(counts[0]))]
    return agreement / items, sum(p * p for p in shares)


def _latest(annotations: Iterable[Annotation], level: Level) -> dict[str, dict[Item, str]]:
    """{annotator: {item: their latest label at `level`}} (labels only, never notes)."""
    chosen: dict[str, dict[Item, tuple[int, str]]] = defaultdict(dict)
    for note in annotations:
        if note.kind != "label" or (note.event_seq is None) != (level == "session"):
            continue
        key: Item = (
            (note.session_id,)
            if level == "session"
            else (note.session_id, int(note.event_seq or 0))
        )
        mine = chosen[note.annotator]
        if key not in mine or note.id > mine[key][0]:
            mine[key] = (note.id, note.label)
    return {who: {k: label for k, (_id, label) in items.items()} for who, items in chosen.items()}


class Ratings:
    """Each annotator's rating of each item under one measure and level."""

    def __init__(
        self,
        annotations: Iterable[Annotation],
        level: Level,
        measure: Measure = "label",
        no_label_as_category: bool = False,
    ) -> None:
        notes = list(annotations)
        self.level, self.measure = level, measure
        self.open = measure == "presence" or no_label_as_category  # "no label" is a rating
        self.labels = _latest(notes, level)
        self.reviewed: dict[str, set[int]] = defaultdict(set)
        self.flagged: dict[str, set[int]] = defaultdict(set)  # sessions with any label
        for note in notes:
            self.reviewed[note.annotator].add(note.session_id)
            if note.kind == "label":
                self.flagged[note.annotator].add(note.session_id)
        self.people = sorted(self.reviewed if self.open else self.labels)

    def _rating(self, who: str, item: Item) -> str:
        if self.measure == "presence":
            if self.level == "session":
                return FAILURE if item[0] in self.flagged[who] else NO_FAILURE
            return FAILURE if item in self.labels.get(who, {}) else NO_FAILURE
        return self.labels.get(who, {}).get(item, NO_LABEL)

    def items(self, raters: Sequence[str]) -> dict[Item, dict[str, str]]:
        """{item: {rater: rating}} for the items all `raters` rated."""
        if not self.open:
            shared = set.intersection(*(set(self.labels.get(w, {})) for w in raters))
            return {k: {w: self.labels[w][k] for w in raters} for k in sorted(shared)}
        sessions = set.intersection(*(self.reviewed[w] for w in raters))
        if self.level == "session":
            keys: set[Item] = {(s,) for s in sessions}
        else:
            keys = {k for w in raters for k in self.labels.get(w, {}) if k[0] in sessions}
        return {k: {w: self._rating(w, k) for w in raters} for k in sorted(keys)}

    def by_item(self) -> dict[Item, dict[str, str]]:
        """{item: {rater: rating}} over every annotator who rated the item."""
        found: dict[Item, dict[str, str]] = defaultdict(dict)
        steps = {k for w in self.people for k in self.labels.get(w, {})}
        for who in self.people:
            if not self.open:
                for key, label in self.labels.get(who, {}).items():
                    found[key][who] = label
                continue
            keys: Iterable[Item]
            if self.level == "session":
                keys = [(s,) for s in self.reviewed[who]]
            else:
                keys = [k for k in steps if k[0] in self.reviewed[who]]
            for key in keys:
                found[key][who] = self._rating(who, key)
        return found


def paired_labels(
    annotations: Iterable[Annotation],
    a: str,
    b: str,
    level: Level = "session",
    *,
    measure: Measure = "label",
    no_label_as_category: bool = False,
) -> list[tuple[str, str]]:
    ratings = Ratings(annotations, level, measure, no_label_as_category)
    return [(r[a], r[b]) for r in ratings.items([a, b]).values()]


@dataclass(frozen=True, slots=True)
class Agreement:
    a: str
    b: str
    level: str
    items: int
    observed: float
    kappa: float | None
    measure: str = "label"
    no_label_as_category: bool = False

    def row(self) -> dict:
        return {
            "annotator_a": self.a,
            "annotator_b": self.b,
            "level": self.level,
            "measure": self.measure,
            "no_label_as_category": self.no_label_as_category,
            "items": self.items,
            "observed_agreement": round(self.observed, 4),
            "kappa": None if self.kappa is None else round(self.kappa, 4),
            "warning": FEW_ITEMS if self.items < MIN_ITEMS else None,
        }


def agreement(
    annotations: Iterable[Annotation],
    a: str,
    b: str,
    level: Level = "session",
    *,
    measure: Measure = "label",
    no_label_as_category: bool = False,
) -> Agreement:
    pairs = paired_labels(
        annotations, a, b, level, measure=measure, no_label_as_category=no_label_as_category
    )
    observed = sum(x == y for x, y in pairs) / len(pairs) if pairs else 0.0
    open_ = measure == "presence" or no_label_as_category
    return Agreement(a, b, level, len(pairs), observed, cohen_kappa(pairs), measure, open_)


def all_agreements(
    annotations: Iterable[Annotation],
    *,
    measure: Measure = "label",
    no_label_as_category: bool = False,
) -> list[Agreement]:
    """Every annotator pair and level with at least one item rated by both."""
    notes = list(annotations)
    rows = []
    for level in ("session", "step"):
        ratings = Ratings(notes, level, measure, no_label_as_category)
        for a, b in combinations(ratings.people, 2):
            pairs = [(r[a], r[b]) for r in ratings.items([a, b]).values()]
            if pairs:
                observed = sum(x == y for x, y in pairs) / len(pairs)
                rows.append(
                    Agreement(
                        a, b, level, len(pairs), observed, cohen_kappa(pairs), measure, ratings.open
                    )
                )
    return sorted(rows, key=lambda r: (r.a, r.b, r.level != "session"))


def fleiss_agreements(
    annotations: Iterable[Annotation],
    *,
    measure: Measure = "label",
    no_label_as_category: bool = False,
) -> list[dict[str, Any]]:
    """Fleiss' kappa per level and number of raters per item, when three annotators or more
    rated at that level (with two, Cohen's kappa of the pair says it all)."""
    notes = list(annotations)
    rows = []
    for level in ("session", "step"):
        ratings = Ratings(notes, level, measure, no_label_as_category)
        if len(ratings.people) < 3:
            continue
        groups: dict[int, list[dict[str, str]]] = defaultdict(list)
        for rated in ratings.by_item().values():
            if len(rated) >= 2:
                groups[len(rated)].append(rated)
        for raters, found in sorted(groups.items()):
            categories = sorted({c for rated in found for c in rated.values()})
            counts = [[list(r.values()).count(c) for c in categories] for r in found]
            observed, _expected = _fleiss_parts(counts)
            kappa = fleiss_kappa(counts)
            rows.append(
                {
                    "level": level,
                    "measure": measure,
                    "no_label_as_category": ratings.open,
                    "raters_per_item": raters,
                    "annotators": len({w for r in found for w in r}),
                    "items": len(found),
                    "observed_agreement": round(observed, 4),
                    "kappa": None if kappa is None else round(kappa, 4),
                    "warning": FEW_ITEMS if len(found) < MIN_ITEMS else None,
                }
            )
    return rows
