"""Failure-mode labels counted by participant (the labelled session's participant)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.storage import Annotation, Participant, Session


def label_counts(
    annotations: Iterable[Annotation],
    sessions: Iterable[Session],
    participants: Iterable[Participant],
) -> dict[str, dict[str, int]]:
    """{participant name: {label: count}} over session- and step-level labels alike."""
    owner = {s.id: s.participant_id for s in sessions}
    names = {p.id: p.name for p in participants}
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for note in annotations:
        who = names.get(owner.get(note.session_id, -1), f"session {note.session_id}")
        table[who][note.label] += 1
    return {who: dict(sorted(c.items())) for who, c in sorted(table.items())}
