"""Orgs and sessions databases in folders whose names hold `#` or `?` are read as they are.

Every read-only open goes through `settings/sqlite_readonly.open_readonly`, which quotes the path
in its `file:` URI: unquoted, `#` or `?` ends the path there, so SQLite opened (and created) a
stray file at the name's start, and the org looked empty.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.generator import ensure_demo_org, org_meta
from crmarena_tui.demo.taskgen.common import OrgReader
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.settings.sqlite_readonly import open_readonly, readonly_uri
from crmarena_tui.storage.session_queries import session_queries
from crmarena_tui.storage.store import Store
from tests.support.snapshot_dump_support import dump_snapshot

ODD_NAMES = ["a#b", "a?b", "a#b?c%20d"]


def _files(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def demo_org() -> Path:
    return ensure_demo_org("b2b")


@pytest.mark.parametrize("name", ODD_NAMES)
def test_an_org_in_an_oddly_named_folder_is_read_and_nothing_stray_appears(
    name: str, demo_org: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / name
    folder.mkdir()
    org = shutil.copy(demo_org, folder / "org.db")
    before = _files(tmp_path)

    assert org_meta(org)["org_type"] == "b2b"
    reader = OrgReader(org)
    try:
        assert len(reader.cases) > 0
    finally:
        reader.close()
    local = LocalOrg(org)
    try:
        accounts = local.query("SELECT COUNT() FROM Account").total_size
    finally:
        local.close()
    assert accounts > 0
    capsys.readouterr()
    assert main(["org", "info", "--org", str(org), "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["counts"]["Account"] == accounts

    assert _files(tmp_path) == before  # no stray database beside the folder


def test_an_org_is_dumped_from_and_to_an_oddly_named_folder(demo_org: Path, tmp_path: Path) -> None:
    folder = tmp_path / "x#y"
    folder.mkdir()
    org = shutil.copy(demo_org, folder / "org.db")
    snapshot = dump_snapshot(org, folder / "snap.db")
    conn = open_readonly(snapshot)
    try:
        assert conn.execute("SELECT COUNT(*) FROM Account").fetchone()[0] > 0
    finally:
        conn.close()
    assert _files(tmp_path) == {Path("x#y"), Path("x#y/org.db"), Path("x#y/snap.db")}


def test_a_sessions_database_in_an_oddly_named_folder_is_read_and_merged(tmp_path: Path) -> None:
    db = tmp_path / "runs#1" / "s.db"
    db.parent.mkdir()
    run = ["run", "--agent", "reference", "--tasks", "demo", "--limit", "1", "--db", str(db)]
    assert main(run) == 0
    assert session_queries(db, "b2b") or session_queries(db, "b2c")
    out = tmp_path / "out?v=2" / "merged.db"
    out.parent.mkdir()
    assert main(["sessions", "merge", str(db), "--out", str(out)]) == 0
    with Store(out) as merged:
        assert len(merged.sessions()) == 1
    stray = {p for p in _files(tmp_path) if not str(p).startswith(("runs#1", "out?v=2"))}
    assert stray == set()


def test_a_missing_file_is_not_created() -> None:
    uri = readonly_uri("/nowhere/a#b?c/org.db")
    assert uri == "file:/nowhere/a%23b%3Fc/org.db?mode=ro"
