"""Session-level search: the sessions a search's chains of steps find (`A then B`), those none
of whose steps match (`not A`), and the session facts `ended:`, `label:`, `source:`, `split:`
(storage/search.py reads the rest and puts them together; storage/search_query.py parses).

A step found in the full-text index alone is read from it as (session, seq) pairs; a step with a
regular expression (`re:`) or on the system prompt (`kind:prompt`) reads the events themselves:
what the index narrows (its words and filters) when it has any, else every event, or every
system prompt, of the sessions the search's facts keep. `A then B then C` keeps, session by
session, the first A, then the first B after it, then any C after that: sets of sessions
computed in SQLite, never a row per matching step in Python.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.configuration import mode_of, org_type_of
from crmarena_tui.storage.end_reason import STOP, end_kind
from crmarena_tui.storage.search_index import KEY_SHIFT, SEQ_MASK, body_sql
from crmarena_tui.storage.search_query import Chain, Step

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

_MARKERS = {"kind": "k", "actor": "a", "error": "c", "object": "o"}
_PROMPT_TEXT = "(e.payload ->> '$.text')"
_IS_PROMPT = "e.kind = 'system' AND (e.payload ->> '$.event') = 'system_prompt'"


def _phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def match_expression(step: Step) -> str | None:
    """The FTS5 MATCH text of a step's words and event filters (None: it has none; a system
    prompt's words are not in the index)."""
    parts = [] if step.prompt else [f"body : {_phrase(term)}" for term in step.terms]
    for key, values in step.filters:
        if key in _MARKERS and not step.prompt:
            alternatives = " OR ".join(
                f"facets : {_phrase(f'<{_MARKERS[key]}:{v}>')}" for v in values
            )
            parts.append(f"({alternatives})")
    return " AND ".join(parts) if parts else None


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _regexp(pattern: str, text: str | None) -> bool:
    return text is not None and _compiled(pattern).search(text) is not None


def prepare(store: Store) -> None:
    """Give the store's connection the functions a scanned step calls (`crm_regexp`)."""
    store.db.conn.create_function("crm_regexp", 2, _regexp, deterministic=True)


def step_rows(step: Step, within: str | None) -> tuple[str, tuple[Any, ...]]:
    """SQL selecting `sid, seq` of the events a step matches, and its parameters; `within`:
    a JSON list of the only sessions to look in (None: every session)."""
    expression = match_expression(step)
    if within is not None and column_step(step):
        conditions, values = _column_conditions(step)
        return (
            "SELECT e.session_id AS sid, e.seq AS seq FROM json_each(?) k"
            " JOIN events e ON e.session_id = k.value WHERE " + " AND ".join(conditions),
            (within, *values),
        )
    if not step.scanned:
        assert expression is not None
        sql = (
            f"SELECT rowid >> {KEY_SHIFT} AS sid, rowid & {SEQ_MASK} AS seq FROM event_search"
            " WHERE event_search MATCH ?"
        )
        params: tuple[Any, ...] = (expression,)
        if within is not None:
            sql += f" AND (rowid >> {KEY_SHIFT}) IN (SELECT value FROM json_each(?))"
            params += (within,)
        return sql, params
    text = _PROMPT_TEXT if step.prompt else body_sql("e.payload")
    conditions = [_IS_PROMPT] if step.prompt else []
    params = ()
    if step.prompt:
        for term in step.terms:
            conditions.append(f"instr(lower({text}), ?) > 0")
            params += (term.lower(),)
        for key, values in step.filters:
            if key == "actor":
                conditions.append(f"e.actor IN ({', '.join('?' * len(values))})")
                params += values
    for pattern in step.patterns:
        conditions.append(f"crm_regexp(?, {text})")
        params += (pattern,)
    if within is not None:
        conditions.append("e.session_id IN (SELECT value FROM json_each(?))")
        params += (within,)
    where = " AND ".join(conditions) or "1"
    if expression is None:
        return f"SELECT e.session_id AS sid, e.seq AS seq FROM events e WHERE {where}", params
    return (
        "SELECT e.session_id AS sid, e.seq AS seq FROM event_search f JOIN events e"
        f" ON e.session_id = f.rowid >> {KEY_SHIFT} AND e.seq = f.rowid & {SEQ_MASK}"
        f" WHERE event_search MATCH ? AND {where}",
        (expression, *params),
    )


def column_step(step: Step) -> bool:
    """Whether the step names only the event's kind and actor (`kind:submit`, `actor:user`),
    columns of the events table: read there, on the primary key of the sessions already kept,
    rather than from the index, where a marker such as `<k:submit>` is a phrase of trigrams
    found in every event (a pass over millions of index entries)."""
    return (
        not step.terms
        and not step.patterns
        and not step.prompt
        and bool(step.filters)
        and all(key in ("kind", "actor") for key, _ in step.filters)
    )


def _column_conditions(step: Step) -> tuple[list[str], tuple[Any, ...]]:
    conditions: list[str] = []
    params: tuple[Any, ...] = ()
    for key, values in step.filters:
        conditions.append(f"e.{key} IN ({', '.join('?' * len(values))})")
        params += tuple(v.lower() for v in values)
    return conditions, params


def _next_by_columns(step: Step, before: str, pick: str = "MIN") -> tuple[str, tuple[Any, ...]]:
    """SQL of a `column_step` after the step `before` names (its CTE, with `sid` and `seq`):
    each session's first (`pick` MIN) or last (MAX) such event after that seq, read on the
    events' primary key."""
    conditions, params = _column_conditions(step)
    return (
        f"SELECT sid, seq FROM (SELECT a.sid AS sid, (SELECT {pick}(e.seq) FROM events e"
        f" WHERE e.session_id = a.sid AND e.seq > a.seq AND {' AND '.join(conditions)}) AS seq"
        f" FROM {before} a) WHERE seq IS NOT NULL",
        params,
    )


def chain_sessions(store: Store, chain: Chain, within: str | None) -> set[int]:
    """The sessions holding the chain's steps in order (`within`: as `step_rows`). With an
    `unless` step (`A then not B`), those where one of the chain's matches has no B after it:
    the first A, the first step after it, ..., then the last match of the chain's last step
    (the one that leaves the least after it), and no B after that."""
    last = len(chain.steps) - 1
    ctes: list[str] = []
    params: tuple[Any, ...] = ()
    for n, step in enumerate(chain.steps):
        pick = "MAX" if n == last and chain.unless is not None else "MIN"
        if n and column_step(step):
            sql, more = _next_by_columns(step, f"s{n - 1}", pick)
        else:
            sql, more = step_rows(step, within)
            sql = (
                f"SELECT b.sid, {pick}(b.seq) AS seq FROM ({sql}) b"
                + (f" JOIN s{n - 1} a ON a.sid = b.sid AND b.seq > a.seq" if n else "")
                + " GROUP BY b.sid"
            )
        ctes.append(f"s{n} AS MATERIALIZED ({sql})")
        params += more
    found = f"SELECT sid FROM s{last}"
    if chain.unless is not None:
        if column_step(chain.unless):
            conditions, more = _column_conditions(chain.unless)
            found += (
                f" a WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.session_id = a.sid"
                f" AND e.seq > a.seq AND {' AND '.join(conditions)})"
            )
        else:
            sql, more = step_rows(chain.unless, within)
            found += (
                f" EXCEPT SELECT b.sid FROM ({sql}) b JOIN s{last} a"
                " ON a.sid = b.sid AND b.seq > a.seq"
            )
        params += more
    rows = store.read(f"WITH {', '.join(ctes)} {found}", params)
    return {int(r[0]) for r in rows}


# -- session facts -----------------------------------------------------------------------------


def label_sessions(store: Store, labels: tuple[str, ...]) -> set[int]:
    """Sessions holding any of `labels` (on the session or a step, from anyone)."""
    marks = ", ".join("?" * len(labels))
    rows = store.read(
        f"SELECT DISTINCT session_id FROM annotations WHERE kind = 'label' AND label IN ({marks})",
        labels,
    )
    return {int(r[0]) for r in rows}


def source_sessions(store: Store, sources: tuple[str, ...]) -> set[int]:
    """Sessions of a task source named whole (`crmarena_pro:b2b`) or by its part before `:`."""
    marks = ", ".join("?" * len(sources))
    rows = store.read(
        f"SELECT id FROM sessions WHERE task_source IN ({marks})"
        f" OR substr(task_source, 1, instr(task_source, ':') - 1) IN ({marks})",
        sources + sources,
    )
    return {int(r[0]) for r in rows}


def split_sessions(store: Store, splits: tuple[str, ...]) -> set[int]:
    """Sessions of a split: an org type (`b2b`), a mode (`chat`, `single`) or both (`b2b-chat`)."""
    from types import SimpleNamespace

    kept: set[int] = set()
    rows = store.read(
        "SELECT id, task_json ->> '$.org_type', org_ref, task_source, interactive FROM sessions"
    )
    for sid, org_type, org_ref, source, interactive in rows:
        session = SimpleNamespace(
            task_json={"org_type": org_type},
            org_ref=org_ref,
            task_source=source,
            interactive=bool(interactive),
        )
        org, mode = org_type_of(session), mode_of(session)  # type: ignore[arg-type]
        if {org, mode, f"{org}-{mode}"} & set(splits):
            kept.add(int(sid))
    return kept


_LAST_GRADE = "(SELECT metrics FROM grades g WHERE g.session_id = s.id ORDER BY g.id DESC LIMIT 1)"
_ENDING = (
    "kind = 'submit'"
    " OR (kind = 'system' AND ((payload ->> '$.event') IN ('taken_over', 'driver_error')"
    " OR instr(payload ->> '$.text', 'turn limit') > 0))"
    f" OR (kind = 'message' AND actor = 'user' AND trim(payload ->> '$.text') = '{STOP}')"
    " OR (kind = 'error' AND (payload ->> '$.source') = 'api')"
)
# each session's last ending event, found walking its events backwards on the primary key
_ENDING_EVENTS = f"""
    SELECT e.session_id, e.kind, e.actor, e.payload FROM (
        SELECT value AS sid, (
            SELECT seq FROM events WHERE session_id = value AND ({_ENDING})
            ORDER BY seq DESC LIMIT 1
        ) AS seq FROM json_each(?)
    ) last JOIN events e ON e.session_id = last.sid AND e.seq = last.seq
"""


def _event_end(kind: str, actor: str, payload: dict[str, Any]) -> str | None:
    """The end kind the session's last ending event says (None: a submit, its status says)."""
    if kind == "system" and payload.get("event") == "taken_over":
        return "taken-over"
    if kind == "system" and "turn limit" in str(payload.get("text", "")):
        return "max-turns"
    if kind == "system" and payload.get("event") == "driver_error":
        return "run-error"
    if kind == "message" and actor == "user":
        return "max-turns" if payload.get("turn_limit") else "user-stop"
    if kind == "error":
        return "api-error"
    return None


def session_ends(store: Store, within: set[int] | None = None) -> dict[int, str]:
    """Every session's end kind (storage/end_reason.end_kind of its `end_reason`), or only of
    the sessions `within`, read in two passes: the sessions with their latest grade's metrics,
    then, for those these leave undecided, each one's last ending event (usually its last)."""
    ends: dict[int, str] = {}
    undecided: dict[int, str] = {}
    only = "" if within is None else " WHERE s.id IN (SELECT value FROM json_each(?))"
    rows = store.read(
        "SELECT s.id, s.status, s.settings ->> '$.infrastructure_error',"
        " CASE json_type(s.settings, '$.end_reason') WHEN 'object'"
        " THEN s.settings ->> '$.end_reason.message' END,"
        f" {_LAST_GRADE} FROM sessions s{only}",
        () if within is None else (json.dumps(sorted(within)),),
    )
    for sid, status, infra, upstream, metrics_text in rows:
        metrics = json.loads(metrics_text) if metrics_text else {}
        if infra or metrics.get("infrastructure_error"):
            ends[sid] = "infrastructure"
        elif upstream:
            ends[sid] = end_kind(str(upstream))
        elif metrics.get("end_reason"):
            ends[sid] = end_kind(str(metrics["end_reason"]))
        else:
            undecided[sid] = {"submitted": "submit", "in_progress": "in-progress"}.get(
                status, str(status)
            )
    if undecided:
        undecided_json = json.dumps(sorted(undecided))
        for sid, kind, actor, payload in store.read(_ENDING_EVENTS, (undecided_json,)):
            if sid in undecided:
                said = _event_end(kind, actor, json.loads(payload) if payload else {})
                if said is not None:
                    undecided[sid] = said
        ends.update(undecided)
    return ends


def ended_sessions(
    store: Store, kinds: tuple[str, ...], within: set[int] | None = None
) -> set[int]:
    """The sessions (of `within`, else of all) that ended in one of `kinds`."""
    return {sid for sid, kind in session_ends(store, within).items() if kind in kinds}


@contextmanager
def only_sessions(store: Store, ids: frozenset[int]) -> Iterator[None]:
    """Inside the block, the store's connection reads only the sessions `ids` names: a
    temporary view named `sessions` (SQLite reads the temporary schema first) over the
    database's own, so every read of a report (`report --search`) sees those sessions alone,
    and their grades and labels through them. The connection must only read meanwhile."""
    store.read("CREATE TEMP TABLE search_only (id INTEGER PRIMARY KEY)")
    try:
        with store.transaction() as conn:
            conn.executemany("INSERT INTO temp.search_only VALUES (?)", ((i,) for i in ids))
        store.read(
            "CREATE TEMP VIEW sessions AS SELECT * FROM main.sessions"
            " WHERE id IN (SELECT id FROM temp.search_only)"
        )
        yield
    finally:
        store.read("DROP VIEW IF EXISTS temp.sessions")
        store.read("DROP TABLE IF EXISTS temp.search_only")
