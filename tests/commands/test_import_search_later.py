"""`import --search-index later`: the imported sessions are written and left to the first search
to index (recorded in `search_pending`, no row of theirs in `event_search`), and that search
indexes them first, with its progress line on stderr, and finds what they hold; by default
(`now`) nothing is left pending. For ATIF and Inspect trajectories and for upstream result
files alike."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, search_index
from tests.storage.test_search import UPSTREAM, reference
from tests.storage.test_search_pending import _events, _indexed
from tests.support.interchange_support import played_sessions


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The reference agent's sessions on demo tasks, exported as ATIF files and an Inspect log."""
    root = tmp_path_factory.mktemp("played")
    db = root / "s.db"
    played_sessions(db)
    out = {fmt: root / fmt for fmt in ("atif", "inspect")}
    for fmt, folder in out.items():
        assert main(["export", "--db", str(db), "--format", fmt, "--out", str(folder)]) == 0
    return out


def _import(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(["import", *args]) == 0
    return capsys.readouterr().err


def _sessions(db: Path) -> list[int]:
    with Store(db) as store:
        return [int(r[0]) for r in store.read("SELECT id FROM sessions ORDER BY id")]


def _left_pending(db: Path, sessions: list[int]) -> None:
    """Every session of `sessions` pending, the index holding no event of theirs."""
    with Store(db) as store:
        assert search_index.pending(store) == len(sessions)
        with store.transaction() as conn:
            assert all(search_index.pending_range(conn, s) for s in sessions)
    assert _indexed(db) == [] and _events(db)


def _observed_word(db: Path) -> str:
    """A word of 8 letters or more from an imported observation (the text a search indexes)."""
    with Store(db) as store:
        rows = store.read(
            "SELECT payload ->> '$.observation' FROM events"
            " WHERE json_type(payload, '$.observation') = 'text' ORDER BY session_id, seq"
        )
    words = [w for (text,) in rows for w in re.findall(r"[A-Za-z]{8,}", text)]
    assert words
    return words[0]


def _search(capsys: pytest.CaptureFixture[str], db: Path, word: str) -> tuple[dict, str]:
    capsys.readouterr()
    assert main(["search", word, "--db", str(db), "--format", "json", "--limit", "0"]) == 0
    found = capsys.readouterr()
    return json.loads(found.out), found.err


@pytest.mark.parametrize("fmt", ["atif", "inspect"])
def test_trajectories_imported_later_are_indexed_by_the_first_search(
    fmt: str, exported: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    args = (str(exported[fmt]), "--db", str(db), "--task-source", "demo:small")
    err = _import(capsys, *args, "--search-index", "later")
    sessions = _sessions(db)
    assert len(sessions) == 4
    _left_pending(db, sessions)
    assert "note: 4 session(s) left to the first search to index" in err
    assert "indexing" not in err
    word = _observed_word(db)
    found, err = _search(capsys, db, word)
    assert "indexing 4 session(s) for search (once)" in err
    assert found["steps"] > 0 and {m["session"] for m in found["matches"]} <= set(sessions)
    with Store(db) as store:
        assert search_index.pending(store) == 0
    assert _indexed(db) == _events(db)
    assert _search(capsys, db, word)[1] == ""  # (nothing left to index)


def test_trajectories_imported_now_leave_nothing_pending(
    exported: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    err = _import(capsys, str(exported["atif"]), "--db", str(db), "--task-source", "demo:small")
    assert len(_sessions(db)) == 4 and "note:" not in err and "indexing" not in err
    with Store(db) as store:
        assert search_index.pending(store) == 0
    assert _indexed(db) == _events(db)
    found, err = _search(capsys, db, _observed_word(db))
    assert err == "" and found["steps"] > 0


def test_result_files_imported_later_are_indexed_by_the_first_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    err = _import(capsys, str(UPSTREAM), "--db", str(db), "--search-index", "later")
    sessions = _sessions(db)
    assert sessions
    _left_pending(db, sessions)
    assert f"note: {len(sessions):,} session(s) left to the first search" in err
    found, err = _search(capsys, db, "Case")
    assert f"indexing {len(sessions):,} session(s) for search (once)" in err
    assert {(m["session"], m["seq"]) for m in found["matches"]} == reference(db, ["Case"])
    with Store(db) as store:
        assert search_index.pending(store) == 0
    assert _indexed(db) == _events(db)


def test_a_bad_choice_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["import", str(UPSTREAM), "--db", str(tmp_path / "s.db"), "--search-index", "soon"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'soon'" in err and "Traceback" not in err
    assert not (tmp_path / "s.db").exists()
