"""`org import`: upstream-shaped snapshots of the demo orgs come back value for value; a damaged
snapshot imports with every damage named; files that are no snapshot are refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.schema_standard import STANDARD_FIELDS, org_schema
from crmarena_tui.orgs.snapshot_import import SnapshotError, import_snapshot
from tests.support.snapshot_dump_support import DumpStyle
from tests.support.snapshot_support import digest, private_org_dir, snapshot_of_demo


def _rows(path: Path, typed: bool = False) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        out = {}
        for name, obj in org_schema().objects.items():  # the standard fields too
            wrap = "typeof({})" if typed else "{}"
            cols = ", ".join(wrap.format(f'"{f.name}"') for f in obj.fields)
            out[name] = conn.execute(f'SELECT {cols} FROM "{name}" ORDER BY Id').fetchall()
        return out
    finally:
        conn.close()


STYLES = [
    DumpStyle(),
    DumpStyle(booleans="ints", numbers="text", nulls="empty", columns="text"),
    DumpStyle(booleans="words", numbers="native", nulls="null", columns="typed", short_ids=True),
    DumpStyle(datetimes="spanish", compound_names=False, nulls="empty"),
    DumpStyle(datetimes="epoch_ms", numbers="text", columns="text"),
]


@pytest.mark.parametrize(
    "style",
    STYLES,
    ids=["plain", "text-and-empty", "typed-short-ids", "spanish-no-names", "epoch-ms"],
)
def test_a_snapshot_of_the_demo_org_imports_back_value_for_value(
    tmp_path: Path, style: DumpStyle
) -> None:
    demo = ensure_demo_org("b2b")
    snap = snapshot_of_demo(tmp_path, "b2b", style)
    before = digest(snap)
    report = import_snapshot(snap, tmp_path / "org.db")
    assert digest(snap) == before  # never written
    assert report.org_type == "b2b" and report.missing_objects == []
    assert report.failed_values == 0 and report.rows_kept == report.rows_read > 25_000
    assert all(not o.missing_fields for o in report.objects)
    for o in report.objects:  # only the standard fields beyond the benchmark's, typed as defined
        assert o.extra_columns == {f.name: f.type for f in STANDARD_FIELDS.get(o.name, ())}
    assert _rows(tmp_path / "org.db") == _rows(demo)
    assert _rows(tmp_path / "org.db", typed=True) == _rows(demo, typed=True)
    with LocalOrg(tmp_path / "org.db") as org:
        assert org.describe().to_prompt() == LocalOrg(demo).describe().to_prompt()
        assert org.meta["kind"] == "upstream-snapshot" and org.meta["source_sha256"] == before


def _damage(snap: Path) -> None:
    conn = sqlite3.connect(snap)
    with conn:
        conn.execute('DROP TABLE "Issue__c"')
        conn.execute('ALTER TABLE "Case" RENAME COLUMN "Subject" TO "Subjekt"')
        conn.execute('ALTER TABLE "Contact" RENAME COLUMN "AccountId" TO "accountid"')
        first_case = conn.execute('SELECT Id FROM "Case" ORDER BY Id LIMIT 1').fetchone()[0]
        conn.execute('UPDATE "Case" SET CreatedDate = ? WHERE Id = ?', ("not a date", first_case))
        conn.execute(
            'UPDATE "Opportunity" SET Amount = ? WHERE Id IN '
            '(SELECT Id FROM "Opportunity" ORDER BY Id LIMIT 2)',
            ("about 5k",),
        )
        conn.execute('CREATE TABLE "Campaign" (Id, Name, IsActive, StartDate, BudgetedCost)')
        conn.executemany(
            'INSERT INTO "Campaign" VALUES (?, ?, ?, ?, ?)',
            [
                ("701000000000001AAA", "Spring push", "true", "2024-03-01", "1200.5"),
                ("701000000000002AAA", "Autumn push", "false", "2024-09-01", ""),
            ],
        )
    conn.close()


def test_a_damaged_snapshot_names_each_damage_and_the_rest_still_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = snapshot_of_demo(tmp_path, "b2b")
    _damage(snap)
    out = tmp_path / "org.db"
    assert main(["org", "import", str(snap), "--out", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    objects = {o["name"]: o for o in report["objects"]}
    assert report["missing_objects"] == ["Issue__c"]
    assert "Subject" in objects["Case"]["missing_fields"]
    standard = {f.name for f in STANDARD_FIELDS["Case"]}
    extra = {k: v for k, v in objects["Case"]["extra_columns"].items() if k not in standard}
    assert extra == {"Subjekt": "string"}
    assert objects["Contact"]["mapped"]["accountid"] == "AccountId"
    problems = {p["field"]: p for p in objects["Case"]["problems"]}
    assert problems["CreatedDate"]["count"] == 1
    assert problems["CreatedDate"]["examples"] == ["not a date"]
    amount = objects["Opportunity"]["problems"][0]
    assert (amount["field"], amount["count"], amount["examples"]) == ("Amount", 2, ["about 5k"])
    campaign = objects["Campaign"]
    assert campaign["in_schema"] is False and campaign["rows_kept"] == 2
    assert campaign["extra_columns"] == {
        "Id": "id",
        "Name": "string",
        "IsActive": "boolean",
        "StartDate": "date",
        "BudgetedCost": "double",
    }
    assert report["totals"]["values_not_coerced"] == 3

    with LocalOrg(out, today=None) as org:
        assert org.query("SELECT Subject FROM Case").error_code == "INVALID_FIELD"
        assert org.query("SELECT Id FROM Issue__c").error_code == "INVALID_TYPE"
        bad = org.query("SELECT CreatedDate FROM Case ORDER BY Id LIMIT 1")
        assert bad.ok and bad.records[0]["CreatedDate"] == "not a date"  # kept, never dropped
        cases = org.query("SELECT Subjekt, Account.Name FROM Case WHERE Status = 'Closed'")
        assert cases.ok and cases.total_size > 10 and cases.records[0]["Subjekt"]
        assert org.query("SELECT COUNT() FROM Contact WHERE Account.Name != null").total_size > 800
        active = org.query("SELECT Name, BudgetedCost FROM Campaign WHERE IsActive = true")
        assert [(r["Name"], r["BudgetedCost"]) for r in active.records] == [("Spring push", 1200.5)]
        assert org.query("SELECT Name FROM Campaign WHERE StartDate > 2024-06-01").total_size == 1
        assert "Not in the benchmark schema" in org.describe().objects["Campaign"].description

    assert main(["org", "import", str(snap), "--out", str(tmp_path / "t.db")]) == 0
    text = capsys.readouterr().out
    for named in (
        "object Issue__c",
        "field Case.Subject",
        "column Case.Subjekt (string)",
        "table Campaign (2 rows, 5 columns)",
        "Case.CreatedDate (datetime): 1 value(s), e.g. 'not a date'",
        "Contact.accountid -> Contact.AccountId",
    ):
        assert named in text, named


def test_files_that_are_no_snapshot_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(path: Path, *extra: str) -> str:
        assert main(["org", "import", str(path), "--out", str(tmp_path / "o.db"), *extra]) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and not (tmp_path / "o.db").exists()
        return err

    text = tmp_path / "crmarenapro_b2b_data.db"
    text.write_text("Id,Name\n001,Acme\n")
    assert "is not an SQLite database" in refused(text)

    pointer = tmp_path / "crmarena_data.db"
    pointer.write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 8100000\n"
    )
    assert "is a Git LFS pointer" in refused(pointer)

    whole = snapshot_of_demo(tmp_path / "snap", "b2b")
    cut = tmp_path / "cut_b2b.db"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    assert "is truncated" in refused(cut)

    other = tmp_path / "b2b_inventory.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE parts (id, name)")
    conn.commit()
    conn.close()
    err = refused(other)
    assert "has none of the benchmark's objects" in err and "parts" in err

    unnamed = tmp_path / "snapshot.db"
    unnamed.write_bytes(whole.read_bytes())
    assert "--org-type" in refused(unnamed)
    assert main(["org", "import", str(unnamed), "--out", str(unnamed), "--org-type", "b2b"]) == 2
    assert "is also the command's input" in capsys.readouterr().err
    assert digest(unnamed) == digest(whole)


def test_import_without_out_makes_the_upstream_org_and_info_shows_its_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = private_org_dir(monkeypatch, tmp_path / "orgs")
    snap = snapshot_of_demo(tmp_path / "dl", "b2b")
    assert main(["org", "import", str(snap), "--today", "2025-11-03", "--quiet"]) == 0
    assert (folder / "upstream-b2b.db").is_file()
    capsys.readouterr()
    assert main(["org", "info", "upstream:b2b", "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["meta"]["source"] == str(snap) and info["meta"]["today"] == "2025-11-03"
    assert "imported_at" in info["meta"] and info["counts"]["Case"] == 153
    assert info["documented_counts"]["Case"] == 153 and info["documented_counts"]["Lead"] == 1465
    assert info["import"]["rows_kept"] == info["import"]["rows_read"]
    assert main(["org", "info", "upstream:b2b"]) == 0
    table = capsys.readouterr().out
    assert "documented" in table and "source: " + str(snap) in table
    assert main(["org", "info", "upstream:b2c"]) == 1
    assert "crmarena-tui org fetch b2c" in capsys.readouterr().err


def test_an_original_crmarena_snapshot_is_typed_by_introspection(tmp_path: Path) -> None:
    snap = tmp_path / "crmarena_data.db"
    conn = sqlite3.connect(snap)
    conn.execute('CREATE TABLE "Case" (Id, Subject, CreatedDate, OwnerId, IsEscalated)')
    conn.execute(
        'INSERT INTO "Case" VALUES (?, ?, ?, ?, ?)',
        ("500000000000001", "Hinge", "2023-05-01T09:00:00.000+0000", "005000000000001", "false"),
    )
    conn.execute('CREATE TABLE "User" (Id, Name)')
    conn.execute('INSERT INTO "User" VALUES (?, ?)', ("005000000000001", "Ana"))
    conn.commit()
    conn.close()
    report = import_snapshot(snap, tmp_path / "org.db")
    assert report.org_type == "original" and "not available offline" in report.schema_source
    assert report.object("Case").extra_columns == {"IsEscalated": "boolean"}
    assert report.object("Case").missing_fields == []  # the original schema is not known here
    with LocalOrg(tmp_path / "org.db") as org:
        rec = org.query("SELECT Subject, Owner.Name, IsEscalated FROM Case").records[0]
        assert (rec["Owner"]["Name"], rec["IsEscalated"]) == ("Ana", False)


def test_import_report_survives_a_failed_write_cleanly(tmp_path: Path) -> None:
    snap = snapshot_of_demo(tmp_path, "b2b")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        import_snapshot(snap, blocker / "org.db")
    with pytest.raises(SnapshotError, match="no snapshot file"):
        import_snapshot(tmp_path / "missing_b2b.db", tmp_path / "o.db")
