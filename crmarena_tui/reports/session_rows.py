"""The sessions list behind "pick sessions to compare" (no textual here): one row per session with
its participant, latest grade and label count, a type-ahead filter, and the human-vs-agent outcome
of each task.

Outcome of a task (only tasks with at least one graded human and one graded agent attempt): each
participant's latest graded attempt counts (as in the report); the task is a human-only win when
some human won and no agent did, an agent-only win the other way round, `both` when a human and
an agent won, `neither` when nobody did. A win follows `reports.attempts.is_win`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crmarena_tui.reports.attempts import Attempt, latest_per_participant
from crmarena_tui.tasks.catalog import BY_NAME

OUTCOMES: tuple[tuple[str, str], ...] = (
    ("human_only", "human-only wins"),
    ("agent_only", "agent-only wins"),
    ("both", "both won"),
    ("neither", "neither won"),
)

if TYPE_CHECKING:
    from crmarena_tui.storage.models import GradeRow, Participant, Session
    from crmarena_tui.storage.store import Store
TaskKey = tuple[str, int]


@dataclass(frozen=True, slots=True)
class SessionRow:
    session: Session
    participant: Participant
    grade: GradeRow | None
    labels: int = 0

    @property
    def task_key(self) -> TaskKey:
        return (self.session.task_source, self.session.task_idx)

    @property
    def reward(self) -> float | None:
        return None if self.grade is None else float(self.grade.reward)

    @property
    def task_label(self) -> str:
        entry = BY_NAME.get(self.session.task_type)
        return entry.label if entry else self.session.task_type

    @property
    def protocol(self) -> str:
        """The protocol the session ran under (`protocols.session_protocol`)."""
        from crmarena_tui.protocols import session_protocol

        return session_protocol(self.session)

    @property
    def haystack(self) -> str:
        s, p = self.session, self.participant
        return " ".join(
            (
                f"#{s.id}",
                f"#{s.task_idx}",
                p.name,
                p.model or "",
                p.kind,
                s.task_type.replace("_", " "),
                self.task_label,
                s.status,
                s.task_source,
                self.protocol,
            )
        ).casefold()


def load_rows(
    store: Store, task_key: TaskKey | None = None, *, me: str = "", hidden: bool = False
) -> list[SessionRow]:
    """Blocking: every session (of one task, when `task_key` is given), newest first. The label
    count covers only `me`'s labels in hidden mode."""
    if task_key is not None:
        sessions = store.sessions(task_source=task_key[0], task_idx=task_key[1])
    else:
        sessions = store.sessions()
    people = {p.id: p for p in store.participants()}
    latest: dict[int, GradeRow] = {}
    for grade in store.grades():
        latest[grade.session_id] = grade  # ordered by id: the last one wins
    counts: dict[int, int] = defaultdict(int)
    wanted = {s.id for s in sessions}
    for note in store.annotations():
        if note.session_id in wanted and (not hidden or note.annotator == me):
            counts[note.session_id] += 1
    rows = [
        SessionRow(s, people[s.participant_id], latest.get(s.id), counts[s.id]) for s in sessions
    ]
    return sorted(rows, key=lambda r: r.session.id, reverse=True)


def task_outcomes(rows: Iterable[SessionRow]) -> dict[TaskKey, str]:
    """{task: human_only | agent_only | both | neither} for tasks both humans and agents tried."""
    attempts = [Attempt(r.session, r.participant, r.grade) for r in rows if r.grade is not None]
    sides: dict[TaskKey, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for attempt in latest_per_participant(attempts).values():
        sides[attempt.task_key][attempt.participant.kind].append(attempt.win())
    out: dict[TaskKey, str] = {}
    for key, by_kind in sides.items():
        if not by_kind.get("human") or not by_kind.get("agent"):
            continue
        human, agent = any(by_kind["human"]), any(by_kind["agent"])
        out[key] = (
            "both"
            if human and agent
            else "human_only"
            if human
            else "agent_only"
            if agent
            else "neither"
        )
    return out


def filter_rows(
    rows: Sequence[SessionRow],
    text: str = "",
    kind: str = "",
    outcome: str = "",
    outcomes: dict[TaskKey, str] | None = None,
) -> list[SessionRow]:
    """Rows whose text holds every word of `text`, of participant `kind`, on tasks of `outcome`."""
    words = text.casefold().split()
    if outcome and outcomes is None:
        outcomes = task_outcomes(rows)
    out = []
    for row in rows:
        if kind and row.participant.kind != kind:
            continue
        if outcome and (outcomes or {}).get(row.task_key) != outcome:
            continue
        if words and not all(w in row.haystack for w in words):
            continue
        out.append(row)
    return out


def protocol_mix(rows: Iterable[SessionRow]) -> str:
    """ "" when every row ran under one protocol, else a note such as "upstream 3, workbench 2"."""
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        counts[row.protocol] += 1
    return "" if len(counts) < 2 else ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
