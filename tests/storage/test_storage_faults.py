"""A full disk or a read-only file is reported as what it is, naming the file written: not a
crash, not a busy database, not the snapshot being read."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui import cli
from crmarena_tui.orgs import snapshot_import
from crmarena_tui.orgs.snapshot_import import SnapshotError, import_snapshot
from tests.support.snapshot_support import snapshot_of_demo

FULL = sqlite3.OperationalError("database or disk is full")


def test_a_full_disk_met_by_a_command_names_the_sessions_database(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    line = cli.storage_line(FULL, ["import", "--db", str(db), "x.json"])
    assert line is not None and f"cannot write {db}: the disk is full" in line
    line = cli.storage_line(OSError(errno.ENOSPC, "No space left", str(tmp_path / "o.jsonl")), [])
    assert line is not None and "o.jsonl: the disk is full" in line
    ro = sqlite3.OperationalError("attempt to write a readonly database")
    assert "read-only" in str(cli.storage_line(ro, ["search", "--db", str(db), "x"]))
    assert cli.storage_line(sqlite3.OperationalError("no such table: x"), []) is None  # a bug


def test_a_command_meeting_a_full_disk_prints_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(_args: object) -> int:
        raise FULL

    monkeypatch.setattr("crmarena_tui.commands.report.run", full)
    db = tmp_path / "s.db"
    assert cli.main(["report", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write {db}: the disk is full" in err


def test_org_import_on_a_full_disk_blames_the_output_not_the_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = snapshot_of_demo(tmp_path, "b2b")

    def full(*_args: object, **_kw: object) -> None:
        raise FULL

    monkeypatch.setattr(snapshot_import, "_write", full)
    with pytest.raises(SnapshotError) as caught:
        import_snapshot(snap, tmp_path / "org.db")
    text = str(caught.value)
    assert f"cannot write {tmp_path / 'org.db'}: the disk is full" in text
    assert "cannot be read" not in text


def test_a_run_meeting_a_full_disk_stops_at_once_instead_of_failing_every_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmarena_tui.storage.store import Store
    from tests.session.test_runner import TASKS, runner

    calls = [0]
    real = Store.append_event

    def full_after_a_while(self: Store, *args: object, **kw: object) -> object:
        calls[0] += 1
        if calls[0] > 3:
            raise FULL
        return real(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "append_event", full_after_a_while)
    with pytest.raises(sqlite3.OperationalError, match="full"):
        runner(tmp_path / "s.db", TASKS * 5, concurrency=1).run()
    assert calls[0] <= 6  # stopped at the first full write, not once per task


def test_export_meeting_a_full_disk_names_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmarena_tui.storage import Store

    db = tmp_path / "s.db"
    with Store(db) as store:
        store.participant("human", "ana")

    def full(*_args: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")  # (a write says no file)

    monkeypatch.setattr("crmarena_tui.storage.exporter._jsonl", full)
    out = tmp_path / "x.jsonl"
    assert cli.main(["export", "--db", str(db), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write {out}: the disk is full" in err
    assert sorted(p.name for p in tmp_path.iterdir() if "x.jsonl" in p.name) == []


def test_a_read_only_database_is_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from crmarena_tui.storage import Store, connection

    db = tmp_path / "s.db"
    with Store(db) as store:
        store.participant("human", "ana")
    real = os.access

    def read_only(path: object, mode: int, **kw: object) -> bool:  # as on a read-only mount
        named = Path(str(path))
        if mode & os.W_OK and named in (db, tmp_path):
            return False
        return real(path, mode, **kw)  # type: ignore[arg-type]

    def refuse(*_args: object) -> None:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(os, "access", read_only)
    monkeypatch.setattr(connection, "_prepare", refuse)
    assert cli.main(["report", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{db} cannot be written: it or its folder is read-only" in err


def test_a_database_on_a_read_only_mount_is_read_and_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmarena_tui.storage import Store, connection

    db = tmp_path / "s.db"
    with Store(db) as store:
        store.participant("human", "ana")
    before = db.read_bytes()
    monkeypatch.setattr(connection, "on_read_only_mount", lambda path: path == db)
    assert cli.main(["report", "--db", str(db)]) == 0  # read as it is
    capsys.readouterr()
    upstream = Path(__file__).parents[1] / "data" / "upstream" / "b2b"
    assert cli.main(["import", "--db", str(db), str(upstream)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write {db}: the database is read-only" in err
    assert db.read_bytes() == before
    assert not (tmp_path / "s.db-shm").exists() and not (tmp_path / "s.db-wal").exists()
