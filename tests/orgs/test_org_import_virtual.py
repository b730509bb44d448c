"""A snapshot holding a full-text index (an FTS5 virtual table and its shadow tables) imports:
the index is left out and named in the report, not a failure to read the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from crmarena_tui.orgs.snapshot_import import import_snapshot
from tests.support.snapshot_support import snapshot_of_demo


def test_a_snapshot_with_an_fts5_index_imports_and_names_it(tmp_path: Path) -> None:
    snap = snapshot_of_demo(tmp_path, "b2b")
    conn = sqlite3.connect(snap)
    conn.execute("CREATE VIRTUAL TABLE notes_fts USING fts5(body)")
    conn.execute("INSERT INTO notes_fts VALUES ('a note')")
    conn.commit()
    conn.close()
    report = import_snapshot(snap, tmp_path / "org.db")
    skipped = " ".join(report.skipped_tables)
    assert "notes_fts (FTS5 virtual table" in skipped
    assert "notes_fts_data (the storage of the virtual table notes_fts)" in skipped
    assert (tmp_path / "org.db").exists() and not report.missing_objects
