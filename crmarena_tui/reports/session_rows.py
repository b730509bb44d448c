"""The sessions list's data (no textual here): its rows, a filter index over them, and the
human-vs-agent outcome of each task.

Rows come from `storage.listing` as plain tuples. The list opens on a first index (`load_first`):
the newest `FIRST_ROWS` sessions and the extent of them all, read in milliseconds whatever their
number, so that its first frame shows rows in columns as wide as the whole list's; the whole
index (`load_index`) follows. Each row gets a lower-case haystack (participant,
model, kind, task type, status, source, org, date, protocol, `#id`, `#idx`) when the filter gets
the focus (in a thread) or the first time a text filter runs, and typing one more character only
re-tests the previous matches, as the task browser's index does.

Outcome of a task (only tasks with at least one graded human and one graded agent attempt): each
participant's latest graded attempt counts (as in the report); the task is a human-only win when
some human won and no agent did, an agent-only win the other way round, `both` when a human and
an agent won, `neither` when nobody did. A win follows `reports.attempts.is_win`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from threading import Lock
from typing import TYPE_CHECKING

from crmarena_tui.reports.attempts import is_win
from crmarena_tui.tasks.catalog import BY_NAME

if TYPE_CHECKING:
    from crmarena_tui.storage.models import ListedSession, ListExtent, Participant
    from crmarena_tui.storage.store import Store

OUTCOMES: tuple[tuple[str, str], ...] = (
    ("human_only", "human-only wins"),
    ("agent_only", "agent-only wins"),
    ("both", "both won"),
    ("neither", "neither won"),
)
TaskKey = tuple[str, int]
FIRST_ROWS = 100  # the newest sessions a list opens on (more lines than any screen has)
Attempt = tuple[int, int, str, str, int, float, str]  # storage.listing.graded_attempts


def task_label(task_type: str) -> str:
    entry = BY_NAME.get(task_type)
    return entry.label if entry else task_type


def org_label(org_ref: str) -> str:
    """A short name for the org a session ran on: `salesforce:b2b`, or a local org's file name."""
    if "/" in org_ref or "\\" in org_ref:
        return Path(org_ref).stem
    return org_ref


def source_label(source: str) -> str:
    """A task source as the list shows it: `hf:b2b`, `demo`, or a task file's name."""
    if "/" in source or "\\" in source:
        return Path(source).name
    return source


def day(started: str) -> str:
    """`2025-01-01 09:30` (UTC) of an ISO-8601 time."""
    return started[:16].replace("T", " ")


@dataclass(slots=True)
class SessionIndex:
    """The sessions of the list and their participants; `filter` returns positions into `rows`.
    `extent` is that of the whole list; a `partial` index holds only its newest rows."""

    rows: Sequence[ListedSession]
    people: dict[int, Participant]
    extent: ListExtent | None = None
    partial: bool = False
    _hay: list[str] | None = field(default=None, init=False, repr=False)
    _building: Lock = field(default_factory=Lock, init=False, repr=False)
    _last: tuple[tuple[str, ...], str, frozenset[TaskKey] | None, list[int]] | None = field(
        default=None, init=False, repr=False
    )

    def whole(self) -> ListExtent:
        """The extent of the whole list: as read with the index, else gathered from its rows."""
        if self.extent is None:
            from crmarena_tui.storage.models import ListExtent

            self.extent = ListExtent.of(self.rows)
        return self.extent

    def participant(self, row: ListedSession) -> Participant:
        return self.people[row.participant_id]

    @property
    def searchable(self) -> bool:
        """The haystacks are built: a text filter costs only its scan."""
        return self._hay is not None

    def haystacks(self) -> list[str]:
        """Built once, on the first text filter or before it in a thread (the screen does it when
        the filter gets the focus; opening the list never pays for it); a filter that comes while
        the thread builds waits for it rather than building them again. The parts shared by
        many rows (participant, task type, source, org) are lower-cased once each."""
        with self._building:
            if self._hay is None:
                self._hay = self._build_haystacks()
            return self._hay

    def _build_haystacks(self) -> list[str]:
        who = {pid: _who_words(p) for pid, p in self.people.items()}
        tasks: dict[str, str] = {}
        places: dict[tuple[str, str], str] = {}
        hay = []
        for r in self.rows:
            task = tasks.get(r.task_type)
            if task is None:
                task = tasks[r.task_type] = _task_words(r).casefold()
            place = places.get((r.task_source, r.org_ref))
            if place is None:
                place = places[(r.task_source, r.org_ref)] = _place_words(r)
            hay.append(_haystack(r, who[r.participant_id], task, place))
        return hay

    def filter(
        self,
        text: str = "",
        kind: str = "",
        tasks: frozenset[TaskKey] | None = None,
        ids: frozenset[int] | None = None,
    ) -> list[int]:
        """Positions of the rows whose text holds every word of `text`, whose participant is of
        `kind` (human, agent; "" any), on one of `tasks` (None: any task), among the sessions
        `ids` (None: any; a search across trajectories found them)."""
        terms = tuple(text.casefold().split())
        if not terms and not kind and tasks is None and ids is None:
            self._last = None
            return list(range(len(self.rows)))
        pool: Iterable[int] = range(len(self.rows))
        last = self._last
        if ids is not None:
            last = self._last = None
            pool = [i for i, r in enumerate(self.rows) if r.id in ids]
        if last is not None and last[1:3] == (kind, tasks) and _narrows(last[0], terms):
            pool = last[3]
        rows, people = self.rows, self.people
        if kind:
            pool = [i for i in pool if people[rows[i].participant_id].kind == kind]
        if tasks is not None:
            pool = [i for i in pool if (rows[i].task_source, rows[i].task_idx) in tasks]
        if terms:
            hay = self.haystacks()
            if len(terms) == 1:
                term = terms[0]
                pool = [i for i in pool if term in hay[i]]
            else:
                pool = [i for i in pool if all(t in hay[i] for t in terms)]
        out = list(pool)
        self._last = (terms, kind, tasks, out) if ids is None else None
        return out


def protocol_mix(rows: Iterable[ListedSession]) -> str:
    """ "" when every row ran under one protocol, else a note such as "upstream 3, workbench 2"."""
    return mix_note(Counter(row.protocol for row in rows).items())


def mix_note(counts: Iterable[tuple[str, int]]) -> str:
    """`protocol_mix`'s note from (protocol, sessions) pairs (a `ListExtent`'s)."""
    found = sorted(counts)
    return "" if len(found) < 2 else ", ".join(f"{k} {n}" for k, n in found)


def where_filter(text: str) -> Callable[[ListedSession, Participant], bool] | None:
    """The sessions list's text filter as a test of one session (`export --where`): True when
    the session's text holds every word of `text`, as the list matches it; None for no words."""
    terms = tuple(text.casefold().split())
    if not terms:
        return None

    def keep(row: ListedSession, person: Participant) -> bool:
        hay = _haystack(row, _who_words(person), _task_words(row).casefold(), _place_words(row))
        return all(t in hay for t in terms)

    return keep


def _haystack(row: ListedSession, who: str, task: str, place: str) -> str:
    """A row's lower-case text for the filter (`who`, `task` and `place` already lower-cased)."""
    return (
        f"#{row.id} #{row.task_idx} {who} {task} {row.status} {row.kind} "
        f"{place} {row.started[:10]} {row.protocol}"
    )


def _who_words(person: Participant) -> str:
    return f"{person.name} {person.model or ''} {person.kind}".casefold()


def _place_words(row: ListedSession) -> str:
    return f"{source_label(row.task_source)} {org_label(row.org_ref)}".casefold()


def _task_words(row: ListedSession) -> str:
    return f"{row.task_type.replace('_', ' ')} {task_label(row.task_type)}"


def _narrows(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """True when every match of `new` is a match of `old` (each old term lies inside a new one)."""
    if len(new) < len(old):
        return False
    return all(o in n for o, n in zip(old, new, strict=False))


def load_index(store: Store, task_key: TaskKey | None = None) -> SessionIndex:
    """Blocking: every session (of one task when `task_key` is given), newest first."""
    from crmarena_tui.storage.listing import list_sessions
    from crmarena_tui.storage.models import ListExtent

    rows = list_sessions(store, task_key)
    people = {p.id: p for p in store.participants()}
    return SessionIndex(rows, people, ListExtent.of(rows))


def load_first(store: Store, task_key: TaskKey | None = None) -> SessionIndex:
    """Blocking, a few milliseconds: the newest `FIRST_ROWS` sessions (of one task when
    `task_key` is given) and the extent of them all, as a partial index."""
    from crmarena_tui.storage.listing import list_extent, newest_sessions

    extent = list_extent(store, task_key)
    rows = newest_sessions(store, task_key, FIRST_ROWS)
    people = {p.id: p for p in store.participants()}
    return SessionIndex(rows, people, extent, partial=len(rows) < extent.total)


def task_outcomes(attempts: Iterable[Attempt]) -> dict[TaskKey, str]:
    """{task: human_only | agent_only | both | neither} for tasks both humans and agents tried,
    from `storage.listing.graded_attempts` rows."""
    latest: dict[tuple[int, TaskKey], tuple[int, str, bool]] = {}
    for sid, pid, kind, source, idx, reward, metric in attempts:
        key = (pid, (source, idx))
        if key not in latest or sid > latest[key][0]:
            latest[key] = (sid, kind, is_win(reward, metric))
    sides: dict[TaskKey, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for (_pid, task), (_sid, kind, won) in latest.items():
        sides[task][kind].append(won)
    out: dict[TaskKey, str] = {}
    for task, by_kind in sides.items():
        if not by_kind.get("human") or not by_kind.get("agent"):
            continue
        human, agent = any(by_kind["human"]), any(by_kind["agent"])
        out[task] = (
            "both"
            if human and agent
            else "human_only"
            if human
            else "agent_only"
            if agent
            else "neither"
        )
    return out


def tasks_with_outcome(outcomes: dict[TaskKey, str], outcome: str) -> frozenset[TaskKey]:
    return frozenset(task for task, found in outcomes.items() if found == outcome)
