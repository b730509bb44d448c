"""Every `--out` refuses to destroy: its own input, a sessions database, another SQLite file
(unless the command writes org files and --force says so), an existing file without --force;
one line, exit code 2, the file untouched."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def sessions_db(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.participant("human", "ana")
    return path


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], *files: Path) -> str:
    before = [digest(f) for f in files]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert [digest(f) for f in files] == before
    return err


def test_export_never_replaces_its_own_database(
    sessions_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for extra in ([], ["--force"]):
        argv = ["export", "--db", str(sessions_db), "--out", str(sessions_db), "--format", "jsonl"]
        err = refused([*argv, *extra], capsys, sessions_db)
        assert "is also the command's input" in err and str(sessions_db) in err


def test_exports_never_replace_a_sessions_database_even_with_force(
    sessions_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.db"
    with Store(other):
        pass
    for argv in (
        ["export", "--db", str(sessions_db), "--format", "jsonl", "--out", str(other)],
        ["study", "export", "x", "--db", str(sessions_db), "--out", str(other)],
        ["tasks", "export", "--tasks", "demo:small", "--out", str(other)],
        ["org", "build", "--scale", "0.01", "--out", str(other), "--quiet"],
    ):
        err = refused([*argv, "--force"], capsys, other)
        assert "is a sessions database" in err, argv


def test_study_export_refuses_its_own_database(
    sessions_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(
        ["study", "export", "x", "--db", str(sessions_db), "--out", str(sessions_db)],
        capsys,
        sessions_db,
    )
    assert "is also the command's input" in err


def test_an_existing_file_needs_force(
    sessions_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "old.jsonl"
    out.write_text("keep me\n")
    err = refused(["export", "--db", str(sessions_db), "--out", str(out)], capsys, out)
    assert "already exists: pass --force" in err
    assert main(["export", "--db", str(sessions_db), "--out", str(out), "--force"]) == 0
    assert out.read_text() == ""  # replaced: the database holds no session

    tasks = tmp_path / "t.json"
    tasks.write_text("[]")
    refused(["tasks", "export", "--tasks", "demo:small", "--out", str(tasks)], capsys, tasks)
    assert main(["tasks", "export", "--tasks", "demo:small", "--out", str(tasks), "--force"]) == 0
    assert tasks.read_text() != "[]"


def test_an_export_never_replaces_any_sqlite_file(
    sessions_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    org = tmp_path / "org.db"
    conn = sqlite3.connect(org)
    conn.execute("CREATE TABLE Account (Id TEXT)")
    conn.commit()
    conn.close()
    err = refused(
        ["export", "--db", str(sessions_db), "--out", str(org), "--format", "csv", "--force"],
        capsys,
        org,
    )
    assert "is an SQLite database" in err


def test_org_build_replaces_an_org_file_only_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    org = tmp_path / "org.db"
    conn = sqlite3.connect(org)
    conn.execute("CREATE TABLE Account (Id TEXT)")
    conn.commit()
    conn.close()
    refused(["org", "build", "--scale", "0.01", "--out", str(org), "--quiet"], capsys, org)
    argv = ["org", "build", "--scale", "0.01", "--out", str(org), "--quiet", "--force"]
    assert main(argv) == 0
    assert "Wrote b2b demo org" in capsys.readouterr().out


def test_org_import_never_replaces_a_sessions_database(
    sessions_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = tmp_path / "snap_b2b.db"
    sqlite3.connect(snap).close()
    err = refused(
        ["org", "import", str(snap), "--out", str(sessions_db), "--force"], capsys, sessions_db
    )
    assert "is a sessions database" in err


def test_an_output_never_replaces_a_device_or_a_pipe(
    sessions_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os
    import stat

    pipe = tmp_path / "pipe"  # (a pipe, not /dev/null: a regression must not replace a device)
    os.mkfifo(pipe)
    (tmp_path / "link").symlink_to(pipe)
    for out in (pipe, tmp_path / "link"):
        for argv in (
            ["export", "--db", str(sessions_db), "--out", str(out), "--format", "jsonl"],
            ["tasks", "export", "--tasks", "demo:small", "--out", str(out)],
        ):
            assert main([*argv, "--force"]) == 2, argv
            err = capsys.readouterr().err
            assert "is not a plain file" in err and len(err.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode) and (tmp_path / "link").is_symlink()
