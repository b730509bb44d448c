"""What a SOQL result looks like: Salesforce REST shapes, typed values, canonical names, child
subqueries, COUNT(), aggregate rows, today, code fences and error offsets."""

from __future__ import annotations

import json
import sqlite3
from datetime import date

import pytest

from crmarena_tui.orgs.base import execute
from crmarena_tui.orgs.local import LocalOrg
from tests.support.soql_fixture_support import A, C, K, U, build_fixture_org

URL = "/services/data/v62.0/sobjects/"


@pytest.fixture(scope="module")
def org_path(tmp_path_factory: pytest.TempPathFactory):
    return build_fixture_org(tmp_path_factory.mktemp("shapes") / "org.db")


@pytest.fixture()
def org(org_path):
    o = LocalOrg(org_path)
    yield o
    o.close()


def ok(res):
    assert res.error is None, res.error
    return res


def test_records_carry_attributes_and_nested_parents(org: LocalOrg) -> None:
    res = ok(
        org.query(f"SELECT Id, Subject, Owner.Name, Account.Name FROM Case WHERE Id = '{K(1)}'")
    )
    assert res.records == [
        {
            "attributes": {"type": "Case", "url": f"{URL}Case/{K(1)}"},
            "Id": K(1),
            "Subject": "Battery drains fast",
            "Owner": {
                "attributes": {"type": "User", "url": f"{URL}User/{U(1)}"},
                "Name": "Alice Smith",
            },
            "Account": {
                "attributes": {"type": "Account", "url": f"{URL}Account/{A(1)}"},
                "Name": "Acme Corp",
            },
        }
    ]
    assert res.to_response() == {"totalSize": 1, "done": True, "records": res.records}


def test_missing_parent_is_null_not_a_record_of_nulls(org: LocalOrg) -> None:
    res = ok(
        org.query(f"SELECT Name, Account.Name, Account.Industry FROM Contact WHERE Id = '{C(5)}'")
    )
    assert res.records[0]["Account"] is None


def test_parent_fields_nest_in_select_order_and_share_one_parent(org: LocalOrg) -> None:
    res = ok(
        org.query(
            f"SELECT Account.Name, Id, Account.Industry, Account.Phone FROM Contact WHERE Id = '{C(1)}'"
        )
    )
    rec = res.records[0]
    assert list(rec) == ["attributes", "Account", "Id"]
    assert list(rec["Account"]) == ["attributes", "Name", "Industry", "Phone"]


def test_three_level_path_nests_three_records(org: LocalOrg) -> None:
    res = ok(org.query(f"SELECT OrderItemId__r.Order.Account.Name FROM Case WHERE Id = '{K(1)}'"))
    rec = res.records[0]["OrderItemId__r"]
    assert rec["attributes"]["type"] == "OrderItem"
    assert rec["Order"]["attributes"]["type"] == "Order"
    assert rec["Order"]["Account"]["Name"] == "Acme Corp"


def test_values_are_typed(org: LocalOrg) -> None:
    acc = ok(org.query(f"SELECT NumberOfEmployees FROM Account WHERE Id = '{A(1)}'")).records[0]
    assert acc["NumberOfEmployees"] == 500 and isinstance(acc["NumberOfEmployees"], int)
    opp = ok(
        org.query(
            "SELECT Amount, Probability, CloseDate, CreatedDate FROM Opportunity "
            "WHERE Name = 'Acme expansion'"
        )
    ).records[0]
    assert opp["Amount"] == 50000.0 and isinstance(opp["Amount"], float)
    assert opp["CloseDate"] == "2024-04-30"
    assert opp["CreatedDate"] == "2024-01-05T09:00:00.000+0000"
    users = ok(org.query("SELECT Name, IsActive FROM User ORDER BY Name")).records
    assert [u["IsActive"] for u in users] == [True, True, False, True, True]
    assert all(isinstance(u["IsActive"], bool) for u in users)
    assert '"IsActive": false' in json.dumps(users)


def test_names_are_case_insensitive_and_keys_canonical(org: LocalOrg) -> None:
    res = ok(
        org.query(
            "select id, NAME, account.name from CONTACT where account.NAME = 'globex' order by name"
        )
    )
    assert [r["Name"] for r in res.records] == ["Jim Beam", "Mike Ross"]
    assert res.records[0]["attributes"]["type"] == "Contact"
    assert set(res.records[0]) == {"attributes", "Id", "Name", "Account"}
    assert res.records[0]["Account"]["Name"] == "Globex"


def test_object_name_prefix_and_tolabel_read_the_field(org: LocalOrg) -> None:
    res = ok(org.query("SELECT Account.Name, toLabel(Industry) FROM Account WHERE Name = 'Globex'"))
    assert res.records[0]["Name"] == "Globex" and res.records[0]["Industry"] == "Finance"


def test_child_subquery_nests_records_or_null(org: LocalOrg, org_path) -> None:
    res = ok(
        org.query(
            "SELECT Name, (SELECT Subject, Owner.Name FROM Cases ORDER BY Subject) FROM Account "
            "ORDER BY Name"
        )
    )
    raw = sqlite3.connect(org_path)
    for rec in res.records:
        expected = raw.execute(
            'SELECT c.Subject, u.Name FROM "Case" c JOIN Account a ON a.Id = c.AccountId '
            "LEFT JOIN User u ON u.Id = c.OwnerId WHERE a.Name = ? ORDER BY c.Subject",
            (rec["Name"],),
        ).fetchall()
        cases = rec["Cases"]
        if not expected:
            assert cases is None
            continue
        assert cases["totalSize"] == len(expected) and cases["done"] is True
        got = [(c["Subject"], c["Owner"]["Name"] if c["Owner"] else None) for c in cases["records"]]
        assert got == expected
        assert cases["records"][0]["attributes"]["type"] == "Case"
    raw.close()
    assert len(res.records) == 6


def test_child_subquery_filters_limits_per_parent(org: LocalOrg) -> None:
    res = ok(
        org.query(
            "SELECT Name, (SELECT Subject FROM Cases WHERE Status = 'Closed' ORDER BY Subject "
            "LIMIT 1), (SELECT Name FROM Contacts) FROM Account WHERE ShippingState IN ('NY', 'TX') "
            "ORDER BY Name"
        )
    )
    by_name = {r["Name"]: r for r in res.records}
    assert by_name["Globex"]["Cases"]["records"][0]["Subject"] == "Login loop"
    assert by_name["Globex"]["Cases"]["totalSize"] == 1
    assert sorted(c["Name"] for c in by_name["Globex"]["Contacts"]["records"]) == [
        "Jim Beam",
        "Mike Ross",
    ]
    assert by_name["Umbrella"]["Cases"]["records"][0]["Subject"] == "Screen dead"
    assert (
        by_name["Stark Industries"]["Cases"]["totalSize"] == 1
    )  # two closed cases, LIMIT 1 each parent


def test_child_subquery_empty_is_null(org: LocalOrg) -> None:
    res = ok(org.query("SELECT Name, (SELECT Id FROM Contacts) FROM Account WHERE Name = 'Hooli'"))
    assert res.records[0]["Contacts"] is None


def test_custom_child_relationship(org: LocalOrg) -> None:
    res = ok(
        org.query(
            "SELECT Name, (SELECT Subject FROM Cases__r ORDER BY Subject) FROM Issue__c "
            "WHERE Name = 'Login failure'"
        )
    )
    assert [c["Subject"] for c in res.records[0]["Cases__r"]["records"]] == [
        "Cannot log in",
        "Login loop",
        "Old case",
        "Tomorrow case",
    ]


def test_count_only_gives_total_size_and_no_records(org: LocalOrg) -> None:
    res = ok(org.query("SELECT COUNT() FROM Case WHERE Status = 'Closed'"))
    assert res.count_only and res.records == [] and res.total_size == 8
    assert res.to_response() == {"totalSize": 8, "done": True, "records": []}
    assert json.loads(res.observation()) == [{"count": 8}]


def test_aggregate_rows_are_aggregate_results(org: LocalOrg) -> None:
    res = ok(
        org.query(
            "SELECT Owner.Name, COUNT(Id), MAX(Amount) top FROM Opportunity "
            "WHERE OwnerId != null GROUP BY Owner.Name ORDER BY Owner.Name"
        )
    )
    assert res.records[0] == {
        "attributes": {"type": "AggregateResult"},
        "Name": "Alice Smith",
        "expr0": 2,
        "top": 50000.0,
    }
    assert json.loads(res.observation())[1] == {"Name": "Bob Jones", "expr0": 2, "top": 990000.0}


def test_expr_numbering_skips_aliased_items(org: LocalOrg) -> None:
    res = ok(org.query("SELECT COUNT(Id) n, SUM(Amount), MAX(Amount) FROM Opportunity"))
    assert set(res.records[0]) == {"attributes", "n", "expr0", "expr1"}


def test_observation_drops_attributes_and_all_null_keys(org: LocalOrg) -> None:
    res = ok(org.query("SELECT Name, Email, Account.Name FROM Contact WHERE Name = 'Mike Ross'"))
    assert res.records[0]["Email"] is None
    assert res.observation() == '[{"Name": "Mike Ross", "Account": {"Name": "Globex"}}]'


def test_today_comes_from_the_file_and_can_be_changed(org_path) -> None:
    org = LocalOrg(org_path)
    assert org.today == date(2024, 5, 15)
    assert [
        r["Subject"]
        for r in org.query("SELECT Subject FROM Case WHERE CreatedDate = TODAY").records
    ] == ["Battery drains fast"]
    org.today = date(2024, 5, 16)
    assert [
        r["Subject"]
        for r in org.query("SELECT Subject FROM Case WHERE CreatedDate = TODAY").records
    ] == ["Tomorrow case"]
    org.close()
    other = LocalOrg(org_path, today=date(2023, 12, 31))
    assert other.query("SELECT COUNT() FROM Case WHERE CreatedDate = TODAY").total_size == 1
    other.close()


def test_code_fence_is_unwrapped_and_execute_dispatches(org: LocalOrg) -> None:
    res = ok(execute(org, "```sql\nSELECT Id FROM Account WHERE Name = 'Globex'\n```"))
    assert res.records[0]["Id"] == A(2)
    found = execute(org, "```\nFIND {Globex} RETURNING Account(Name)\n```")
    assert found.kind == "search" and found.records[0]["Name"] == "Globex"


def test_error_offset_points_at_the_problem(org: LocalOrg) -> None:
    text = "SELECT Id, Nmae FROM Account"
    res = org.query(text)
    assert res.error_code == "INVALID_FIELD" and res.error_offset == text.index("Nmae")
    text = "  SELECT Id FROM Account WHERE Name = 'x' ;"
    res = org.query(text)
    assert res.error == (
        "MALFORMED_QUERY: \n" + text + "\n" + " " * 42 + "^\nERROR at Row:1:Column:43\n"
        "unexpected token: ';'"
    )
    assert res.error_offset == text.index(";")
    text = "SELECT Id\nFROM Account\nWHERE Name = 'x' -- comment"
    res = org.query(text)
    assert (
        res.error
        == (  # the line holding the error, its row and its column in that line
            "MALFORMED_QUERY: \nWHERE Name = 'x' -- comment\n" + " " * 17 + "^\n"
            "ERROR at Row:3:Column:18\nunexpected token: '-'"
        )
    )
    assert res.error_offset == text.index("--")


def test_elapsed_ms_is_measured(org: LocalOrg) -> None:
    res = org.query("SELECT Id FROM Case")
    assert res.elapsed_ms > 0
    assert org.query("SELECT Nope FROM Case").elapsed_ms > 0


def test_fields_function_expands_to_the_objects_fields(org: LocalOrg) -> None:
    rec = ok(org.query(f"SELECT FIELDS(ALL) FROM Case WHERE Id = '{K(1)}' LIMIT 1")).records[0]
    assert list(rec)[1:] == [f.name for f in org.describe().objects["Case"].fields]
    rec = ok(
        org.query(f"SELECT Subject, FIELDS(CUSTOM) FROM Case WHERE Id = '{K(1)}' LIMIT 5")
    ).records[0]
    assert list(rec)[1:] == ["Subject", "OrderItemId__c", "IssueId__c"]
    rec = ok(org.query("SELECT Id, FIELDS(STANDARD) FROM Issue__c ORDER BY Name")).records[0]
    assert list(rec)[1:] == ["Id", "Name"]
    assert org.query("SELECT FIELDS(ALL) FROM Case").error_summary == (
        "MALFORMED_QUERY: The SOQL FIELDS function must have a LIMIT of at most 200"
    )
    assert org.query("SELECT FIELDS(SOME) FROM Case LIMIT 1").error_code == "MALFORMED_QUERY"
