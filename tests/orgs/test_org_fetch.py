"""`org fetch` against a loopback HTTP server: the default address through a redirect, progress,
an interrupted download resumed with Range, LFS pointers and truncated or non-SQLite files refused,
and `--from` a file downloaded by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.orgs.local import LocalOrg
from tests.fakes.file_server import FileServer
from tests.support.snapshot_support import private_org_dir, snapshot_of_demo

NAME = "crmarenapro_b2b_data.db"
POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:0b7cfa1d1c2e4c3a9f0f6a0d6b1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e\nsize 34603008\n"
)


@pytest.fixture
def orgs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_org_dir(monkeypatch, tmp_path / "orgs")


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return snapshot_of_demo(tmp_path_factory.mktemp("snap"), "b2b").read_bytes()


def use_server(monkeypatch: pytest.MonkeyPatch, server: FileServer) -> None:
    """Point upstream's repository address at the loopback server."""
    base = server.url("SalesforceAIResearch/CRMArena/raw/main/local_data/")
    monkeypatch.setattr("crmarena_tui.orgs.upstream.RAW_BASE", base)


def test_fetch_follows_the_redirect_shows_progress_and_imports(
    orgs: Path, snapshot: bytes, monkeypatch, capsys
) -> None:
    with FileServer({NAME: snapshot}) as server:
        use_server(monkeypatch, server)
        assert main(["org", "fetch", "b2b", "--today", "2025-11-03"]) == 0
    out, err = capsys.readouterr()
    assert [p for p, _ in server.requests] == [
        "/SalesforceAIResearch/CRMArena/raw/main/local_data/" + NAME,
        "/media/" + NAME,
    ]
    mb = len(snapshot) / 1e6
    assert f"{NAME}: 0.0 MB of {mb:.1f} MB (0%)" in err
    assert f"{NAME}: {mb:.1f} MB of {mb:.1f} MB (100%)" in err
    assert "Imported" in out and "27 benchmark objects" in out
    assert (orgs / "downloads" / NAME).read_bytes() == snapshot
    assert not (orgs / "downloads" / (NAME + ".part")).exists()
    with LocalOrg(orgs / "upstream-b2b.db") as org:
        assert org.meta["source"].endswith("/raw/main/local_data/" + NAME)
        assert org.query("SELECT COUNT() FROM Lead").total_size == 1465


def test_an_interrupted_download_resumes_where_it_stopped(
    orgs: Path, snapshot: bytes, monkeypatch, capsys
) -> None:
    cut = len(snapshot) // 3
    with FileServer({NAME: snapshot}) as server:
        use_server(monkeypatch, server)
        server.cut_after[NAME] = cut
        assert main(["org", "fetch", "b2b", "--format", "json"]) == 1
        err = capsys.readouterr().err
        assert "interrupted" in err and "run the same command again to resume" in err
        assert "Traceback" not in err
        part = orgs / "downloads" / (NAME + ".part")
        assert part.stat().st_size == cut
        assert not (orgs / "upstream-b2b.db").exists()
        assert main(["org", "fetch", "b2b", "--format", "json"]) == 0
    ranges = [r for p, r in server.requests if p.startswith("/media/")]
    assert ranges == [None, f"bytes={cut}-"]
    report = json.loads(capsys.readouterr().out)
    assert report["totals"]["rows_kept"] > 25_000 and report["missing_objects"] == []
    assert (orgs / "downloads" / NAME).read_bytes() == snapshot


def test_a_server_that_ignores_range_restarts_the_download(
    orgs: Path, snapshot: bytes, monkeypatch, capsys
) -> None:
    part = orgs / "downloads" / (NAME + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(b"junk from an older attempt")
    with FileServer({NAME: snapshot}, honour_range=False) as server:
        use_server(monkeypatch, server)
        assert main(["org", "fetch", "b2b", "--quiet"]) == 0
    assert (orgs / "downloads" / NAME).read_bytes() == snapshot


def test_an_lfs_pointer_is_refused_with_what_it_is(orgs: Path, monkeypatch, capsys) -> None:
    with FileServer({NAME: POINTER}) as server:
        use_server(monkeypatch, server)
        assert main(["org", "fetch", "b2b"]) == 1
    err = capsys.readouterr().err
    assert "is a Git LFS pointer" in err and "git lfs pull" in err and "Traceback" not in err
    assert not (orgs / "downloads" / NAME).exists() and not (orgs / "upstream-b2b.db").exists()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<!DOCTYPE html><html><body>Rate limited</body></html>", "is not an SQLite database"),
        ("half", "is truncated"),
    ],
)
def test_a_truncated_or_non_sqlite_download_is_refused(
    orgs: Path, snapshot: bytes, monkeypatch, capsys, body, says: str
) -> None:
    data = snapshot[: len(snapshot) // 2] if body == "half" else body
    with FileServer({NAME: data}) as server:
        use_server(monkeypatch, server)
        assert main(["org", "fetch", "b2b"]) == 1
    err = capsys.readouterr().err
    assert says in err and "the file was removed" in err and "Traceback" not in err
    assert not list((orgs / "downloads").iterdir())


def test_a_missing_file_or_an_unreachable_host_is_a_message(orgs: Path, monkeypatch, capsys):
    with FileServer({}) as server:
        use_server(monkeypatch, server)
        assert main(["org", "fetch", "b2c"]) == 1
        assert "HTTP 404" in capsys.readouterr().err
        dead = server.url("x.db")
    assert main(["org", "fetch", "b2c", "--from", dead]) == 1
    assert "cannot reach 127.0.0.1" in capsys.readouterr().err


def test_from_a_file_downloaded_by_hand(orgs: Path, tmp_path: Path, capsys) -> None:
    by_hand = snapshot_of_demo(tmp_path / "Downloads", "b2b")
    assert main(["org", "fetch", "b2b", "--from", str(by_hand), "--quiet"]) == 0
    assert "Imported " + str(by_hand.resolve()) in capsys.readouterr().out
    assert (orgs / "upstream-b2b.db").is_file() and not (orgs / "downloads").exists()
    assert main(["org", "fetch", "b2b", "--from", str(tmp_path / "nope.db")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_offline_the_error_names_the_file_to_download_and_from_path(
    orgs: Path, monkeypatch, capsys
) -> None:
    with FileServer({}) as server:
        use_server(monkeypatch, server)
        url = server.url("SalesforceAIResearch/CRMArena/raw/main/local_data/" + NAME)
    # the server is gone: the host cannot be reached, as on a machine without network
    assert main(["org", "fetch", "b2b"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: cannot reach 127.0.0.1")
    assert f"download {url} ({NAME})" in err
    assert f"crmarena-tui org fetch b2b --from PATH/{NAME}" in err
