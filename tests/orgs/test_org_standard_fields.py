"""Fields a live org has beyond the benchmark schema's: `Account.Owner.Name`, `Contact.Phone` and
the other standard fields agents reach for answer on the demo orgs and on imported snapshots that
carry them, without moving any other value of the demo orgs or listing them in an agent's prompt."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from crmarena_tui.demo import generator
from crmarena_tui.demo.generator import build_org, generate
from crmarena_tui.demo.orggen.standard import _end_date
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.schema_standard import STANDARD_FIELDS, org_schema
from crmarena_tui.orgs.snapshot_import import import_snapshot

SCALE = 0.1


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalOrg]:
    path = build_org(tmp_path_factory.mktemp("standard") / "b2b.db", org_type="b2b", scale=SCALE)
    with LocalOrg(path) as org:
        yield org


def _ok(org: LocalOrg, soql: str) -> list[dict]:
    result = org.query(soql)
    assert result.ok, result.error
    assert result.records, soql
    return result.records


def test_the_queries_agents_write_answer_on_the_demo_org(demo: LocalOrg) -> None:
    sales = {r["Id"] for r in _ok(demo, "SELECT Id FROM User WHERE Department = 'Sales'")}
    for rec in _ok(demo, "SELECT Name, OwnerId, Owner.Name FROM Account"):
        assert rec["OwnerId"] in sales and rec["Owner"]["Name"]
    case = _ok(demo, "SELECT Subject, Account.Owner.Name FROM Case WHERE AccountId != null")[0]
    assert case["Account"]["Owner"]["Name"]
    phones = _ok(demo, "SELECT Phone, Title, MailingState FROM Contact")
    assert all(r["Phone"].startswith("(") and r["Title"] and r["MailingState"] for r in phones)
    assert _ok(demo, "SELECT Who.Name FROM Task WHERE WhoId != null LIMIT 1")[0]["Who"]["Name"]
    assert _ok(demo, "SELECT Manager.Name FROM User WHERE ManagerId != null LIMIT 1")
    rows = _ok(demo, "SELECT Origin, COUNT(Id) n FROM Case GROUP BY Origin")
    assert sum(r["n"] for r in rows) == demo.query("SELECT COUNT() FROM Case").total_size


def test_derived_values_agree_with_the_org(demo: LocalOrg) -> None:
    for rec in _ok(demo, "SELECT ShippingState, BillingState, BillingCity FROM Account"):
        assert rec["BillingState"] == rec["ShippingState"] and rec["BillingCity"]
    for rec in _ok(demo, "SELECT Status, IsClosed FROM Case"):
        assert rec["IsClosed"] == (rec["Status"] == "Closed")
    for rec in _ok(demo, "SELECT StageName, IsClosed, ForecastCategoryName FROM Opportunity"):
        assert rec["IsClosed"] == (rec["StageName"] == "Closed")
        assert (rec["ForecastCategoryName"] == "Closed") == rec["IsClosed"]
    order = _ok(demo, "SELECT Id, TotalAmount FROM Order LIMIT 1")[0]
    items = _ok(demo, f"SELECT Quantity, UnitPrice FROM OrderItem WHERE OrderId = '{order['Id']}'")
    assert order["TotalAmount"] == pytest.approx(sum(i["Quantity"] * i["UnitPrice"] for i in items))
    assert _end_date("2024-01-31", 1) == "2024-02-28"  # a month's last day, less one
    assert _end_date("2023-05-02", 24) == "2025-05-01"
    assert _end_date(None, 12) is None


def test_every_other_value_of_the_demo_org_stays_as_it_was(monkeypatch) -> None:
    with_fields = generate("b2c", scale=SCALE).rows
    steps = generator._steps()
    monkeypatch.setattr(generator, "_steps", lambda: [s for s in steps if s[1].__name__ != (
        "build_standard_fields")])  # fmt: skip
    without = generate("b2c", scale=SCALE).rows
    standard = {name: {f.name for f in fields} for name, fields in STANDARD_FIELDS.items()}
    for name, rows in without.items():
        assert len(with_fields[name]) == len(rows)
        for old, new in zip(rows, with_fields[name], strict=True):
            assert {k: v for k, v in new.items() if k not in standard.get(name, ())} == old


def test_the_prompt_lists_the_benchmark_fields_only(demo: LocalOrg) -> None:
    schema = demo.describe()
    assert schema.objects["Account"].field("OwnerId") is not None  # describe and the browser
    assert schema.to_prompt() == reference_schema().to_prompt()
    assert schema.to_rows() == reference_schema().to_rows()
    reference = reference_schema()
    for name, fields in STANDARD_FIELDS.items():  # none is a benchmark field already
        assert not {f.name for f in fields} & set(reference.objects[name].field_names)
    assert list(org_schema().objects) == list(reference.objects)


def _snapshot(path: Path, owner: str) -> Path:
    conn = sqlite3.connect(path)
    conn.execute('CREATE TABLE "User" (Id, FirstName, LastName)')
    conn.execute('INSERT INTO "User" VALUES (?, ?, ?)', ("005000000000001", "Ana", "Ruiz"))
    conn.execute('CREATE TABLE "Account" (Id, Name, OwnerId VARCHAR(18))')
    conn.execute('INSERT INTO "Account" VALUES (?, ?, ?)', ("001000000000001", "Acme", owner))
    conn.execute('CREATE TABLE "Contact" (Id, LastName, AccountId, Phone)')
    conn.execute(
        'INSERT INTO "Contact" VALUES (?, ?, ?, ?)',
        ("003000000000001", "Lovelace", "001000000000001", "4155550100"),
    )
    conn.execute('CREATE TABLE "Case" (Id, Subject, AccountId, CreatedDate)')
    conn.execute(
        'INSERT INTO "Case" VALUES (?, ?, ?, ?)',
        ("500000000000001", "Hinge", "001000000000001", "2024-05-01T09:00:00.000+0000"),
    )
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("owner", ["005000000000001", ""], ids=["owned", "owner-column-empty"])
def test_a_snapshot_column_of_a_standard_field_answers_as_salesforce_types_it(
    tmp_path: Path, owner: str
) -> None:
    snap = _snapshot(tmp_path / "crmarenapro_b2b_data.db", owner)
    report = import_snapshot(snap, tmp_path / "org.db", org_type="b2b", today=date(2024, 6, 1))
    assert report.object("Account").extra_columns == {"OwnerId": "reference"}
    assert report.object("Contact").extra_columns == {"Phone": "phone"}
    with LocalOrg(tmp_path / "org.db") as org:
        rec = _ok(org, "SELECT Name, Owner.Name FROM Account")[0]
        assert (rec["Owner"] or {}).get("Name") == ("Ana Ruiz" if owner else None)
        assert _ok(org, "SELECT Phone FROM Contact")[0]["Phone"] == "4155550100"  # not a number
        case = _ok(org, "SELECT Subject, Account.Owner.Name FROM Case")[0]
        assert (case["Account"]["Owner"] or {}).get("Name") == ("Ana Ruiz" if owner else None)
        prompt = org.describe().to_prompt()
        assert "OwnerId" not in prompt.split("Account:")[1].split("\n\n")[0]
