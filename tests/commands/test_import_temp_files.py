"""`import` and `sessions merge` write no temporary file (`SessionDb.in_bulk`): the undo records
SQLite keeps for each statement of a bulk transaction stay in memory. Before, the first session
a batch inserted (its row, its indexes, its trigger: more than the 64 KiB kept in memory) moved
them to a file in the temporary folder, written a page at a time by every later statement.

Seen as the files the process holds open while a batch's events are written: SQLite names its
temporary files `etilqs_*` and unlinks them as it opens them (Linux's /proc shows them)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, bulk, merge
from tests.interchange.test_atif_import import _task, _write, foreign_trajectory
from tests.storage.test_search import UPSTREAM
from tests.storage.test_search_pending import _imported

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")


def _temporary_files() -> set[str]:
    held = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # (the listing's own descriptor, closed by now)
            continue
        if "etilqs_" in target:
            held.add(target)
    return held


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[set[str]]]:
    """The temporary files held open right after each batch's events are written, a set per
    batch."""
    found: list[set[str]] = []
    write_events = bulk.BulkWriter._write_events

    def watched(self: bulk.BulkWriter) -> None:
        write_events(self)
        found.append(_temporary_files())

    monkeypatch.setattr(bulk.BulkWriter, "_write_events", watched)
    yield found


def test_an_upstream_import_writes_no_temporary_file(tmp_path: Path, seen: list[set[str]]) -> None:
    db = tmp_path / "s.db"
    assert main(["import", str(UPSTREAM), "--db", str(db)]) == 0
    with Store(db) as store:
        assert store.read("SELECT COUNT(*) FROM sessions")[0][0] > 0
    assert seen and not any(seen)  # (watched at each batch: none held)


def test_an_atif_import_writes_no_temporary_file(tmp_path: Path, seen: list[set[str]]) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for n in range(3):
        trajectory = foreign_trajectory(_task())
        trajectory.session_id = f"run-{n}"
        _write(folder / f"run-{n}.json", trajectory)
    db = tmp_path / "s.db"
    assert main(["import", str(folder), "--db", str(db), "--task-source", "demo:small"]) == 0
    with Store(db) as store:
        assert store.read("SELECT COUNT(*) FROM sessions")[0][0] == 3
    assert seen and not any(seen)  # (watched at each batch: none held)


def test_a_merge_writes_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = _imported(tmp_path / "out.db")
    other = _imported(tmp_path / "laptop.db")
    found: list[set[str]] = []
    copy_all = merge._merge

    def watched(*args: object, **kwargs: object) -> None:
        copy_all(*args, **kwargs)  # type: ignore[arg-type]
        found.append(_temporary_files())  # (before the merge's transaction commits)

    monkeypatch.setattr(merge, "_merge", watched)
    assert main(["sessions", "merge", str(other), "--out", str(out)]) == 0
    assert found == [set()]


def test_the_settings_are_as_they_were_after_a_bulk_write(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cache = store.read("PRAGMA cache_size")[0][0]
        with store.in_bulk():
            assert store.read("PRAGMA temp_store")[0][0] == 2  # (memory)
            assert store.read("PRAGMA cache_size")[0][0] == -16 * 1024  # (KiB: 16 MB)
        assert store.read("PRAGMA temp_store")[0][0] == 0
        assert store.read("PRAGMA cache_size")[0][0] == cache
        with pytest.raises(sqlite3.OperationalError), store.in_bulk():
            store.read("SELECT * FROM no_such_table")
        assert store.read("PRAGMA temp_store")[0][0] == 0
        store.read("CREATE TEMP TABLE kept (n INTEGER)")  # (temporary tables work as before)
        assert store.read("SELECT COUNT(*) FROM kept") == [(0,)]
