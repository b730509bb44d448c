"""The sessions list's reads, for databases of 100,000 sessions: plain tuples, no domain models.

- `list_sessions`: one row per session (the columns the list shows and filters on), one query on
  a covering index (the rows themselves hold large task snapshots: reading past them is slow).
- `session_details`: the latest grade and the label count of a handful of sessions (the rows on
  screen), two queries whatever their number.
- `graded_attempts`: every attempt's latest reward, one query, for the human-vs-agent outcome
  filter (read only when that filter is used).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crmarena_tui.storage.models import Details, ListedSession

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

_LIST = (
    "SELECT id, task_source, task_idx, task_type, status, kind, parent_session_id, started_at,"
    " active_seconds, interactive, org_ref, participant_id, protocol"
    " FROM sessions INDEXED BY sessions_listed"
)


def list_sessions(store: Store, task_key: tuple[str, int] | None = None) -> list[ListedSession]:
    """Every session (of one task when `task_key` is given), newest first: read from the
    `sessions_listed` covering index, sorted here (cheaper than SQLite's sort of the index)."""
    sql = _LIST
    params: tuple[str | int, ...] = ()
    if task_key is not None:
        sql, params = sql + " WHERE task_source = ? AND task_idx = ?", task_key
    rows = list(map(ListedSession._make, store.read(sql, params)))
    rows.sort(reverse=True)
    return rows


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
