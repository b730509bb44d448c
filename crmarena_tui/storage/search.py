"""Search across trajectories: the events whose text and fields match a search
(storage/search_query.py), read from the full-text index (storage/search_index.py) and the
sessions' own columns; snippets of the matching text; searches saved by name.

A word or phrase is matched in the index's `body`, an event filter (`kind:`, `actor:`, `error:`,
`object:`) on its `facets`; session facts keep some sessions only: `type:` the task type,
`reward:` the session's latest grade (`reward:none`, ungraded), `participant:` as `report
--participant` names one (storage/participant_names.names_configuration: the configuration, the stored
name, or a leading part of the configuration ending at a `/`, the model's date optional), and
`ended:`, `label:`, `source:`, `split:` (storage/search_sessions.py, with the sessions of chains
of steps, `then`, and of negations). The steps a search matches are those of its positive steps
in the sessions it finds; a search of facts and negations alone matches every event of them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage import convert, search_facts, search_index, search_sessions
from crmarena_tui.storage.convert import loads
from crmarena_tui.storage.participant_names import UnknownParticipant
from crmarena_tui.storage.search_facts import configurations as configurations
from crmarena_tui.storage.search_facts import fact_sessions
from crmarena_tui.storage.search_index import KEY_SHIFT, SEQ_MASK, TEXT_KEYS, UNSEARCHED
from crmarena_tui.storage.search_query import (
    SearchQuery,
    SearchSyntaxError,
    parse,
)
from crmarena_tui.storage.search_sessions import match_expression, step_rows

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store


class NoSavedSearch(SearchSyntaxError):
    """`@NAME` names no saved search (a search not found, where the others are not written
    right)."""


REFUSED = (SearchSyntaxError, UnknownParticipant)  # a search that is not run, and why


@dataclass(frozen=True)
class _Plan:
    """Where a search's matching events are read: `source` (FROM ... WHERE ..., with `params`)
    yields them, `sid` and `seq` name their session and number, `order` sorts them in session
    and log order; `keyed`: they are the index's rows, keyed by session and seq."""

    source: str
    params: tuple[Any, ...]
    sid: str
    seq: str
    order: str
    keyed: bool

    def one(self, session_id: int) -> tuple[str, tuple[int, ...]]:
        """The condition that keeps one session's events, and its parameters."""
        if self.keyed:  # (a range of the index's keys, which FTS5 seeks to)
            return "rowid BETWEEN ? AND ?", (
                session_id << KEY_SHIFT,
                session_id << KEY_SHIFT | SEQ_MASK,
            )
        return f"{self.sid} = ?", (session_id,)


@dataclass
class SearchResult:
    """The events a search matches, read when asked, each read one query whose time adds to
    `elapsed_ms`: how many (`steps`, `session_count`) and the first of them (`first`), what the
    command prints; the matching sessions (`sessions`), what the sessions list keeps; every
    match (`hits`), what labelling needs; one session's (`seqs_of`), what the viewer marks. A
    broad search matches a million steps: only `hits` brings them all into Python."""

    query: SearchQuery
    store: Store = field(repr=False)
    plan: _Plan = field(repr=False)
    page: int | None = 20  # how many of the first matches `first` holds (None: all)
    elapsed_ms: float = 0.0
    found: set[int] | None = field(default=None, repr=False)  # a session-level search's sessions

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        started = time.perf_counter()
        rows = self.store.read(sql, self.plan.params + params)
        self.elapsed_ms += (time.perf_counter() - started) * 1000.0
        return rows

    @cached_property
    def _counts(self) -> tuple[int, int]:
        plan = self.plan
        [(steps, sessions)] = self._read(
            f"SELECT count(*), count(DISTINCT {plan.sid}) {plan.source}"
        )
        return int(steps), int(sessions)

    @property
    def steps(self) -> int:
        """How many events match."""
        return self._counts[0]

    @property
    def session_count(self) -> int:
        """How many sessions hold a match."""
        return self._counts[1]

    @cached_property
    def first(self) -> list[tuple[int, int]]:
        """The first `page` matches (session id, seq), in session and log order."""
        if self.page is None:
            return self.hits
        plan = self.plan
        sql = f"SELECT {plan.sid}, {plan.seq} {plan.source} ORDER BY {plan.order} LIMIT ?"
        return [(int(a), int(b)) for a, b in self._read(sql, (self.page,))]

    @cached_property
    def sessions(self) -> list[int]:
        """The matching sessions, in id order (a session-level search's: those it found)."""
        if self.found is not None and not self.query.simple:
            return sorted(self.found)
        plan = self.plan
        return sorted(r[0] for r in self._read(f"SELECT DISTINCT {plan.sid} {plan.source}"))

    @cached_property
    def hits(self) -> list[tuple[int, int]]:
        """Every match (session id, seq), in session and log order."""
        plan = self.plan
        sql = f"SELECT {plan.sid}, {plan.seq} {plan.source} ORDER BY {plan.order}"
        return [(int(a), int(b)) for a, b in self._read(sql)]

    def seqs_of(self, session_id: int) -> list[int]:
        """The numbers of one session's matching events, in log order (one indexed read)."""
        plan = self.plan
        condition, params = plan.one(session_id)
        sql = f"SELECT {plan.seq} {plan.source} AND {condition} ORDER BY {plan.order}"
        return [int(r[0]) for r in self._read(sql, params)]


LATE_FACTS = ("ended",)  # read for every session they test: tested on what the rest keeps


def session_filter(store: Store, query: SearchQuery) -> set[int] | None:
    """The sessions the query's session facts keep but `LATE_FACTS` (None: it has none, and no
    negation)."""
    kept = _kept_by_facts(store, query)
    if _negates(query) and kept is None:
        kept = _every_session(store)
    return _without_excluded(store, query, kept)


def _kept_by_facts(store: Store, query: SearchQuery) -> set[int] | None:
    """The sessions the query's positive facts but `LATE_FACTS` keep (None: it has none)."""
    kept: set[int] | None = None
    for key, values in query.facts:
        if key not in LATE_FACTS:
            found = fact_sessions(store, key, values)
            kept = found if kept is None else kept & found
    return kept


def _negates(query: SearchQuery) -> bool:
    return bool(query.excluded) or any(c.negated for c in query.chains)


def _every_session(store: Store) -> set[int]:
    return {int(r[0]) for r in store.read("SELECT id FROM sessions")}


def _without_excluded(store: Store, query: SearchQuery, kept: set[int] | None) -> set[int] | None:
    """`kept` without the sessions the query's excluded facts but `LATE_FACTS` name."""
    for key, values in query.excluded:
        if key not in LATE_FACTS:
            assert kept is not None
            kept -= fact_sessions(store, key, values)
    return kept


def _late_facts(store: Store, query: SearchQuery, kept: set[int] | None) -> set[int] | None:
    """`kept` narrowed by the query's `LATE_FACTS`, each tested on `kept` alone (an end is
    classified for the sessions the rest of the search found, not for every session)."""
    for key, values in query.facts:
        if key in LATE_FACTS:
            kept = search_sessions.ended_sessions(store, values, kept)
    excluded = [values for key, values in query.excluded if key in LATE_FACTS]
    for values in excluded:
        if kept is None:
            kept = _every_session(store)
        kept -= search_sessions.ended_sessions(store, values, kept)
    return kept


def found_sessions(store: Store, query: SearchQuery) -> set[int] | None:
    """The sessions the whole query finds: its facts, each chain found (a negated one not);
    None: every session (a simple search's own steps say which). The positive facts and chains
    narrow first, each looking only in what the ones before kept; every session is read only
    when nothing positive narrows (`not A` alone); then the negations cut."""
    search_sessions.prepare(store)
    if query.simple and not any(key in LATE_FACTS for key, _ in query.facts):
        return session_filter(store, query)
    kept = _kept_by_facts(store, query)
    for chain in query.positive:
        within = json.dumps(sorted(kept)) if kept is not None else None
        found = search_sessions.chain_sessions(store, chain, within)
        kept = found if kept is None else kept & found
    every = _negates(query) and kept is None  # (a negated chain then looks everywhere)
    if every:
        kept = _every_session(store)
    kept = _without_excluded(store, query, kept)
    for chain in query.chains:
        if chain.negated and kept:
            within = None if every else json.dumps(sorted(kept))
            kept -= search_sessions.chain_sessions(store, chain, within)
    return _late_facts(store, query, kept)


def _plan(query: SearchQuery, kept: set[int] | None) -> _Plan:
    """Where the matching steps are read: those of the query's positive steps (each in the
    sessions found), else every step of the sessions found."""
    kept_json = (json.dumps(sorted(kept)),) if kept is not None else ()
    steps = [step for chain in query.positive for step in chain.steps]
    by_columns = kept is not None and any(map(search_sessions.column_step, steps))
    if steps and not by_columns and not any(step.scanned for step in steps):
        sid = f"(rowid >> {KEY_SHIFT})"
        expressions = [match_expression(step) for step in steps]
        expression = " OR ".join(f"({e})" for e in dict.fromkeys(expressions))
        if len(expressions) == 1:
            expression = str(expressions[0])
        return _Plan(
            "FROM event_search WHERE event_search MATCH ?"
            + (f" AND {sid} IN (SELECT value FROM json_each(?))" if kept is not None else ""),
            (expression, *kept_json),
            sid=sid,
            seq=f"(rowid & {SEQ_MASK})",
            order="rowid",
            keyed=True,
        )
    if steps:
        parts, params = [], ()
        for step in dict.fromkeys(steps):
            sql, more = step_rows(step, kept_json[0] if kept_json else None)
            parts.append(sql)
            params += more
        return _Plan(
            f"FROM ({' UNION '.join(parts)}) WHERE 1", params, "sid", "seq", "sid, seq", False
        )
    assert kept is not None
    return _Plan(
        "FROM events WHERE session_id IN (SELECT value FROM json_each(?))",
        kept_json,
        sid="session_id",
        seq="seq",
        order="session_id, seq",
        keyed=False,
    )


def run(
    store: Store,
    query: SearchQuery | str,
    progress: Callable[[int, int], None] | None = None,
    page: int | None = 20,
) -> SearchResult:
    """The events the query matches (SearchResult: read when asked), the first `page` of them
    (None: all) in `first`. A saved search (`@NAME`) is looked up first. Sessions whose events
    are not indexed yet (an import's) are indexed first, `progress` told (sessions done, sessions
    to do) as they are (search_index.catch_up)."""
    started = time.perf_counter()
    if isinstance(query, str):
        query = parse(query)
    if query.saved is not None:
        query = parse(saved_query(store, query.saved))
    if query.empty:
        raise SearchSyntaxError("an empty search: give words, phrases or filters (kind:error)")
    excluded = [values for key, values in query.excluded if key == "participant"]
    named = [v for values in [*query.of("participant"), *excluded] for v in values]
    if named and search_index.pending(store):  # a typo told before the indexing, not after
        search_facts.check_participants(store, named)
    if search_index.catch_up(store, progress):
        started = time.perf_counter()  # (the search's own time, not the indexing's)
    kept = found_sessions(store, query)
    plan = _plan(query, kept)
    elapsed = (time.perf_counter() - started) * 1000.0
    return SearchResult(query, store, plan, page, elapsed, found=kept)


def session_ids(
    store: Store, text: str, progress: Callable[[int, int], None] | None = None
) -> frozenset[int]:
    """The sessions a search finds (`export --search`, `report --search`)."""
    return frozenset(run(store, text, progress).sessions)


def indexing_note(done: int, total: int) -> str:
    """The progress line of a search that first indexes the sessions left pending (imported, or
    written live and not ended)."""
    return f"indexing {total:,} session(s) for search (once): {done:,} done…"


def event_text(payload: dict[str, Any]) -> str:
    """What the index holds of an event's payload (search_index.body_sql, in Python)."""
    if payload.get("event") in UNSEARCHED:
        return ""
    parts = [payload.get(k) for k in TEXT_KEYS]
    return "\n".join(p if isinstance(p, str) else "" for p in parts).strip("\n")


def snippet(text: str, terms: Iterable[str], width: int = 100) -> str:
    """One line of `text` around the first of `terms` it holds (else its start)."""
    flat = " ".join(text.split())
    folded = flat.casefold()
    found = [(folded.find(t.casefold()), t) for t in terms]
    found = [(i, t) for i, t in found if i >= 0]
    start = 0
    if found:
        at = min(found)[0]
        start = max(0, at - width // 3)
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def describe(store: Store, result: SearchResult) -> list[dict[str, Any]]:
    """The result's first hits as rows: session, seq, kind, actor, task type, snippet."""
    rows = []
    for sid, seq in result.first:
        found = store.read(
            "SELECT e.kind, e.actor, e.payload, s.task_type FROM events e JOIN sessions s"
            " ON s.id = e.session_id WHERE e.session_id = ? AND e.seq = ?",
            (sid, seq),
        )
        if not found:
            continue
        kind, actor, payload, task_type = found[0]
        fields = loads(payload) or {}
        text = event_text(fields) or str(fields.get("text") or "")  # (a prompt: `kind:prompt`)
        rows.append(
            {
                "session": sid,
                "seq": seq,
                "kind": kind,
                "actor": actor,
                "task_type": task_type,
                "snippet": snippet(text, result.query.terms),
            }
        )
    return rows


# -- saved searches -------------------------------------------------------------------------


def check_name(name: str) -> str:
    name = name.strip().lstrip("@")
    if not name or any(ch.isspace() for ch in name):
        raise SearchSyntaxError("a saved search's name is one word (e.g. invalid-field-on-case)")
    return name


def save(store: Store, name: str, text: str) -> None:
    """Save (or replace) the search `text` under `name`."""
    query = parse(text)
    if query.saved is not None:
        raise SearchSyntaxError("save the search itself, not a reference to a saved one")
    now = convert.iso(store.clock())
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO saved_searches (name, query, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET query = excluded.query,"
            " created_at = excluded.created_at",
            (check_name(name), query.text, now),
        )


def saved(store: Store) -> list[tuple[str, str, str]]:
    """(name, query, saved at) of every saved search, by name."""
    return [
        (str(n), str(q), str(t))
        for n, q, t in store.read(
            "SELECT name, query, created_at FROM saved_searches ORDER BY name"
        )
    ]


def saved_query(store: Store, name: str) -> str:
    found = store.read("SELECT query FROM saved_searches WHERE name = ?", (name,))
    if not found:
        names = [n for n, _, _ in saved(store)]
        listed = f" (saved: {', '.join(names)})" if names else " (none are saved)"
        raise NoSavedSearch(f"no saved search named {name!r}{listed}")
    return str(found[0][0])
