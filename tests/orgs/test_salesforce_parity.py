"""The two backends cannot be told apart: for the same data and query, SalesforceOrg (answered
by the fake with what Salesforce's REST API returns) and LocalOrg give identical results."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import responses

from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.salesforce import SalesforceOrg
from crmarena_tui.orgs.schema import write_meta, write_schema
from tests.fakes.salesforce import FakeSalesforce, aggregate, record

local = pytest.importorskip("crmarena_tui.orgs.local")

ACME = "001000000000001AAA"
ADA = "003000000000001AAA"
K1, K2, K3 = (f"500{n:012d}AAA" for n in (1, 2, 3))


def _acme_parent() -> dict:
    return {"attributes": record("Account", ACME)["attributes"], "Name": "Acme Corp"}


# query -> what Salesforce answers for the tiny org below
ANSWERS: dict[str, list[dict]] = {
    "SELECT Id, Subject, Account.Name FROM Case WHERE Status = 'Closed' ORDER BY Subject": [
        record("Case", K1, Subject="Hinge broke", Account=_acme_parent()),
        record("Case", K3, Subject="Hinge squeak", Account=None),
    ],
    "SELECT Status, COUNT(Id) FROM Case GROUP BY Status ORDER BY Status": [
        aggregate(Status="Closed", expr0=2),
        aggregate(Status="New", expr0=1),
    ],
    "SELECT Name, (SELECT LastName FROM Contacts) FROM Account": [
        {
            "attributes": record("Account", ACME)["attributes"],
            "Name": "Acme Corp",
            "Contacts": {
                "totalSize": 1,
                "done": True,
                "records": [
                    {"attributes": record("Contact", ADA)["attributes"], "LastName": "Lovelace"}
                ],
            },
        }
    ],
    "SELECT Id, NumberOfEmployees, ShippingState FROM Account": [
        record("Account", ACME, NumberOfEmployees=500, ShippingState="CA")
    ],
}
COUNT = "SELECT COUNT() FROM Case"
SOSL = "FIND {squeak} IN ALL FIELDS RETURNING Case(Id, Subject)"
SOSL_ANSWER = [record("Case", K3, Subject="Hinge squeak")]


@pytest.fixture
def local_org(tmp_path: Path) -> Iterator[object]:
    path = tmp_path / "tiny.db"
    conn = sqlite3.connect(path)
    write_schema(conn, reference_schema())
    write_meta(conn, {"org_type": "b2b", "today": "2024-05-15"})
    conn.execute(
        "INSERT INTO Account (Id, Name, NumberOfEmployees, ShippingState) VALUES (?, ?, ?, ?)",
        (ACME, "Acme Corp", 500, "CA"),
    )
    conn.execute(
        "INSERT INTO Contact (Id, FirstName, LastName, AccountId) VALUES (?, ?, ?, ?)",
        (ADA, "Ada", "Lovelace", ACME),
    )
    conn.executemany(
        'INSERT INTO "Case" (Id, Subject, Status, AccountId) VALUES (?, ?, ?, ?)',
        [
            (K1, "Hinge broke", "Closed", ACME),
            (K2, "Late delivery", "New", ACME),
            (K3, "Hinge squeak", "Closed", None),
        ],
    )
    conn.commit()
    conn.close()
    org = local.LocalOrg(path)
    yield org
    org.close()


@pytest.fixture
def sf_org() -> Iterator[SalesforceOrg]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock)
        for soql, rows in ANSWERS.items():
            fake.add_query(soql, rows)
        fake.add_query(COUNT, [], total_size=3)
        fake.add_search(SOSL, SOSL_ANSWER)
        fake.add_query_error("SELECT Nope FROM Case", "INVALID_FIELD", "No such column 'Nope'")
        yield SalesforceOrg("b2b", env=fake.env())


def _same(a: QueryResult, b: QueryResult) -> None:
    assert (a.kind, a.count_only, a.total_size, a.done) == (
        b.kind,
        b.count_only,
        b.total_size,
        b.done,
    )
    assert a.to_response() == b.to_response()
    assert a.observation() == b.observation()


@pytest.mark.parametrize("soql", list(ANSWERS))
def test_queries_answer_identically(soql: str, local_org, sf_org: SalesforceOrg) -> None:
    ours = local_org.query(soql)
    assert ours.ok, ours.error
    assert ours.records == ANSWERS[soql]  # LocalOrg matches Salesforce's documented shape
    _same(ours, sf_org.query(soql))


def test_count_answers_identically(local_org, sf_org: SalesforceOrg) -> None:
    ours, theirs = local_org.query(COUNT), sf_org.query(COUNT)
    assert ours.count_only and ours.total_size == 3
    _same(ours, theirs)


def test_sosl_answers_identically(local_org, sf_org: SalesforceOrg) -> None:
    ours = local_org.search(SOSL)
    assert ours.records == SOSL_ANSWER
    _same(ours, sf_org.search(SOSL))


def test_errors_carry_the_same_code(local_org, sf_org: SalesforceOrg) -> None:
    assert local_org.query("SELECT Nope FROM Case").error_code == "INVALID_FIELD"
    assert sf_org.query("SELECT Nope FROM Case").error_code == "INVALID_FIELD"


def _full(sobject: str, record_id: str, **values: object) -> dict:
    """A record with every field of the benchmark schema, as a subquery returns it."""
    names = reference_schema().objects[sobject].field_names
    return record(sobject, record_id, **{n: values.get(n) for n in names if n != "Id"})


def test_related_lists_answer_identically(local_org) -> None:
    children = {
        "Contacts": [_full("Contact", ADA, FirstName="Ada", LastName="Lovelace", AccountId=ACME)],
        "Cases": [
            _full("Case", K1, Subject="Hinge broke", Status="Closed", AccountId=ACME),
            _full("Case", K2, Subject="Late delivery", Status="New", AccountId=ACME),
        ],
    }

    def answer(soql: str) -> list[dict] | None:
        row = record("Account", ACME)
        for name, records in children.items():
            if f"FROM {name} LIMIT" in soql:
                row[name] = {"totalSize": len(records), "done": True, "records": records}
        return [row]  # the other related lists are empty (absent here, null on the wire)

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock)
        fake.add_describes(reference_schema())
        fake.add_query_handler(answer)
        theirs = SalesforceOrg("b2b", env=fake.env()).related("Account", ACME)
    ours = local_org.related("Account", ACME)
    assert ours["Contacts"] == children["Contacts"] and ours["Cases"] == children["Cases"]
    assert theirs == ours
