"""What the trajectory viewer and the compare screen read about a session, loaded in one go in a
worker (no textual here): the session, its participant, events, latest grade and annotations, plus
the settings that shape annotation (taxonomy, hidden labels) and the annotator's name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Trajectory:
    session: Any
    participant: Any
    events: list[Any]
    grade: Any | None
    annotations: list[Any]
    me: str = ""  # the annotator: the app's participant name
    hidden: bool = False  # hide other annotators' labels
    taxonomy: list[str] = field(default_factory=list)
    agent_model: str = ""  # the default model offered when forking

    def labels(self, hidden: bool) -> list[Any]:
        """The annotations this annotator may see."""
        return visible(self.annotations, self.me, hidden)

    def notes(self, notes: Iterable[Any], hidden: bool) -> list[Any]:
        """Note events this annotator may see (a participant's own notes always show)."""
        return [
            n for n in notes if not hidden or (n.payload or {}).get("annotator") in (None, self.me)
        ]

    def step_labels(self, seqs: Iterable[int], hidden: bool) -> list[Any]:
        wanted = set(seqs)
        return [a for a in self.labels(hidden) if a.event_seq in wanted]

    def marks(self, steps: Iterable[Any], hidden: bool) -> dict[int, str]:
        """{step index: "⚑2✎"} for steps with visible labels (count) or notes."""
        by_seq: dict[int, int] = {}
        for a in self.labels(hidden):
            if a.event_seq is not None:
                by_seq[a.event_seq] = by_seq.get(a.event_seq, 0) + 1
        marks = {}
        for step in steps:
            count = sum(by_seq.get(ev.seq, 0) for ev in step.events)
            noted = bool(self.notes(step.notes, hidden))
            mark = (f"⚑{count}" if count else "") + ("✎" if noted else "")
            if mark:
                marks[step.index] = mark
        return marks


def load_trajectory(
    store: Any, session_id: int, me: str = "", hidden: bool | None = None
) -> Trajectory:
    """Blocking: everything about one session. `hidden` None reads the `hidden_labels` setting."""
    from crmarena_tui.config import load_settings

    settings = load_settings()
    session = store.session(session_id)
    return Trajectory(
        session=session,
        participant=store.get_participant(session.participant_id),
        events=store.events(session_id),
        grade=store.grade(session_id),
        annotations=store.annotations(session_id=session_id),
        me=me,
        hidden=settings.hidden_labels if hidden is None else hidden,
        taxonomy=list(settings.taxonomy),
        agent_model=settings.agent_model or "",
    )


def visible(annotations: Iterable[Any], me: str, hidden: bool) -> list[Any]:
    """The annotations an annotator may see: all of them, or (hidden mode) only their own."""
    return [a for a in annotations if not hidden or a.annotator == me]
