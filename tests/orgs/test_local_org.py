"""LocalOrg: the org file API (attributes, describe, get, related), threads, timeouts, closing,
and the guarantee that nothing ever writes the file."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from datetime import date
from pathlib import Path

import pytest

from crmarena_tui.orgs.base import Org
from crmarena_tui.orgs.local import LocalOrg, OrgFileError
from crmarena_tui.orgs.schema import Schema
from tests.support.soql_fixture_support import A, C, K, U, build_fixture_org


@pytest.fixture()
def org_path(tmp_path: Path) -> Path:
    return build_fixture_org(tmp_path / "org.db")


def test_attributes_and_protocol(org_path: Path) -> None:
    with LocalOrg(org_path) as org:
        assert isinstance(org, Org)
        assert org.kind == "local" and org.ref == str(org_path) and org.org_type == "b2b"
        assert org.today == date(2024, 5, 15)
    with LocalOrg(org_path, today=date(2020, 1, 2)) as org:
        assert org.today == date(2020, 1, 2)


def test_today_defaults_to_the_real_date_without_meta(tmp_path: Path) -> None:
    path = build_fixture_org(tmp_path / "plain.db", today=None)
    with LocalOrg(path) as org:
        assert org.today == date.today()


def test_missing_or_foreign_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        LocalOrg(tmp_path / "nope.db")
    assert not (tmp_path / "nope.db").exists()
    (tmp_path / "notes.txt").write_text("not a database at all " * 100)
    with pytest.raises(OrgFileError, match="is not an org file"):
        LocalOrg(tmp_path / "notes.txt")
    sqlite3.connect(tmp_path / "empty.db").execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ValueError):
        LocalOrg(tmp_path / "empty.db")


def test_describe_is_the_stored_schema_and_cached(org_path: Path) -> None:
    with LocalOrg(org_path) as org:
        schema = org.describe()
        assert isinstance(schema, Schema) and len(schema.objects) == 27
        assert org.describe() is schema
        assert schema.object("case").field("OwnerId").relationship_name == "Owner"


def test_get_returns_every_field_typed(org_path: Path) -> None:
    with LocalOrg(org_path) as org:
        rec = org.get("account", A(1))
        assert rec is not None
        assert rec["attributes"] == {
            "type": "Account",
            "url": f"/services/data/v62.0/sobjects/Account/{A(1)}",
        }
        assert rec["Name"] == "Acme Corp" and rec["NumberOfEmployees"] == 500
        assert list(rec)[1:] == [f.name for f in org.describe().objects["Account"].fields]
        assert org.get("User", U(3))["IsActive"] is False
        assert org.get("Account", "001000000000099AAA") is None
        assert org.get("Account", A(1)[:15]) == rec
        assert org.get("Nope", A(1)) is None


def test_related_lists_children_by_relationship(org_path: Path) -> None:
    with LocalOrg(org_path) as org:
        rel = org.related("Account", A(1))
        assert sorted(c["Id"] for c in rel["Contacts"]) == [C(1), C(2)]
        assert sorted(c["Id"] for c in rel["Cases"]) == [K(1), K(4), K(8), K(13)]
        assert len(rel["Orders"]) == 2 and len(rel["Opportunities"]) == 1
        assert rel["Quotes"] == []
        assert rel["Cases"][0]["attributes"]["type"] == "Case"
        org.related_limit = 2
        assert len(org.related("Account", A(1))["Cases"]) == 2
        user = org.related("User", U(1))
        assert {"Cases", "Leads", "Opportunities", "Orders", "Tasks"} <= set(user)
        assert org.related("Nope", A(1)) == {}


def test_queries_from_many_threads_agree(org_path: Path) -> None:
    queries = [
        "SELECT Id, Subject, Owner.Name FROM Case ORDER BY Id",
        "SELECT Owner.Name, COUNT(Id) FROM Case GROUP BY Owner.Name ORDER BY Owner.Name",
        "SELECT Name, (SELECT Id FROM Cases) FROM Account ORDER BY Name",
        "SELECT COUNT() FROM Case WHERE CreatedDate = THIS_MONTH",
    ]
    with LocalOrg(org_path) as org:
        org.cache_plans = False  # every call parses and translates, concurrently
        expected = [org.query(q).records for q in queries]
        expected_search = org.search("FIND {battery} RETURNING Case(Id)").records
        errors: list[str] = []

        def work(seed: int) -> None:
            for i in range(40):
                q = queries[(seed + i) % len(queries)]
                res = org.query(q)
                if res.error or res.records != expected[queries.index(q)]:
                    errors.append(res.error or f"different records for {q}")
                if (
                    i % 10 == 0
                    and org.search("FIND {battery} RETURNING Case(Id)").records != expected_search
                ):
                    errors.append("different search records")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []


def test_a_slow_query_times_out(tmp_path: Path) -> None:
    path = build_fixture_org(tmp_path / "big.db")
    conn = sqlite3.connect(path)
    conn.executemany(
        'INSERT INTO "Account" (Id, Name) VALUES (?, ?)',
        [(f"001{n:012d}BBB", f"Company {n}") for n in range(30_000)],
    )
    conn.commit()
    conn.close()
    with LocalOrg(path) as org:
        org.timeout_s = 0.0
        res = org.query("SELECT COUNT() FROM Account WHERE Name LIKE '%zz%' AND Phone LIKE '%q%'")
        assert res.error == "QUERY_TIMEOUT: Your query request was running for too long."
        org.timeout_s = 30.0
        assert org.query("SELECT COUNT() FROM Account").total_size == 30_006


def test_closed_org_answers_with_an_error(org_path: Path) -> None:
    org = LocalOrg(org_path)
    assert org.query("SELECT Id FROM Account").ok
    org.close()
    res = org.query("SELECT Id FROM Account")
    assert res.error_code == "INVALID_SESSION_ID"


def test_nothing_writes_the_file(org_path: Path) -> None:
    before = hashlib.sha256(org_path.read_bytes()).hexdigest()
    stamp = org_path.stat().st_mtime_ns
    with LocalOrg(org_path) as org:
        for q in (
            "SELECT Id, Account.Name FROM Case",
            "SELECT COUNT() FROM Lead",
            "SELECT Name, (SELECT Id FROM Contacts) FROM Account",
        ):
            assert org.query(q).ok
        assert org.search("FIND {acme}").ok
        org.get("Account", A(1))
        org.related("Account", A(1))
    assert hashlib.sha256(org_path.read_bytes()).hexdigest() == before
    assert org_path.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in org_path.parent.iterdir()) == ["org.db"]


def test_query_is_strictly_soql(org_path: Path) -> None:
    with LocalOrg(org_path) as org:
        assert org.query("FIND {acme}").error_code == "MALFORMED_QUERY"
        assert org.search("SELECT Id FROM Account").error_code == "MALFORMED_SEARCH"
        assert org.query(None).error_code == "MALFORMED_QUERY"  # type: ignore[arg-type]


def test_plan_cache_does_not_change_answers(org_path: Path) -> None:
    with LocalOrg(org_path) as org:
        q = "SELECT Subject FROM Case WHERE CreatedDate = TODAY"
        first = org.query(q).records
        assert org.query(q).records == first
        org.today = date(2024, 5, 16)
        assert org.query(q).records != first
        org.cache_plans = False
        assert org.query(q).records == org.query(q).records


def test_a_thread_per_query_does_not_pile_up_connections(org_path: Path) -> None:
    fds = Path("/proc/self/fd")
    with LocalOrg(org_path) as org:
        org.query("SELECT Id FROM Account")
        before = len(list(fds.iterdir())) if fds.exists() else 0
        results = []
        for _ in range(60):  # the app runs each query in a fresh worker thread
            t = threading.Thread(
                target=lambda: results.append(org.query("SELECT Id FROM Account").ok)
            )
            t.start()
            t.join()
        assert results == [True] * 60
        assert len(org._idle) == 1
        if fds.exists():
            assert len(list(fds.iterdir())) <= before + 1
