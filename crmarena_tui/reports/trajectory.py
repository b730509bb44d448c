"""What the trajectory viewer and the compare screen read about a session, loaded in one go in a
worker (no textual here): the session, its participant, events, latest grade and annotations, plus
the settings that shape annotation (taxonomy, hidden labels) and the annotator's name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from crmarena_tui.config import Settings
    from crmarena_tui.storage.models import Annotation, Event, GradeRow, Participant, Session
    from crmarena_tui.storage.store import Store


class StepLike(Protocol):
    """What `Trajectory.marks` reads of a step (`widgets.step_list.Step` is one)."""

    @property
    def index(self) -> int: ...
    @property
    def events(self) -> list[Event]: ...
    @property
    def notes(self) -> list[Event]: ...


@dataclass(slots=True)
class Trajectory:
    session: Session
    participant: Participant
    events: list[Event]
    grade: GradeRow | None
    annotations: list[Annotation]
    me: str = ""  # the annotator: the app's participant name
    hidden: bool = False  # hide other annotators' labels
    taxonomy: list[str] = field(default_factory=list)
    agent_model: str = ""  # the default model offered when forking

    def labels(self, hidden: bool) -> list[Annotation]:
        """The annotations this annotator may see."""
        return visible(self.annotations, self.me, hidden)

    def notes(self, notes: Iterable[Event], hidden: bool) -> list[Event]:
        """Note events this annotator may see (a participant's own notes always show)."""
        return [
            n for n in notes if not hidden or (n.payload or {}).get("annotator") in (None, self.me)
        ]

    def step_labels(self, seqs: Iterable[int], hidden: bool) -> list[Annotation]:
        wanted = set(seqs)
        return [a for a in self.labels(hidden) if a.event_seq in wanted]

    def marks(self, steps: Iterable[StepLike], hidden: bool) -> dict[int, str]:
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
    store: Store, session_id: int, settings: Settings, me: str = "", hidden: bool | None = None
) -> Trajectory:
    """Blocking: everything about one session. `hidden` None reads the `hidden_labels` setting."""
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


def visible(annotations: Iterable[Annotation], me: str, hidden: bool) -> list[Annotation]:
    """The annotations an annotator may see: all of them, or (hidden mode) only their own."""
    return [a for a in annotations if not hidden or a.annotator == me]
