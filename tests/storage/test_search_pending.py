"""The search index and the import (issue 30): an import leaves its sessions to the next search
to index (storage/search_index.py, `search_pending`), and no search misses a stored event: not
after an import, not after a kill during an import or during the indexing, not after the
migration; a broad search's counts and first page agree with its every match."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, search, search_index
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.bulk import BulkWriter
from crmarena_tui.storage.upstream import UpstreamImporter
from tests.storage.test_search import UPSTREAM, reference
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec

WORDS = ("Case", "kind:query", "kind:error", "OwnerId", "type:handle_time kind:submit", "reward:0")


def _indexed(path: Path) -> list[int]:
    """The keys of every row of the index (each event's facets hold its kind's marker)."""
    with closing(sqlite3.connect(path)) as conn:
        return [
            r[0]
            for r in conn.execute(
                "SELECT rowid FROM event_search WHERE event_search MATCH 'facets : \"<k:\"'"
                " ORDER BY rowid"
            )
        ]


def _events(path: Path) -> list[int]:
    with closing(sqlite3.connect(path)) as conn:
        return [
            r[0] for r in conn.execute("SELECT (session_id << 24) | seq FROM events ORDER BY 1")
        ]


def _exact(path: Path) -> None:
    """Every search finds what a LIKE finds, and the index holds every event once."""
    terms = {"Case": (["Case"], {}), "OwnerId": (["OwnerId"], {})}
    with Store(path) as store:
        for text in WORDS:
            found = set(search.run(store, text).hits)
            if text in terms:
                assert found == reference(path, terms[text][0])
        assert search_index.pending(store) == 0
    assert _indexed(path) == _events(path)


def _imported(path: Path) -> Path:
    with Store(path) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
    return path


def test_an_import_is_indexed_by_the_first_search(tmp_path: Path) -> None:
    path = _imported(tmp_path / "s.db")
    with Store(path) as store:
        waiting = search_index.pending(store)
        assert waiting > 0 and _indexed(path) == []  # the import did not index
        seen: list[tuple[int, int]] = []
        found = search.run(store, "Case", progress=lambda *n: seen.append(n))
        assert set(found.hits) == reference(path, ["Case"]) and found.hits
        assert seen and seen[-1] == (waiting, waiting)
        assert search_index.pending(store) == 0
    _exact(path)


def test_events_added_to_a_waiting_session_are_found(tmp_path: Path) -> None:
    path = _imported(tmp_path / "s.db")
    with Store(path) as store:
        sid = store.read("SELECT MIN(id) FROM sessions")[0][0]
        seq = store.append_event(sid, "human", "note", {"text": "a zebrafish appears"}).seq
        assert search.run(store, "zebrafish").hits == [(sid, seq)]
    _exact(path)


def _catch_up_then_die(path: str) -> None:
    with Store(path) as store:
        search_index.catch_up(store, progress=lambda *_: os._exit(9), chunk=1)


def _import_then_die(path: str) -> None:
    real = BulkWriter.flush

    def flush(self: BulkWriter) -> int:
        real(self)
        os._exit(9)  # the events written, the transaction not committed

    BulkWriter.flush = flush  # type: ignore[method-assign]
    with Store(path) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])


def _killed(target: object, path: Path) -> None:
    process = multiprocessing.get_context("fork").Process(target=target, args=(str(path),))
    process.start()
    process.join(60)
    assert process.exitcode == 9


def test_a_kill_while_indexing_loses_nothing(tmp_path: Path) -> None:
    path = _imported(tmp_path / "s.db")
    with Store(path) as store:
        waiting = search_index.pending(store)
    _killed(_catch_up_then_die, path)
    with Store(path) as store:
        assert 0 < search_index.pending(store) < waiting  # one chunk done, the rest waiting
    _exact(path)


def test_a_kill_during_an_import_leaves_nothing_half_indexed(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        who = store.participant("human", "bo")
        sid = store.create_session(session_spec(who, make_task(1), "local", "demo")).id
        store.append_event(sid, "human", "query", {"text": "SELECT Id FROM Case"})
        store.index_session(sid)  # (it ended: indexed)
    _killed(_import_then_die, path)
    with Store(path) as store:
        assert store.read("SELECT COUNT(*) FROM sessions")[0][0] == 1
        assert search_index.pending(store) == 0
        assert search.run(store, "Case").hits == [(sid, 1)]
        UpstreamImporter(store).import_paths([UPSTREAM])  # the import, again: all of it found
    _exact(path)


def test_a_database_indexed_whole_before_pending_existed_migrates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Schema 11 as first released: every event indexed by a trigger, no `search_pending`."""
    path = tmp_path / "v11.db"
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:11])
        old.setattr(schema_mod, "SCHEMA_VERSION", 11)
        with Store(path) as store, store.transaction() as conn:
            conn.execute("DROP TRIGGER events_searchable")
            conn.execute("DROP TABLE search_pending")
            body = search_index.CREATE_TRIGGER.split("BEGIN", 1)[1]
            conn.execute(f"CREATE TRIGGER events_searchable AFTER INSERT ON events BEGIN{body}")
        with Store(path) as store:
            who = store.participant("human", "ana")
            sid = store.create_session(session_spec(who, make_task(1), "local", "d")).id
            store.append_event(sid, "human", "query", {"text": "SELECT Id FROM Case"})
    assert len(_indexed(path)) == 1
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION
        UpstreamImporter(store).import_paths([UPSTREAM])
        assert search_index.pending(store) > 0
    _exact(path)


@pytest.mark.parametrize("text", WORDS)
def test_counts_and_the_first_page_agree_with_every_match(tmp_path: Path, text: str) -> None:
    path = _imported(tmp_path / "s.db")
    with Store(path) as store:
        found = search.run(store, text, page=7)
        hits = search.run(store, text).hits
        assert hits and found.first == hits[:7]
        assert (found.steps, found.session_count) == (len(hits), len({s for s, _ in hits}))
        assert found.sessions == sorted({s for s, _ in hits})
        some = found.sessions[0]
        assert found.seqs_of(some) == [seq for s, seq in hits if s == some]


def test_the_command_says_it_indexes_an_import_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _imported(tmp_path / "s.db")
    assert main(["search", "Case", "--db", str(path)]) == 0
    first = capsys.readouterr()
    assert "indexing" in first.err and " session(s) for search (once)" in first.err
    assert main(["search", "Case", "--db", str(path)]) == 0
    again = capsys.readouterr()
    counts = [out.splitlines()[0].split(" (")[0] for out in (first.out, again.out)]
    assert again.err == "" and counts[0] == counts[1] and "step(s) in" in counts[0]


def test_a_busy_database_while_indexing_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _imported(tmp_path / "s.db")

    def locked(*_: object, **__: object) -> int:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(search_index, "catch_up", locked)
    assert main(["search", "Case", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: the sessions database is busy") and err.count("\n") == 1
