"""The sessions list's reads, for databases of 100,000 sessions: plain tuples, no domain models.

- `list_sessions`: one row per session (the columns the list shows and filters on), one query on
  a covering index (the rows themselves hold large task snapshots: reading past them is slow).
- `newest_sessions` and `list_extent`: what the list's first frame needs, in milliseconds
  whatever the number of sessions: the newest few rows (by id, the table's own order), and what
  the column widths of the whole list depend on (aggregates SQLite computes over the index).
- `session_details`: the latest grade and the label count of a handful of sessions (the rows on
  screen), two queries whatever their number.
- `graded_attempts`: every attempt's latest reward, one query, for the human-vs-agent outcome
  filter (read only when that filter is used).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crmarena_tui.storage.models import Details, ListedSession, ListExtent

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

_COLUMNS = (
    "SELECT id, task_source, task_idx, task_type, status, kind, parent_session_id, started_at,"
    " active_seconds, interactive, org_ref, participant_id, protocol, trial FROM sessions"
)
_LIST = _COLUMNS + " INDEXED BY sessions_listed"
_OF_TASK = " WHERE task_source = ? AND task_idx = ?"


def list_sessions(store: Store, task_key: tuple[str, int] | None = None) -> list[ListedSession]:
    """Every session (of one task when `task_key` is given), newest first: read from the
    `sessions_listed` covering index, sorted here (cheaper than SQLite's sort of the index)."""
    sql = _LIST
    params: tuple[str | int, ...] = ()
    if task_key is not None:
        sql, params = sql + _OF_TASK, task_key
    rows = list(map(ListedSession._make, store.read(sql, params)))
    rows.sort(reverse=True)
    return rows


def newest_sessions(
    store: Store, task_key: tuple[str, int] | None = None, count: int = 100
) -> list[ListedSession]:
    """The `count` newest sessions (of one task when `task_key` is given), newest first."""
    where, params = (_OF_TASK, task_key) if task_key is not None else ("", ())
    sql = f"{_COLUMNS}{where} ORDER BY id DESC LIMIT ?"
    return list(map(ListedSession._make, store.read(sql, (*params, count))))


def list_extent(store: Store, task_key: tuple[str, int] | None = None) -> ListExtent:
    """`ListExtent` of every session (of one task when `task_key` is given), by SQL: three scans
    of the covering index, without a row of Python per session."""
    where, params = (_OF_TASK, task_key) if task_key is not None else ("", ())
    total, max_id, max_idx, max_parent, max_trial = store.read(
        "SELECT COUNT(*), MAX(id), MAX(task_idx), MAX(parent_session_id), MAX(trial)"
        f" FROM sessions INDEXED BY sessions_listed{where}",
        params,
    )[0]
    combos = store.read(
        "SELECT DISTINCT participant_id, kind, task_type, task_source, org_ref, status"
        f" FROM sessions INDEXED BY sessions_listed{where}",
        params,
    )
    protocols = store.read(
        f"SELECT protocol, COUNT(*) FROM sessions INDEXED BY sessions_listed{where}"
        " GROUP BY protocol ORDER BY protocol",
        params,
    )
    columns = list(zip(*combos, strict=True)) if combos else [()] * 6
    people, kinds, types, sources, orgs, statuses = map(frozenset, columns)
    return ListExtent(
        total=total,
        max_id=max_id or 0,
        max_idx=max_idx or 0,
        max_parent=max_parent or 0,
        participants=people,
        kinds=kinds,
        task_types=types,
        sources=sources,
        orgs=orgs,
        statuses=statuses,
        protocols=tuple((p, n) for p, n in protocols),
        max_trial=max_trial or 1,
    )


def session_details(
    store: Store, ids: list[int], *, annotator: str | None = None
) -> dict[int, Details]:
    """{session id: its latest grade and label count} for `ids`; the count covers only
    `annotator`'s labels when one is given (hidden-labels mode)."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    grades = store.read(
        "SELECT session_id, reward, grader, COALESCE(protocol, '') FROM grades WHERE id IN"
        f" (SELECT MAX(id) FROM grades WHERE session_id IN ({marks}) GROUP BY session_id)",
        tuple(ids),
    )
    who = " AND annotator = ?" if annotator is not None else ""
    counts = dict(
        store.read(
            f"SELECT session_id, COUNT(*) FROM annotations WHERE session_id IN ({marks})"
            f" AND kind = 'label'{who} GROUP BY session_id",
            (*ids, annotator) if annotator is not None else tuple(ids),
        )
    )
    out = {sid: Details(labels=counts.get(sid, 0)) for sid in ids}
    for sid, reward, grader, protocol in grades:
        out[sid] = Details(float(reward), grader, protocol, counts.get(sid, 0))
    return out


def graded_attempts(store: Store) -> list[tuple[int, int, str, str, int, float, str]]:
    """(session id, participant id, participant kind, task source, task idx, reward, metric) of
    every graded attempt (forks and take-overs are not attempts), with its latest grade."""
    return [
        (r[0], r[1], r[2], r[3], r[4], float(r[5]), r[6])
        for r in store.read(
            "SELECT s.id, s.participant_id, p.kind, s.task_source, s.task_idx, g.reward, g.grader"
            " FROM sessions s JOIN participants p ON p.id = s.participant_id"
            " JOIN grades g ON g.id = (SELECT MAX(id) FROM grades WHERE session_id = s.id)"
            " WHERE s.kind = 'attempt'"
        )
    ]
