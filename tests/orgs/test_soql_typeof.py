"""TYPEOF on a polymorphic relationship: each record's referenced record nested under the
relationship, its `attributes.type` its own type, with the fields of the WHEN branch naming that
type or else of ELSE; and the queries the SOQL Reference's TYPEOF page rules out refused."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from crmarena_tui.orgs.local import LocalOrg
from tests.support.soql_fixture_support import A, K, build_fixture_org, sfid

URL = "/services/data/v62.0/sobjects/"


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory):
    """The fixture org, with one task about an account and one about a case (the others are
    about opportunities, one about nothing)."""
    path = build_fixture_org(tmp_path_factory.mktemp("typeof") / "org.db")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE Task SET WhatId = ? WHERE Subject = 'Discovery call'", (A(1),))
    conn.execute("UPDATE Task SET WhatId = ? WHERE Subject = 'Prepare quote'", (K(1),))
    conn.commit()
    conn.close()
    opened = LocalOrg(path)
    yield opened
    opened.close()


def _by_subject(org: LocalOrg, soql: str) -> dict[str, Any]:
    res = org.query(soql)
    assert res.ok, res.error
    return {r["Subject"]: r["What"] for r in res.records}


def test_each_record_reads_the_branch_of_its_type(org: LocalOrg) -> None:
    what = _by_subject(
        org,
        "SELECT Subject, TYPEOF What WHEN Account THEN Phone, Name "
        "WHEN Opportunity THEN Amount, Account.Name ELSE Name, Type END FROM Task",
    )
    assert what["Discovery call"] == {
        "attributes": {"type": "Account", "url": f"{URL}Account/{A(1)}"},
        "Phone": "(415) 555-0100",
        "Name": "Acme Corp",
    }
    opp = what["Send proposal"]
    assert opp["attributes"]["type"] == "Opportunity"
    assert opp["Amount"] == 50000.0
    assert opp["Account"]["Name"] == "Acme Corp"
    assert set(opp) == {"attributes", "Amount", "Account"}
    # a case matches no WHEN: the ELSE reads the Name object's fields (a case has no Name)
    assert what["Prepare quote"] == {
        "attributes": {"type": "Case", "url": f"{URL}Case/{K(1)}"},
        "Name": None,
        "Type": "Case",
    }
    assert what["Orphan task"] is None  # no WhatId


def test_without_else_an_unmatched_reference_has_its_attributes_only(org: LocalOrg) -> None:
    what = _by_subject(
        org, "SELECT Subject, TYPEOF What WHEN Account THEN Name END FROM Task ORDER BY Subject"
    )
    assert what["Prepare quote"] == {"attributes": {"type": "Case", "url": f"{URL}Case/{K(1)}"}}
    assert what["Discovery call"] == {
        "attributes": {"type": "Account", "url": f"{URL}Account/{A(1)}"},
        "Name": "Acme Corp",
    }


def test_typeof_keeps_the_rest_of_the_query(org: LocalOrg) -> None:
    res = org.query(
        "SELECT Id, TYPEOF Owner WHEN User THEN Name END, Subject FROM Task "
        "WHERE Priority = 'High' ORDER BY Subject LIMIT 1"
    )
    assert res.ok, res.error
    (rec,) = res.records
    assert list(rec) == ["attributes", "Id", "Owner", "Subject"]
    assert rec["Id"] == sfid("00T", 4) and rec["Owner"]["attributes"]["type"] == "User"
    child = org.query(
        "SELECT Name, (SELECT TYPEOF What WHEN Opportunity THEN StageName END FROM Tasks) "
        "FROM Opportunity WHERE Name = 'Globex renewal'"
    )
    assert child.ok, child.error
    tasks = child.records[0]["Tasks"]["records"]
    assert [t["What"]["StageName"] for t in tasks] == ["Negotiation", "Negotiation"]


@pytest.mark.parametrize(
    ("soql", "code", "fragment"),
    [
        (
            "SELECT TYPEOF Account WHEN Account THEN Name END FROM Contact",
            "MALFORMED_QUERY",
            "polymorphic relationship field",
        ),
        (
            "SELECT TYPEOF What WHEN Nothing__c THEN Name END FROM Task",
            "INVALID_TYPE",
            "sObject type 'Nothing__c' is not supported",
        ),
        ("SELECT TYPEOF Whom WHEN Account THEN Name END FROM Task", "INVALID_FIELD", "'Whom'"),
        (
            "SELECT Id FROM Task WHERE TYPEOF What WHEN Account THEN Name END = 'x'",
            "MALFORMED_QUERY",
            "only allowed in the SELECT clause",
        ),
        (
            "SELECT TYPEOF What WHEN Account THEN Name FROM Task",
            "MALFORMED_QUERY",
            "unexpected token: 'FROM'",
        ),
        (
            "SELECT What.Name, TYPEOF What WHEN Account THEN Name END FROM Task",
            "MALFORMED_QUERY",
            "can not also be referenced",
        ),
        (
            "SELECT TYPEOF What WHEN Account THEN Name WHEN account THEN Phone END FROM Task",
            "MALFORMED_QUERY",
            "duplicate WHEN Account",
        ),
        (
            "SELECT TYPEOF What WHEN Account THEN Name END, COUNT(Id) FROM Task GROUP BY WhatId",
            "MALFORMED_QUERY",
            "not allowed in an aggregate query",
        ),
        (
            "SELECT Id FROM Account WHERE Id IN "
            "(SELECT TYPEOF What WHEN Account THEN Id END FROM Opportunity)",
            "MALFORMED_QUERY",
            "semi-join",
        ),
        (
            "SELECT TYPEOF What WHEN Account THEN Name ELSE StageName END FROM Task",
            "INVALID_FIELD",
            "No such column 'StageName' on entity 'Name'",
        ),
        (
            "SELECT TYPEOF What WHEN Account THEN Industri END FROM Task",
            "INVALID_FIELD",
            "No such column 'Industri' on entity 'Account'",
        ),
    ],
)
def test_misuse_is_refused(org: LocalOrg, soql: str, code: str, fragment: str) -> None:
    res = org.query(soql)
    assert not res.ok and res.error_code == code, res.error
    assert fragment in (res.error or "")
    assert res.error_offset is not None and 0 <= res.error_offset < len(soql)


def test_sosl_returning_refuses_typeof(org: LocalOrg) -> None:
    res = org.search("FIND {Send} RETURNING Task(Id, TYPEOF What WHEN Account THEN Name END)")
    assert not res.ok and res.error_code == "MALFORMED_SEARCH", res.error


def test_the_lenient_org_reads_typeof_on_any_reference(org: LocalOrg) -> None:
    with LocalOrg(org.path, lenient=True) as lenient:
        res = lenient.query(
            "SELECT LastName, TYPEOF Account WHEN Account THEN Name END FROM Contact "
            "WHERE AccountId != null ORDER BY LastName LIMIT 1"
        )
    assert res.ok, res.error
    assert res.records[0]["Account"]["attributes"]["type"] == "Account"
