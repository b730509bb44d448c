"""`crmarena-tui query`: JSON and table output, errors on stderr with exit 1, --today, --org."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.orgs.base import error_summary
from tests.support.soql_fixture_support import K, build_fixture_org


@pytest.fixture()
def org_path(tmp_path: Path) -> Path:
    return build_fixture_org(tmp_path / "org.db")


def test_json_prints_the_salesforce_response(
    org_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "query",
            "SELECT Id, Owner.Name FROM Case WHERE Status = 'Escalated' ORDER BY Id",
            "--org",
            str(org_path),
            "--format",
            "json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["totalSize"] == 2 and out["done"] is True
    assert [r["Id"] for r in out["records"]] == [K(4), K(16)]
    assert out["records"][0]["Owner"]["Name"] == "Carol White"


def test_table_flattens_parents_and_counts_rows(
    org_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "query",
            "SELECT Subject, Owner.Name, (SELECT Id FROM CaseHistories__r) FROM Case "
            "WHERE Status = 'Escalated' ORDER BY Subject",
            "--org",
            str(org_path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "Owner.Name" in out and "Carol White" in out and "Battery swelling" in out
    assert "2 records" in out.splitlines()[-1]


def test_count_and_search_tables(org_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", "SELECT COUNT() FROM Case", "--org", str(org_path)]) == 0
    assert capsys.readouterr().out.strip() == "COUNT(): 16"
    assert (
        main(
            [
                "query",
                "FIND {battery} RETURNING Case(Subject), Knowledge__kav(Title)",
                "--org",
                str(org_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Knowledge__kav" in out and "Battery replacement policy" in out and "5 records" in out


def test_errors_go_to_stderr_with_exit_1(
    org_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["query", "SELECT Id FROM Account;", "--org", str(org_path)])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert captured.err.rstrip() == (
        "MALFORMED_QUERY: \nSELECT Id FROM Account;\n" + " " * 22 + "^\n"
        "ERROR at Row:1:Column:23\nunexpected token: ';'"
    )
    assert (
        main(["query", "SELECT Id FROM Account", "--org", str(org_path.parent / "missing.db")]) == 1
    )
    assert "no org file" in capsys.readouterr().err
    (org_path.parent / "junk.db").write_bytes(b"junk" * 100)
    assert main(["query", "SELECT Id FROM Account", "--org", str(org_path.parent / "junk.db")]) == 1
    assert "is not an org file" in capsys.readouterr().err


def test_today_moves_relative_dates(org_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q = "SELECT COUNT() FROM Case WHERE CreatedDate = TODAY"
    main(["query", q, "--org", str(org_path), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["totalSize"] == 1
    main(["query", q, "--org", str(org_path), "--format", "json", "--today", "2022-06-15"])
    assert json.loads(capsys.readouterr().out)["totalSize"] == 1
    main(["query", q, "--org", str(org_path), "--format", "json", "--today", "2021-01-01"])
    assert json.loads(capsys.readouterr().out)["totalSize"] == 0
    with pytest.raises(SystemExit):
        main(["query", q, "--org", str(org_path), "--today", "yesterday"])


def test_strict_by_default_lenient_on_request(
    org_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Salesforce's error by default; `--lenient` or CRMARENA_TUI_LENIENT answer the query."""
    text = "SELECT COUNT() FROM Case WHERE CreatedDate = 2024-05-12"
    assert main(["query", text, "--org", str(org_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and error_summary(err).startswith(
        "INVALID_FIELD: value of filter criterion for field 'CreatedDate' must be of type dateTime"
    )
    assert main(["query", text, "--org", str(org_path), "--lenient"]) == 0
    assert capsys.readouterr().out.strip() == "COUNT(): 1"
    monkeypatch.setenv("CRMARENA_TUI_LENIENT", "true")
    assert main(["query", text, "--org", str(org_path)]) == 0
    assert capsys.readouterr().out.strip() == "COUNT(): 1"
