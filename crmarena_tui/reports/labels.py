"""Failure-mode labels, counted apart by level (a label on a step, or on the whole session) and by
annotator, so that two annotators labelling one session never read as two labelled sessions.

- `by_annotator`: each annotator's labels per level: how often each label was given, on how many
  sessions, and its share of that annotator's labels at that level.
- `sessions_labelled`: per annotator and level, how many sessions carry at least one label.
- `by_participant`: the labelled session's participant, as a configuration
  (`storage.configuration`: which agent setting or human fails how): the distinct labelled items
  (a step or a session given that label by anyone) and their sessions.
- `by_task_type`: the same per participant and the labelled session's task type (labels x task
  type x participant).
Notes (annotations of kind `note`) are never counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.storage import Annotation

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


def _items(
    annotations: Iterable[Annotation], owners: dict[int, tuple[str, str]], with_type: bool
) -> list[dict[str, Any]]:
    items: dict[tuple[str, ...], set[tuple[int, int | None]]] = defaultdict(set)
    for a in _labels(annotations):
        who, task_type = owners.get(a.session_id, (f"session {a.session_id}", "unknown"))
        head = (who, task_type) if with_type else (who,)
        items[(*head, a.level, a.label)].add((a.session_id, a.event_seq))
    rows = []
    for key, found in sorted(
        items.items(), key=lambda kv: (kv[0][:-2], LEVELS.index(kv[0][-2]), -len(kv[1]), kv[0][-1])
    ):
        row: dict[str, Any] = {"participant": key[0]}
        if with_type:
            row["task_type"] = key[1]
        row.update(
            level=key[-2],
            label=key[-1],
            items=len(found),
            sessions=len({sid for sid, _ in found}),
        )
        rows.append(row)
    return rows


def labels_of(
    annotations: Iterable[Annotation], owners: dict[int, tuple[str, str]]
) -> dict[str, list[dict[str, Any]]]:
    """`label_report` given {session id: (configuration, task type)} of the labelled sessions
    (`reports.report_groups.label_owners` reads them in SQL)."""
    notes = list(annotations)
    return {
        "by_annotator": by_annotator(notes),
        "sessions_labelled": sessions_labelled(notes),
        "by_participant": _items(notes, owners, with_type=False),
        "by_task_type": _items(notes, owners, with_type=True),
    }
