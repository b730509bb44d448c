"""Errors worded as the live org words them: the query line, a caret under the offending token,
`ERROR at Row:r:Column:c`, then the explanation; shown alike under both protocols and equal to
what upstream's connector printed for the live org (`f"{errorCode}: {message}"`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import responses

from crmarena_tui.agents.upstream import statement
from crmarena_tui.orgs.base import error_summary
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.observation_text import observation_text
from crmarena_tui.orgs.salesforce import SalesforceOrg
from crmarena_tui.orgs.soql.errors import INVALID_FIELD_HINT, INVALID_TYPE_HINT
from tests.fakes.salesforce import FakeSalesforce
from tests.support.soql_fixture_support import build_fixture_org


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalOrg]:
    path = build_fixture_org(tmp_path_factory.mktemp("wording") / "org.db")
    with LocalOrg(Path(path)) as o:
        yield o


# the worked examples: one per code, the caret under the first character of the offending token
WORKED = [
    (
        "SELECT Id, Foo FROM Account",
        "INVALID_FIELD: \n"
        "SELECT Id, Foo FROM Account\n"
        "           ^\n"
        "ERROR at Row:1:Column:12\n"
        f"No such column 'Foo' on entity 'Account'. {INVALID_FIELD_HINT}",
    ),
    (
        "SELECT Id FROM Case WHERE Status = 'New' LIMT 5",
        "MALFORMED_QUERY: \n"
        "SELECT Id FROM Case WHERE Status = 'New' LIMT 5\n"
        "                                         ^\n"
        "ERROR at Row:1:Column:42\n"
        "unexpected token: 'LIMT'",
    ),
    (
        "SELECT Id, Name FROM Acount",
        "INVALID_TYPE: \n"
        "SELECT Id, Name FROM Acount\n"
        "                     ^\n"
        "ERROR at Row:1:Column:22\n"
        f"sObject type 'Acount' is not supported. {INVALID_TYPE_HINT}",
    ),
]


@pytest.mark.parametrize(("query", "worded"), WORKED)
def test_the_three_codes_are_worded_as_salesforce_words_them(
    org: LocalOrg, query: str, worded: str
) -> None:
    result = org.query(query)
    assert result.error == worded
    # both protocols show the same text; the first line keeps the `CODE:` an agent reads
    assert observation_text(result, "upstream") == worded
    assert observation_text(result, "workbench") == worded
    assert result.error_code == worded.split(":")[0]
    assert result.to_response()["message"].startswith("\nSELECT ")  # as the REST body holds it


def test_a_multi_line_query_shows_the_offending_line_and_its_row(org: LocalOrg) -> None:
    query = "SELECT Id, Subject\nFROM Case\nWHERE Priorty = 'High'"
    assert org.query(query).error == (
        "INVALID_FIELD: \n"
        "WHERE Priorty = 'High'\n"
        "      ^\n"
        "ERROR at Row:3:Column:7\n"
        f"No such column 'Priorty' on entity 'Case'. {INVALID_FIELD_HINT}"
    )


def test_a_long_line_is_shown_as_the_words_around_the_error(org: LocalOrg) -> None:
    query = (
        "SELECT Id, Name, Industry, Phone, NumberOfEmployees, ShippingState, Nope, Description "
        "FROM Account WHERE Name != null AND Industry != null"
    )
    assert len(query) > 80
    assert (
        org.query(query).error
        == (  # at most 41 characters either side, whole words
            "INVALID_FIELD: \n"
            "Phone, NumberOfEmployees, ShippingState, Nope, Description FROM Account WHERE Name\n"
            + " "
            * 41
            + "^\n"
            "ERROR at Row:1:Column:69\n"
            f"No such column 'Nope' on entity 'Account'. {INVALID_FIELD_HINT}"
        )
    )


def test_errors_salesforce_does_not_place_keep_their_one_line(org: LocalOrg) -> None:
    result = org.query("SELECT Id FROM Account OFFSET 5000")
    assert result.error is not None and "\n" not in result.error
    assert result.error.startswith("NUMBER_OUTSIDE_VALID_RANGE: ")


def test_a_fenced_query_under_upstream_is_one_line_as_the_live_org_saw_it(org: LocalOrg) -> None:
    kind, text = statement("```sql\nSELECT Id\nFROM Case\nWHERE Nope = 1\n```")
    assert kind == "query" and text == "SELECT Id FROM Case WHERE Nope = 1"
    assert "ERROR at Row:1:Column:27\n" in str(org.query(text).error)


def test_the_summary_drops_the_placement(org: LocalOrg) -> None:
    result = org.query("SELECT Id, Foo FROM Account")
    assert (
        result.error_summary
        == f"INVALID_FIELD: No such column 'Foo' on entity 'Account'. {INVALID_FIELD_HINT}"
    )
    assert error_summary("MALFORMED_QUERY: unexpected token: 'x'") == (
        "MALFORMED_QUERY: unexpected token: 'x'"
    )


def test_the_local_org_and_the_live_org_give_an_agent_the_same_text(org: LocalOrg) -> None:
    """The fake live org answers with Salesforce's REST body; upstream's connector printed
    `errorCode: message` of it, and the local org's error is that text, byte for byte."""
    query, worded = WORKED[0]
    code, message = worded.split(": ", 1)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock)
        fake.add_query_error(query, code, message)
        live = SalesforceOrg("b2b", env=fake.env()).query(query)
    ours = org.query(query)
    assert f"{code}: {message}" == worded  # what upstream's connector showed its agents
    assert live.error == ours.error == worded
    assert live.error_offset == ours.error_offset == query.index("Foo")
    assert observation_text(live, "upstream") == observation_text(ours, "upstream")
