"""The demo org generator: determinism, Ids, referential integrity, invariants, counts, caching."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest

from crmarena_tui.demo import generator
from crmarena_tui.demo.generator import GENERATOR_VERSION, build_org, ensure_demo_org, org_meta
from crmarena_tui.demo.ids import to_18
from crmarena_tui.demo.stage_guide import stage_of_subject
from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.salesforce_ids import checksum
from crmarena_tui.orgs.schema import read_schema
from crmarena_tui.orgs.schema_standard import org_schema
from tests.support.demo_support import is_valid_id

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DATETIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+0000$")


@pytest.fixture(scope="module")
def small_orgs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("orgs")
    return {t: build_org(folder / f"{t}.db", org_type=t, seed=0, scale=0.1) for t in ("b2b", "b2c")}


def _conn(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def _content(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {
            name: conn.execute(f'SELECT * FROM "{name}" ORDER BY Id').fetchall()
            for name in reference_schema().objects
        }
    finally:
        conn.close()


def test_salesforce_checksum_matches_real_ids() -> None:
    # Ids copied from the benchmark's task rows: their suffixes are Salesforce's own.
    assert to_18("005Wt000003NIYn") == "005Wt000003NIYnIAO"
    assert checksum("00TWt000002z48w") == "MAA"
    assert checksum("ka0Wt000000EnvJ") == "IAS"
    assert is_valid_id("0Q0Wt000001WRPVKA4")
    assert not is_valid_id("0Q0Wt000001WRPVKA5")


def test_same_seed_same_rows_other_seed_other_rows(
    tmp_path: Path, small_orgs: dict[str, Path]
) -> None:
    again = build_org(tmp_path / "again.db", org_type="b2b", seed=0, scale=0.1)
    assert _content(again) == _content(small_orgs["b2b"])
    other = build_org(tmp_path / "other.db", org_type="b2b", seed=1, scale=0.1)
    a, b = _content(other), _content(small_orgs["b2b"])
    assert a["Case"] != b["Case"] and a["Opportunity"] != b["Opportunity"]


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_ids_are_18_chars_with_prefix_and_checksum(
    small_orgs: dict[str, Path], org_type: str
) -> None:
    conn = _conn(small_orgs[org_type])
    schema = reference_schema()
    seen: set[str] = set()
    for name, obj in schema.objects.items():
        for (rid,) in conn.execute(f'SELECT Id FROM "{name}"'):
            assert is_valid_id(rid), (name, rid)
            assert rid.startswith(obj.key_prefix), (name, rid)
            assert schema.object_for_id(rid).name == name
            seen.add(rid)
    assert len(seen) > 1000


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_every_reference_points_to_a_row_of_its_object(
    small_orgs: dict[str, Path], org_type: str
) -> None:
    conn = _conn(small_orgs[org_type])
    checked = 0
    for name, obj in reference_schema().objects.items():
        for f in obj.fields:
            if f.type != "reference":
                continue
            dangling = conn.execute(
                f'SELECT c."{f.name}" FROM "{name}" c LEFT JOIN "{f.reference_to}" p ON p.Id = c."{f.name}" '
                f'WHERE c."{f.name}" IS NOT NULL AND p.Id IS NULL'
            ).fetchall()
            assert not dangling, f"{name}.{f.name} -> {f.reference_to}: {dangling[:3]}"
            checked += 1
    # Ids stored in text fields point to the right objects too.
    for old, new in conn.execute(
        "SELECT OldValue__c, NewValue__c FROM CaseHistory__c WHERE Field__c = 'Owner Assignment'"
    ):
        for uid in (old, new):
            assert uid is None or conn.execute("SELECT 1 FROM User WHERE Id = ?", (uid,)).fetchone()
    assert checked >= 30


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_field_formats(small_orgs: dict[str, Path], org_type: str) -> None:
    conn = _conn(small_orgs[org_type])
    for name, obj in reference_schema().objects.items():
        for f in obj.fields:
            values = [
                v
                for (v,) in conn.execute(
                    f'SELECT "{f.name}" FROM "{name}" WHERE "{f.name}" IS NOT NULL'
                )
            ]
            if f.type == "date":
                assert all(DATE_RE.match(v) for v in values), (name, f.name)
            elif f.type == "datetime":
                assert all(DATETIME_RE.match(v) for v in values), (name, f.name)
            elif f.type == "boolean":
                assert set(values) <= {0, 1}, (name, f.name)


def test_case_history_and_case_invariants(small_orgs: dict[str, Path]) -> None:
    conn = _conn(small_orgs["b2b"])
    cases = conn.execute('SELECT * FROM "Case"').fetchall()
    assert cases
    transferred = 0
    for case in cases:
        assert (case["Status"] == "Closed") == (case["ClosedDate"] is not None)
        if case["ClosedDate"]:
            assert case["ClosedDate"] > case["CreatedDate"]
        rows = conn.execute(
            "SELECT OldValue__c, NewValue__c FROM CaseHistory__c WHERE CaseId__c = ? "
            "AND Field__c = 'Owner Assignment' ORDER BY CreatedDate",
            (case["Id"],),
        ).fetchall()
        assert rows and rows[0]["OldValue__c"] is None
        for before, after in zip(rows, rows[1:], strict=False):
            assert after["OldValue__c"] == before["NewValue__c"] != after["NewValue__c"]
        assert rows[-1]["NewValue__c"] == case["OwnerId"]
        transferred += len(rows) > 1
        bought = conn.execute(
            'SELECT o.AccountId, o.EffectiveDate FROM OrderItem i JOIN "Order" o ON o.Id = i.OrderId '
            "WHERE i.Id = ?",
            (case["OrderItemId__c"],),
        ).fetchone()
        assert bought["AccountId"] == case["AccountId"]
        assert bought["EffectiveDate"] <= case["CreatedDate"][:10]
        contact_account = conn.execute(
            "SELECT AccountId FROM Contact WHERE Id = ?", (case["ContactId"],)
        ).fetchone()[0]
        assert contact_account == case["AccountId"]
    assert transferred > 0


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_sales_invariants(small_orgs: dict[str, Path], org_type: str) -> None:
    conn = _conn(small_orgs[org_type])
    won = conn.execute("SELECT * FROM Opportunity WHERE ContractID__c IS NOT NULL").fetchall()
    assert won
    for opp in won:
        contract = conn.execute(
            "SELECT * FROM Contract WHERE Id = ?", (opp["ContractID__c"],)
        ).fetchone()
        assert contract["CompanySignedDate"] == opp["CloseDate"]
        assert contract["CompanySignedDate"] >= opp["CreatedDate"][:10]
        assert contract["AccountId"] == opp["AccountId"]
        accepted = conn.execute(
            "SELECT Id FROM Quote WHERE OpportunityId = ? AND Status = 'Accepted'", (opp["Id"],)
        ).fetchall()
        assert len(accepted) == 1
        quoted = sorted(
            tuple(r)
            for r in conn.execute(
                "SELECT Product2Id, Quantity FROM QuoteLineItem WHERE QuoteId = ?",
                (accepted[0][0],),
            )
        )
        ordered = sorted(
            tuple(r)
            for r in conn.execute(
                'SELECT i.Product2Id, i.Quantity FROM OrderItem i JOIN "Order" o ON o.Id = i.OrderId '
                "WHERE o.ContractId = ?",
                (contract["Id"],),
            )
        )
        assert quoted == ordered
    for line in conn.execute("SELECT * FROM QuoteLineItem"):
        expected = line["Quantity"] * line["UnitPrice"] * (1 - line["Discount"] / 100)
        assert line["TotalPrice"] == pytest.approx(expected, abs=0.01)
    for lead in conn.execute("SELECT * FROM Lead"):
        converted = lead["IsConverted"] == 1
        assert (
            converted
            == (lead["ConvertedDate"] is not None)
            == (lead["ConvertedAccountId"] is not None)
        )
        assert converted == (lead["Status"] == "Closed - Converted")
        if converted:
            assert lead["ConvertedDate"] >= lead["CreatedDate"][:10]
    subjects = [s for (s,) in conn.execute("SELECT Subject FROM Task")]
    assert subjects and all(stage_of_subject(s) for s in subjects)


def test_every_state_in_one_territory_with_agents(small_orgs: dict[str, Path]) -> None:
    conn = _conn(small_orgs["b2b"])
    states: list[str] = []
    for tid, desc in conn.execute("SELECT Id, Description FROM Territory2"):
        states += [s.strip() for s in desc.split(",")]
        assert (
            conn.execute(
                "SELECT COUNT(*) FROM UserTerritory2Association WHERE Territory2Id = ?", (tid,)
            ).fetchone()[0]
            >= 1
        )
    assert len(states) == len(set(states)) == 50
    for (state,) in conn.execute("SELECT DISTINCT ShippingState FROM Account"):
        assert state in states


def test_b2c_models_a_consumer_business(small_orgs: dict[str, Path]) -> None:
    b2c, b2b = _conn(small_orgs["b2c"]), _conn(small_orgs["b2b"])
    assert {i for (i,) in b2c.execute("SELECT DISTINCT Industry FROM Account")} == {"Consumer"}
    assert (
        b2c.execute("SELECT COUNT(*) FROM Account WHERE NumberOfEmployees IS NOT NULL").fetchone()[
            0
        ]
        == 0
    )
    avg = "SELECT AVG(i.Quantity * i.UnitPrice) FROM OrderItem i"
    assert b2c.execute(avg).fetchone()[0] * 20 < b2b.execute(avg).fetchone()[0]
    names_b2c = {n for (n,) in b2c.execute("SELECT Name FROM Product2")}
    assert not names_b2c & {n for (n,) in b2b.execute("SELECT Name FROM Product2")}


def test_counts_scale_and_catalogue_is_fixed(small_orgs: dict[str, Path]) -> None:
    conn = _conn(small_orgs["b2b"])
    count = {
        name: conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
        for name in reference_schema().objects
    }
    assert count["Issue__c"] == 15 and count["Territory2"] == 10 and count["ProductCategory"] == 10
    assert count["Product2"] == 51
    assert (
        8 <= count["Account"] <= 12
        and 13 <= count["Case"] <= 17
        and 100 <= count["Opportunity"] <= 135
    )


def test_schema_and_meta_stored_in_file(small_orgs: dict[str, Path]) -> None:
    conn = sqlite3.connect(small_orgs["b2c"])
    stored = read_schema(conn)
    ref, full = reference_schema(), org_schema()
    assert list(stored.objects) == list(ref.objects)
    for name, obj in ref.objects.items():  # the benchmark's fields, then the standard ones
        assert stored.objects[name].field_names == full.objects[name].field_names
        assert stored.objects[name].field_names[: len(obj.fields)] == obj.field_names
        assert stored.objects[name].key_prefix == obj.key_prefix
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    for idx in (
        "ix_Case_CreatedDate",
        "ix_Case_ClosedDate",
        "ix_Contract_CompanySignedDate",
        "ix_Case_OwnerId",
    ):
        assert idx in indexes
    meta = org_meta(small_orgs["b2c"])
    assert (
        meta["org_type"] == "b2c"
        and meta["seed"] == "0"
        and meta["generator_version"] == GENERATOR_VERSION
    )
    assert meta["today"].startswith("2025-") and "built_at" in meta


def test_default_org_at_scale_one_has_the_real_orgs_size() -> None:
    path = ensure_demo_org("b2b")
    conn = sqlite3.connect(path)
    real = {
        "User": 212,
        "Account": 101,
        "Contact": 886,
        "Case": 153,
        "Lead": 1465,
        "Opportunity": 1170,
        "Task": 4783,
        "EmailMessage": 5686,
        "VoiceCallTranscript__c": 4033,
        "Quote": 704,
        "Contract": 163,
    }
    for name, n in real.items():
        got = conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
        assert 0.8 * n <= got <= 1.2 * n, (name, got, n)


def test_ensure_demo_org_caches_and_rebuilds_on_new_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_ORG_DIR", str(tmp_path))
    calls: list[str] = []
    real_build = generator.build_org

    def small_build(path, **kw):
        calls.append(kw["org_type"])
        return real_build(path, org_type=kw["org_type"], seed=0, scale=0.05)

    monkeypatch.setattr(generator, "build_org", small_build)
    threads = [threading.Thread(target=ensure_demo_org, args=("b2c",)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["b2c"]
    path = ensure_demo_org("b2c")
    assert path == tmp_path / "demo-b2c.db" and calls == ["b2c"]
    monkeypatch.setattr(generator, "GENERATOR_VERSION", "999")
    ensure_demo_org("b2c")
    assert calls == ["b2c", "b2c"] and org_meta(path)["generator_version"] == "999"


def test_org_build_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from crmarena_tui.cli import main

    out = tmp_path / "mine.db"
    assert (
        main(
            [
                "org",
                "build",
                "--seed",
                "3",
                "--scale",
                "0.05",
                "--org-type",
                "b2c",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert str(out) in text and "Case" in text and "records" in text
    assert org_meta(out)["seed"] == "3" and org_meta(out)["org_type"] == "b2c"
    assert main(["org", "info", str(tmp_path / "missing.db")]) == 1
