"""Inter-annotator agreement: Cohen's kappa between two annotators over the items both labelled.

An item is a session (`level="session"`, labels without an event) or a step (`level="step"`,
(session, event seq)). When an annotator gave one item several labels, their latest counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from crmarena_tui.storage import Annotation

Level = Literal["session", "step"]


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


def _items(annotations: Iterable[Annotation], annotator: str, level: Level) -> dict[tuple, str]:
    chosen: dict[tuple, tuple[int, str]] = {}
    for note in annotations:
        if note.annotator != annotator or (note.event_seq is None) != (level == "session"):
            continue
        key = (note.session_id,) if level == "session" else (note.session_id, note.event_seq)
        if key not in chosen or note.id > chosen[key][0]:
            chosen[key] = (note.id, note.label)
    return {key: label for key, (_id, label) in chosen.items()}


def paired_labels(
    annotations: Iterable[Annotation], a: str, b: str, level: Level = "session"
) -> list[tuple[str, str]]:
    notes = list(annotations)
    left, right = _items(notes, a, level), _items(notes, b, level)
    return [(left[key], right[key]) for key in sorted(left.keys() & right.keys())]


@dataclass(frozen=True, slots=True)
class Agreement:
    a: str
    b: str
    level: str
    items: int
    observed: float
    kappa: float | None

    def row(self) -> dict:
        return {
            "annotator_a": self.a,
            "annotator_b": self.b,
            "level": self.level,
            "items": self.items,
            "observed_agreement": round(self.observed, 4),
            "kappa": None if self.kappa is None else round(self.kappa, 4),
        }


def agreement(
    annotations: Iterable[Annotation], a: str, b: str, level: Level = "session"
) -> Agreement:
    pairs = paired_labels(annotations, a, b, level)
    observed = sum(x == y for x, y in pairs) / len(pairs) if pairs else 0.0
    return Agreement(a, b, level, len(pairs), observed, cohen_kappa(pairs))


def all_agreements(annotations: Iterable[Annotation]) -> list[Agreement]:
    """Every annotator pair and level with at least one item labelled by both."""
    notes = list(annotations)
    people = sorted({n.annotator for n in notes})
    rows = []
    for a, b in combinations(people, 2):
        for level in ("session", "step"):
            found = agreement(notes, a, b, level)
            if found.items:
                rows.append(found)
    return rows
