"""What the trajectory viewer reads about a session, loaded in one go in a worker (no textual
here): the session, its participant, events, latest grade, annotations (labels and notes), why it
ended, whether its ground truth may be shown, plus the settings that shape annotation (taxonomy,
hidden labels) and the annotator's name.

The ground truth and the grade breakdown are withheld while the viewer (the app's participant)
has an attempt on the same task that is still open: looking at someone else's session must not
give away the answer of one's own unsubmitted work.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from crmarena_tui.settings.config import Settings
    from crmarena_tui.storage.models import Annotation, Event, GradeRow, Participant, Session
    from crmarena_tui.storage.store import Store
    from crmarena_tui.storage.suggestions import Suggestion


class StepLike(Protocol):
    """What `Trajectory.marks` reads of a step (`widgets.step_list.Step` is one)."""

    @property
    def index(self) -> int: ...
    @property
    def events(self) -> list[Event]: ...


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
    ended: str = ""  # why the session ended (storage.end_reason)
    open_attempt: int | None = None  # the viewer's own unsubmitted attempt on this task
    suggestions: list[Suggestion] = field(default_factory=list)  # scanners' (storage/suggestions)

    @property
    def may_show_gold(self) -> bool:
        return self.open_attempt is None

    def header(self, steps: int, hidden: bool) -> tuple[str, str]:
        """The viewer's two header lines (rich markup): who, which task (and trial, after the
        first), status and reward; how it ended, its time, model calls, tokens and cost, and
        what it forks."""
        from rich.markup import escape

        from crmarena_tui.reports.units import format_duration
        from crmarena_tui.storage.replay import usage_totals
        from crmarena_tui.storage.steps import fork_step
        from crmarena_tui.tasks.catalog import BY_NAME

        s, who = self.session, self.participant
        entry = BY_NAME.get(s.task_type)
        reward = (
            f" · reward [b]{self.grade.reward:.2f}[/]"
            if self.grade is not None and self.may_show_gold
            else ""
        )
        kind = f" · {s.kind}" if s.kind != "attempt" else ""
        trial = f" · trial {s.trial}" if s.trial > 1 else ""
        others = " · [yellow]others' labels hidden[/]" if hidden else ""
        top = (
            f"[b]Session {s.id}[/]{kind} · {escape(who.name)} [dim]({who.kind})[/] · "
            f"{escape(entry.label if entry else s.task_type)} #{s.task_idx}{trial} · "
            f"{s.status.replace('_', ' ')}{reward} · {steps} steps{others}"
        )
        fork = ""
        if s.parent_session_id:
            after = fork_step(self.events, s.fork_seq)
            where = f"after step {after}" if after else "from its start"
            fork = f" · {s.kind} of #{s.parent_session_id} {where}"
        calls, tokens, cost = usage_totals(self.events)
        spent = f" · {calls} model calls, {tokens:,} tokens" if calls else ""
        spent += f", ${cost:.4f}" if calls and cost is not None else ""
        ended = (
            f"ended: {escape(self.ended)} · time {format_duration(s.active_seconds)} · "
            f"started {s.started_at:%Y-%m-%d %H:%M} UTC{fork}{spent}"
        )
        return top, ended

    def provenance(self) -> str:
        """The viewer's third header line (rich markup): the org clock the session's queries
        counted from, its schema and prompt sources and the judge of its grade
        (`storage/provenance.py`; `unknown` where the session recorded none)."""
        from rich.markup import escape

        from crmarena_tui.storage import provenance

        grade, settings = self.grade, self.session.settings or {}
        facts = provenance.values(settings, grade)
        metrics = grade.metrics if grade is not None else {}
        judge = provenance.judge_text(
            facts["judge_model"],
            metrics.get("judge_temperature"),
            metrics.get("judge_instructions"),
        )
        parts = [
            f"org clock {provenance.clock_text(facts['org_today'], facts['org_clock'])}",
            f"schema {facts['schema_source'] or provenance.UNKNOWN}",
            f"prompts {facts['prompt_source'] or provenance.UNKNOWN}",
        ]
        if grade is not None:
            parts.append(f"judge {judge or 'none needed'}")
        return escape(" · ".join(parts))

    def labels(self, hidden: bool) -> list[Annotation]:
        """The labels this annotator may see."""
        return [a for a in visible(self.annotations, self.me, hidden) if a.kind == "label"]

    def notes(self, seqs: Iterable[int] | None, hidden: bool) -> list[Annotation]:
        """The notes this annotator may see, about the steps with events `seqs` (None: about the
        whole session)."""
        notes = [a for a in visible(self.annotations, self.me, hidden) if a.kind == "note"]
        if seqs is None:
            return [n for n in notes if n.event_seq is None]
        wanted = set(seqs)
        return [n for n in notes if n.event_seq in wanted]

    def shown_suggestions(self, hidden: bool) -> list[Suggestion]:
        """The scanners' suggestions this annotator may see: in hidden-labels mode only those
        about a session or step they have labelled themselves (storage/suggestions.shown)."""
        from crmarena_tui.storage.suggestions import shown

        mine = [
            a.event_seq
            for a in self.annotations
            if a.kind == "label" and self.me and a.annotator == self.me
        ]
        return shown(self.suggestions, self.events, mine, hidden_labels=hidden)

    def step_labels(self, seqs: Iterable[int], hidden: bool) -> list[Annotation]:
        wanted = set(seqs)
        return [a for a in self.labels(hidden) if a.event_seq in wanted]

    def marks(self, steps: Iterable[StepLike], hidden: bool) -> dict[int, str]:
        """{step index: "⚑2✎"} for steps with visible labels (count) or notes."""
        labelled: dict[int, int] = {}
        noted: set[int | None] = set()
        for a in visible(self.annotations, self.me, hidden):
            if a.kind == "note":
                noted.add(a.event_seq)
            elif a.event_seq is not None:
                labelled[a.event_seq] = labelled.get(a.event_seq, 0) + 1
        marks = {}
        for step in steps:
            count = sum(labelled.get(ev.seq, 0) for ev in step.events)
            mark = (f"⚑{count}" if count else "") + (
                "✎" if any(ev.seq in noted for ev in step.events) else ""
            )
            if mark:
                marks[step.index] = mark
        return marks


def load_trajectory(
    store: Store, session_id: int, settings: Settings, me: str = "", hidden: bool | None = None
) -> Trajectory:
    """Blocking: everything about one session. `hidden` None reads the `hidden_labels` setting."""
    from crmarena_tui.storage.end_reason import end_reason

    session = store.session(session_id)
    events = store.events(session_id)
    grade = store.grade(session_id)
    return Trajectory(
        session=session,
        participant=store.get_participant(session.participant_id),
        events=events,
        grade=grade,
        annotations=store.annotations.find(session_id=session_id, kind=None),
        me=me,
        hidden=settings.hidden_labels if hidden is None else hidden,
        taxonomy=list(settings.taxonomy),
        agent_model=settings.agent_model or "",
        ended=end_reason(session, events, grade),
        open_attempt=open_attempt(store, session, me),
        suggestions=store.suggestions.of_session(session_id),
    )


def open_attempt(store: Store, session: Session, me: str) -> int | None:
    """The id of `me`'s (a human participant's) unsubmitted attempt on `session`'s task."""
    if not me:
        return None
    for person in store.participants("human"):
        if person.name != me:
            continue
        found = store.sessions(
            participant_id=person.id,
            task_source=session.task_source,
            task_idx=session.task_idx,
            status="in_progress",
        )
        attempts = [s.id for s in found if s.is_attempt]
        if attempts:
            return attempts[-1]
    return None


def visible(annotations: Iterable[Annotation], me: str, hidden: bool) -> list[Annotation]:
    """The annotations an annotator may see: all of them, or (hidden mode) only their own."""
    return [a for a in annotations if not hidden or a.annotator == me]
