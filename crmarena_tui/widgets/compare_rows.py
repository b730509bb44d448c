"""Two or three sessions of one task side by side (no textual here): their steps aligned
(`reports.alignment`: queries match by normalised text, messages and responds by turn, the
submissions with each other), the first divergence, and one summary per session (answer, reward,
time, turns, queries, errors, tokens from usage events, and why it ended).

Three sessions are aligned through the first: A is aligned with B and with C, and the rows are
merged on A's steps; steps only B or only C ran between two of A's steps share rows side by side.
A row is `same` when every session has the step and all texts match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crmarena_tui.reports.alignment import align
from crmarena_tui.reports.attempts import is_win

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Event, GradeRow, Participant, Session


@dataclass(frozen=True, slots=True)
class CompareRow:
    steps: tuple[Event | None, ...]  # per session: its step's event (query, message...), or None
    same: bool


def align_sessions(event_lists: Sequence[Sequence[Event]]) -> list[CompareRow]:
    """Rows of aligned steps for two or three event logs."""
    if len(event_lists) == 2:
        return [CompareRow((p.a, p.b), p.same) for p in align(event_lists[0], event_lists[1])]
    if len(event_lists) != 3:
        raise ValueError("compare two or three sessions")
    ab = align(event_lists[0], event_lists[1])
    ac = align(event_lists[0], event_lists[2])
    rows: list[CompareRow] = []
    i = j = 0
    while i < len(ab) or j < len(ac):
        only_b, only_c = [], []
        while i < len(ab) and ab[i].a is None:
            only_b.append(ab[i].b)
            i += 1
        while j < len(ac) and ac[j].a is None:
            only_c.append(ac[j].b)
            j += 1
        for k in range(max(len(only_b), len(only_c))):
            rows.append(
                CompareRow(
                    (
                        None,
                        only_b[k] if k < len(only_b) else None,
                        only_c[k] if k < len(only_c) else None,
                    ),
                    False,
                )
            )
        if i < len(ab) and j < len(ac):
            rows.append(CompareRow((ab[i].a, ab[i].b, ac[j].b), ab[i].same and ac[j].same))
            i += 1
            j += 1
    return rows


def first_divergence(rows: Sequence[CompareRow]) -> int | None:
    """Index of the first row where the sessions differ; None when every step matches."""
    return next((i for i, row in enumerate(rows) if not row.same), None)


def results_by_seq(events: Sequence[Event]) -> dict[int, Event]:
    """{query/search event seq: the observation or error that answered it}."""
    out: dict[int, Event] = {}
    pending: int | None = None
    for ev in events:
        if ev.kind in ("query", "search"):
            pending = ev.seq
        elif pending is not None and (
            ev.kind == "observation" or (ev.kind == "error" and ev.actor == "system")
        ):
            out[pending] = ev
            pending = None
    return out


@dataclass(frozen=True, slots=True)
class Summary:
    session_id: int
    who: str
    kind: str
    answer: str | None
    reward: float | None
    win: bool
    seconds: float | None
    queries: int
    errors: int
    tokens: int | None
    cost: float | None
    turns: int = 0  # the participant's messages and responds, the final answer included
    ended: str = ""


def summarise(
    session: Session,
    participant: Participant,
    events: Sequence[Event],
    grade: GradeRow | None,
    ended: str = "",
) -> Summary:
    """One session's summary row; `ended` says why it ended (`storage.end_reason`)."""
    answers = [ev.payload.get("answer") for ev in events if ev.kind == "submit"]
    usage = [ev.payload for ev in events if ev.kind == "usage"]
    tokens = None
    cost = None
    if usage:
        tokens = sum(
            int(
                u.get("total_tokens")
                or (u.get("prompt_tokens") or 0) + (u.get("completion_tokens") or 0)
            )
            for u in usage
        )
        costs = [float(c) for u in usage if isinstance(c := u.get("cost"), int | float)]
        cost = float(sum(costs)) if costs else None
    reward = None if grade is None else float(grade.reward)
    metric = grade.grader if grade is not None else "exact_match"
    return Summary(
        session_id=session.id,
        who=participant.name,
        kind=participant.kind,
        answer=answers[-1] if answers else None,
        reward=reward,
        win=is_win(reward, metric),
        seconds=session.active_seconds,
        queries=sum(1 for ev in events if ev.kind in ("query", "search")),
        errors=sum(1 for ev in events if ev.kind == "error"),
        tokens=tokens,
        cost=cost,
        turns=sum(
            1
            for ev in events
            if ev.kind == "submit" or (ev.kind == "message" and ev.actor in ("agent", "human"))
        ),
        ended=ended,
    )
