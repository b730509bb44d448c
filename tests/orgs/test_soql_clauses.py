"""What Salesforce reads as an ASCII statement the local org reads so too (`ſELECT`, `LIMIT １`
and non-ASCII digits in a date are refused), and the clauses that change nothing an
administrator reads are answered as without them (`WITH SECURITY_ENFORCED`, `FOR VIEW`,
`FOR REFERENCE`, `USING SCOPE everything`, SOSL `WITH SNIPPET`)."""

from __future__ import annotations

import pytest

from crmarena_tui.orgs.local import LocalOrg
from tests.support.soql_fixture_support import build_fixture_org


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory):
    opened = LocalOrg(build_fixture_org(tmp_path_factory.mktemp("clauses") / "org.db"))
    yield opened
    opened.close()


@pytest.mark.parametrize(
    "text",
    [
        "ſELECT Id FROM Account",
        "SELECT Id FROM Account LIMIT １",
        "SELECT Id FROM Account LIMIT ١",
        "SELECT Id FROM Account WHERE CreatedDate > ２０２０-01-01T00:00:00Z",
        "SELECT Id FROM Account WHERE CreatedDate > 2020-01-0١T00:00:00Z",
    ],
)
def test_non_ascii_keywords_and_digits_are_refused(org: LocalOrg, text: str) -> None:
    res = org.query(text)
    assert not res.ok and res.error_code == "MALFORMED_QUERY", res.error


@pytest.mark.parametrize(
    "clause",
    [
        ("USING SCOPE everything", ""),
        ("WITH SECURITY_ENFORCED", ""),
        ("WITH USER_MODE", ""),
        ("", "FOR VIEW"),
        ("", "FOR REFERENCE"),
    ],
)
def test_clauses_that_change_nothing_are_answered(org: LocalOrg, clause: tuple[str, str]) -> None:
    plain = org.query("SELECT Id FROM Account ORDER BY Id LIMIT 3")
    before, after = clause
    res = org.query(f"SELECT Id FROM Account {before} ORDER BY Id LIMIT 3 {after}")
    assert res.ok, res.error
    assert res.records == plain.records and res.total_size == plain.total_size


def test_a_scope_that_needs_a_current_user_is_refused(org: LocalOrg) -> None:
    res = org.query("SELECT Id FROM Account USING SCOPE mine")
    assert not res.ok and "USING SCOPE everything" in str(res.error)


def test_sosl_with_snippet_is_answered_as_without(org: LocalOrg) -> None:
    plain = org.search("FIND {Acme} RETURNING Account(Id)")
    for snippet in ("WITH SNIPPET", "WITH SNIPPET (target_length=120)"):
        res = org.search(f"FIND {{Acme}} RETURNING Account(Id) {snippet} LIMIT 10")
        assert res.ok, res.error
        assert res.records == plain.records
