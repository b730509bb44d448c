"""Failure-mode labels, counted apart by level (a label on a step, or on the whole session) and by
annotator, so that two annotators labelling one session never read as two labelled sessions.

- `by_annotator`: each annotator's labels per level: how often each label was given, on how many
  sessions, and its share of that annotator's labels at that level.
- `sessions_labelled`: per annotator and level, how many sessions carry at least one label.
- `by_participant`: the labelled session's participant (which agent or human fails how): the
  distinct labelled items (a step or a session given that label by anyone) and their sessions.
Notes (annotations of kind `note`) are never counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.storage import Annotation, Participant, Session

LEVELS = ("session", "step")


def _labels(annotations: Iterable[Annotation]) -> list[Annotation]:
    return [a for a in annotations if a.kind == "label"]


def by_annotator(annotations: Iterable[Annotation]) -> list[dict[str, Any]]:
    """Rows {annotator, level, label, count, sessions, share}, sorted."""
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    sessions: dict[tuple[str, str, str], set[int]] = defaultdict(set)
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for a in _labels(annotations):
        key = (a.annotator, a.level, a.label)
        counts[key] += 1
        sessions[key].add(a.session_id)
        totals[(a.annotator, a.level)] += 1
    return [
        {
            "annotator": who,
            "level": level,
            "label": label,
            "count": n,
            "sessions": len(sessions[(who, level, label)]),
            "share": round(n / totals[(who, level)], 4),
        }
        for (who, level, label), n in sorted(
            counts.items(), key=lambda kv: (kv[0][0], LEVELS.index(kv[0][1]), -kv[1], kv[0][2])
        )
    ]


def sessions_labelled(annotations: Iterable[Annotation]) -> list[dict[str, Any]]:
    """Rows {annotator, level, sessions, labels}: sessions with at least one label of that level."""
    sessions: dict[tuple[str, str], set[int]] = defaultdict(set)
    labels: dict[tuple[str, str], int] = defaultdict(int)
    for a in _labels(annotations):
        sessions[(a.annotator, a.level)].add(a.session_id)
        labels[(a.annotator, a.level)] += 1
    return [
        {"annotator": who, "level": level, "sessions": len(ids), "labels": labels[(who, level)]}
        for (who, level), ids in sorted(
            sessions.items(), key=lambda kv: (kv[0][0], LEVELS.index(kv[0][1]))
        )
    ]


def by_participant(
    annotations: Iterable[Annotation],
    sessions: Iterable[Session],
    participants: Iterable[Participant],
) -> list[dict[str, Any]]:
    """Rows {participant, level, label, items, sessions}: distinct labelled items, any annotator."""
    owner = {s.id: s.participant_id for s in sessions}
    names = {p.id: p.name for p in participants}
    items: dict[tuple[str, str, str], set[tuple[int, int | None]]] = defaultdict(set)
    for a in _labels(annotations):
        who = names.get(owner.get(a.session_id, -1), f"session {a.session_id}")
        items[(who, a.level, a.label)].add((a.session_id, a.event_seq))
    return [
        {
            "participant": who,
            "level": level,
            "label": label,
            "items": len(found),
            "sessions": len({sid for sid, _ in found}),
        }
        for (who, level, label), found in sorted(
            items.items(), key=lambda kv: (kv[0][0], LEVELS.index(kv[0][1]), -len(kv[1]), kv[0][2])
        )
    ]


def label_report(
    annotations: Iterable[Annotation],
    sessions: Iterable[Session],
    participants: Iterable[Participant],
) -> dict[str, list[dict[str, Any]]]:
    """The report's `labels` section."""
    notes = list(annotations)
    return {
        "by_annotator": by_annotator(notes),
        "sessions_labelled": sessions_labelled(notes),
        "by_participant": by_participant(notes, sessions, participants),
    }
