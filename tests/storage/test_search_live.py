"""Sessions written live (an agent's, a person's, an MCP client's) are indexed for search once,
when they end, not event by event (storage/search_index.py: `defer_session`, `index_session`),
and search still finds every event: of a session still running, of one whose process was
killed, and of one that ended."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store, search, search_index
from tests.storage.test_search_pending import _events, _indexed, _killed
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec


def _start(store: Store, idx: int = 1) -> Episode:
    who = store.participant("agent", "bot", model="m")
    return Episode.start(store, session_spec(who, make_task(idx), "local", "demo"), resume=False)


def _steps(episode: Episode, word: str) -> None:
    """An agent's steps that need no org: thoughts, an error naming an object."""
    episode.record("thought", {"text": f"look for the {word} first"})
    episode.record("error", {"error": f"INVALID_FIELD: No such column 'X' on entity '{word}'"})
    episode.record("thought", {"text": "then answer"})


def _index_size(path: Path) -> tuple[int, float]:
    """The index's stored segments: rows and bytes of FTS5's data table."""
    with closing(sqlite3.connect(path)) as conn:
        found = conn.execute("SELECT COUNT(*), TOTAL(length(block)) FROM event_search_data")
        rows, size = found.fetchone()
    return int(rows), float(size)


def test_an_agent_run_grows_the_index_once_per_session(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    sizes: list[tuple[int, float]] = []
    with Store(path) as store:
        for idx in (1, 2):
            episode = _start(store, idx)
            for _ in range(3):
                _steps(episode, "Case")
                sizes.append(_index_size(path))
            episode.end("max_turns")
            sizes.append(_index_size(path))
        assert search_index.pending(store) == 0
    growths = sum(1 for before, after in zip(sizes, sizes[1:], strict=False) if after != before)
    assert growths == 2  # (each session's end; writing its 9 steps left the index as it was)
    assert _indexed(path) == _events(path)


def test_a_running_session_is_found_and_indexed_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        episode = _start(store)
        _steps(episode, "Zebrafish")
        assert search_index.pending(store) == 1
        sid = episode.session_id
        assert search.run(store, "Zebrafish").hits == [(sid, 1), (sid, 2)]
        assert search.run(store, "object:zebrafish").hits == [(sid, 2)]
        episode.record("thought", {"text": "a zebrafish again"})  # (after the search indexed it)
        assert search.run(store, "zebrafish").hits == [(sid, 1), (sid, 2), (sid, 4)]
        episode.end("max_turns")
        assert search.run(store, "kind:submit").hits == [(sid, 5)]
    assert _indexed(path) == _events(path)  # every event once, none twice


def _steps_then_die(path: str) -> None:
    with Store(path) as store:
        _steps(_start(store, 2), "Zebrafish")
    os._exit(9)  # (the session never ends)


def test_a_killed_session_is_found_by_the_next_search(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        ended = _start(store)
        _steps(ended, "Account")
        ended.end("max_turns")
    _killed(_steps_then_die, path)
    with Store(path) as store:
        assert search_index.pending(store) == 1
        killed = store.read("SELECT MAX(id) FROM sessions")[0][0]
        assert search.run(store, "error:invalid_field object:zebrafish").hits == [(killed, 2)]
        assert search.run(store, "object:account").hits == [(ended.session_id, 2)]
        assert search_index.pending(store) == 0
    assert _indexed(path) == _events(path)
