"""`import` and `sessions merge` index what they write for search before they end (issue 40): no
session is left pending in the index, and the first search after them indexes nothing. `import`
indexes each batch of sessions as it writes them, in the same transaction."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, search_index
from tests.storage.test_search import UPSTREAM
from tests.storage.test_search_pending import _events, _imported, _indexed


def _first_search_catches_up_nothing(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "Case", "--db", str(db)]) == 0
    found = capsys.readouterr()
    assert found.err == "" and "step(s) in" in found.out  # no "indexing … once" line


def test_an_import_is_searchable_when_it_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    assert main(["import", str(UPSTREAM), "--db", str(db)]) == 0
    imported = capsys.readouterr()
    with Store(db) as store:
        sessions = store.read("SELECT COUNT(*) FROM sessions")[0][0]
        assert sessions > 0 and search_index.pending(store) == 0
    assert "indexing" not in imported.err  # (indexed as written: no pass of its own)
    assert _indexed(db) == _events(db)  # every event in the index, once
    _first_search_catches_up_nothing(db, capsys)
    assert main(["import", str(UPSTREAM), "--db", str(db)]) == 0  # again: nothing to index
    assert "indexing" not in capsys.readouterr().err


def test_a_merge_leaves_nothing_for_the_first_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _imported(tmp_path / "out.db")  # an import left to the first search, as before
    other = _imported(tmp_path / "laptop.db")
    with Store(out) as store:
        assert search_index.pending(store) > 0
    assert main(["sessions", "merge", str(other), "--out", str(out)]) == 0
    capsys.readouterr()
    with Store(out) as store:
        assert search_index.pending(store) == 0
    assert _indexed(out) == _events(out)
    _first_search_catches_up_nothing(out, capsys)
