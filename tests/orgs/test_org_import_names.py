"""`org import` of snapshots with odd names and after an interrupted import (issue 28): table and
column names holding `"` are quoted wherever DDL or SQL is built from them, and the temporary file
a killed import left is removed by the next import, which names it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from crmarena_tui.cli import main
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.snapshot_import import import_snapshot


def _snapshot(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute('CREATE TABLE "Case" (Id, Subject, OwnerId, "Odd""Name", "x"" ON y")')
    conn.execute(
        'INSERT INTO "Case" VALUES (?, ?, ?, ?, ?)',
        ("500000000000001", "Hinge", "005000000000001", "quoted", "7"),
    )
    conn.execute('CREATE TABLE "User" (Id, Name)')
    conn.execute('INSERT INTO "User" VALUES (?, ?)', ("005000000000001", "Ana"))
    conn.execute('CREATE TABLE "Weird""Table" (Id, Note)')
    conn.execute('INSERT INTO "Weird""Table" VALUES (?, ?)', ("a01000000000001", "hi"))
    conn.commit()
    conn.close()
    return path


def test_names_with_double_quotes_are_imported_and_queried(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path / "crmarena_data.db")
    report = import_snapshot(snap, tmp_path / "org.db")
    case = report.object("Case")
    assert case is not None and set(case.extra_columns) == {'Odd"Name', 'x" ON y'}
    with LocalOrg(tmp_path / "org.db") as org:
        result = org.query("SELECT Subject, Owner.Name FROM Case")
        assert result.error is None and result.records[0]["Owner"]["Name"] == "Ana"
        conn = sqlite3.connect(tmp_path / "org.db")
        assert conn.execute('SELECT "Odd""Name" FROM "Case"').fetchone() == ("quoted",)
        conn.close()


def test_a_killed_imports_temporary_file_is_removed_and_named_by_the_next(
    tmp_path: Path, capsys
) -> None:
    snap = _snapshot(tmp_path / "crmarena_data.db")
    out = tmp_path / "org.db"
    dead = 2**22 + 12345  # no such process
    while True:
        try:
            os.kill(dead, 0)
            dead += 1
        except ProcessLookupError:
            break
    stale = tmp_path / f".org.db.{dead}.tmp"
    stale.write_bytes(b"x" * 9000)
    live = tmp_path / f".org.db.{os.getppid()}.tmp"  # a running process's: not touched
    live.write_bytes(b"y")
    assert main(["org", "import", str(snap), "--out", str(out)]) == 0
    text = capsys.readouterr()
    assert not stale.exists() and live.exists() and out.exists()
    said = text.out + text.err
    assert f"removed .org.db.{dead}.tmp (9,000 bytes), left by an interrupted import" in said
