"""Queries at the extremes of what a user can type (issue 28): numbers beyond every range, date
literals that leave the calendar, LIKE patterns SQLite refuses, characters with no UTF-8 form.
Each is answered as Salesforce answers, `NUMBER_OUTSIDE_VALID_RANGE` or `MALFORMED_QUERY` with
where it happened; none is an `UNKNOWN_EXCEPTION`, none raises, none changes the org file."""

from __future__ import annotations

import hashlib
import re
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crmarena_tui.orgs.base import execute
from crmarena_tui.orgs.local import LocalOrg
from tests.support.soql_fixture_support import build_fixture_org

RANGE, MQ, MS = "NUMBER_OUTSIDE_VALID_RANGE", "MALFORMED_QUERY", "MALFORMED_SEARCH"
TODAY = date(2024, 6, 1)
BIG = "9" * 25
HUGE = "9" * 5000
N_WORDS = [
    f"{side}_N_{fiscal}{unit}"
    for side in ("LAST", "NEXT")
    for fiscal in ("", "FISCAL_")
    for unit in ("DAYS", "WEEKS", "MONTHS", "QUARTERS", "YEARS")
] + [
    f"N_{fiscal}{unit}_AGO"
    for fiscal in ("", "FISCAL_")
    for unit in ("DAYS", "WEEKS", "MONTHS", "QUARTERS", "YEARS")
]

EXTREMES: list[tuple[str, str]] = [
    # whole numbers past 64 bits, and past what Python reads as text
    (f"SELECT Id FROM Case LIMIT {BIG}", RANGE),
    (f"SELECT Id FROM Case LIMIT {HUGE}", RANGE),
    ("SELECT Id FROM Case LIMIT 2147483648", RANGE),
    (f"SELECT Id FROM Case OFFSET {BIG}", RANGE),
    (f"SELECT Id FROM Account WHERE NumberOfEmployees > {BIG}", RANGE),
    (f"SELECT Id FROM Account WHERE NumberOfEmployees > -{BIG}", RANGE),
    (f"SELECT Id FROM Account WHERE NumberOfEmployees > +{BIG}", RANGE),
    (f"SELECT Id FROM Account WHERE NumberOfEmployees = {HUGE}", RANGE),
    (f"SELECT Id FROM Account WHERE NumberOfEmployees IN (1, {BIG})", RANGE),
    ("SELECT Id FROM Account WHERE NumberOfEmployees > 1e400", RANGE),
    ("SELECT Id FROM Account WHERE NumberOfEmployees > -1e400", RANGE),
    (f"SELECT Id FROM Account WHERE NumberOfEmployees > {HUGE}.5", RANGE),
    (f"SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = {BIG}", RANGE),
    (f"SELECT Id FROM Case WHERE CALENDAR_MONTH(CreatedDate) = {BIG}", RANGE),
    (f"SELECT Id FROM Case WHERE DAY_IN_MONTH(CreatedDate) = {BIG}", RANGE),
    (f"SELECT COUNT(Id) FROM Case GROUP BY Status HAVING COUNT(Id) > {BIG}", RANGE),
    (f"SELECT Id FROM Case WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c LIMIT {BIG})", RANGE),
    (f"SELECT Id, (SELECT Id FROM Cases LIMIT {BIG}) FROM Account", RANGE),
    (f"FIND {{acme}} RETURNING Account(Id LIMIT {BIG})", RANGE),
    (f"FIND {{acme}} RETURNING Account(Id) LIMIT {BIG}", RANGE),
    (f"FIND {{acme}} RETURNING Account(Id OFFSET {BIG})", RANGE),
    # date literals whose count leaves the calendar
    *[(f"SELECT Id FROM Case WHERE CreatedDate = {word}:{BIG}", RANGE) for word in N_WORDS],
    *[(f"SELECT Id FROM Case WHERE CreatedDate > {word}:100000000", RANGE) for word in N_WORDS],
    ("SELECT Id FROM Case WHERE CreatedDate = NEXT_N_YEARS:100000", RANGE),
    ("SELECT Id FROM Case WHERE CreatedDate = LAST_N_YEARS:100000", RANGE),
    ("SELECT Id FROM Case WHERE CreatedDate = NEXT_N_DAYS:100000000", RANGE),
    ("SELECT Id FROM Case WHERE DAY_ONLY(CreatedDate) = NEXT_N_MONTHS:2000000", RANGE),
    # dates and datetimes that are no dates
    ("SELECT Id FROM Case WHERE CreatedDate > 99999-01-01T00:00:00Z", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate > 2024-13-45T00:00:00Z", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate > 0000-01-01T00:00:00Z", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate > 2024-01-01T25:61:61Z", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate > 2024-01-01T00:00:00+99:00", MQ),
    ("SELECT Id FROM Contract WHERE StartDate > 2024-02-30", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:-5", MQ),
    # patterns
    ("SELECT Id FROM Case WHERE Subject LIKE '" + "_" * 60_000 + "'", MQ),
    ("SELECT Id FROM Case WHERE Subject LIKE '" + "a%" * 30_000 + "'", MQ),
    # characters with no UTF-8 form
    ("SELECT Id FROM Case WHERE Subject = '\ud800'", MQ),
    ("SELECT Id FROM Case WHERE Subject LIKE '%\udfff%'", MQ),
    ("SELECT Id\udc80 FROM Case", MQ),
    ("FIND {\ud800\ud800} RETURNING Case(Id)", MS),
    ("FIND {acme\udfff} RETURNING Account(Id)", MS),
]

# What is no error at all: a run of % is one %, leading zeros are no digits, big but finite.
ANSWERED = [
    "SELECT Id FROM Case WHERE Subject LIKE '" + "%" * 60_000 + "'",
    "SELECT Id FROM Case WHERE NOT Subject LIKE '" + "%" * 60_000 + "x'",
    "SELECT Id FROM Case LIMIT 2147483647",
    "SELECT Id FROM Account WHERE NumberOfEmployees > 0000000000000000000000000001",
    "SELECT Id FROM Account WHERE NumberOfEmployees > 1e300",
    "SELECT Id FROM Account WHERE NumberOfEmployees > 9223372036854775807",
    "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:700000",
    "SELECT Id FROM Case WHERE CreatedDate = NEXT_N_YEARS:7000",
    "SELECT Id FROM Case WHERE Subject = '\u00e9\u4e2d\U0001f600'",
]


def checksum(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def org_file(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("extremes")
    path = build_fixture_org(folder / "org.db")
    org = LocalOrg(path)
    before = (checksum(path), sorted(p.name for p in folder.iterdir()))
    yield org
    org.close()
    assert (checksum(path), sorted(p.name for p in folder.iterdir())) == before


def _ask(org: LocalOrg, text: str):
    return execute(org, text, today=TODAY)


def test_the_corpus_with_the_older_one_holds_over_150_queries() -> None:
    from tests.orgs.test_soql_errors import BAD_SOQL, BAD_SOSL

    assert len(EXTREMES) + len(ANSWERED) + len(BAD_SOQL) + len(BAD_SOSL) >= 150


@pytest.mark.parametrize(("text", "code"), EXTREMES, ids=[t[:60] for t, _ in EXTREMES])
def test_an_extreme_value_gets_salesforces_error(org_file, text: str, code: str) -> None:
    result = _ask(org_file, text)
    assert result.error is not None and result.error.startswith(f"{code}: "), result.error
    assert "Error:" not in result.error and "Python" not in result.error
    if code == RANGE:  # where: the line and column of the number
        assert re.search(r"at line \d+ column \d+$", result.error), result.error


@pytest.mark.parametrize("text", ANSWERED, ids=[t[:60] for t in ANSWERED])
def test_what_salesforce_answers_is_answered(org_file, text: str) -> None:
    result = _ask(org_file, text)
    assert result.error is None, result.error


def test_a_run_of_percent_signs_matches_what_one_does(org_file) -> None:
    one = _ask(org_file, "SELECT Id FROM Case WHERE Subject LIKE '%'")
    many = _ask(org_file, "SELECT Id FROM Case WHERE Subject LIKE '" + "%" * 60_000 + "'")
    assert one.error is None and many.records == one.records and one.total_size > 0


def test_the_position_points_at_the_number(org_file) -> None:
    text = f"SELECT Id FROM Case LIMIT {BIG}"
    error = _ask(org_file, text).error
    assert error is not None and error.endswith(f"at line 1 column {text.index(BIG) + 1}")


_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
_digits = st.text("0123456789", min_size=1, max_size=6000)
_numbers = st.one_of(
    _digits,
    st.builds(lambda s, d: s + d, st.sampled_from(["-", "+"]), _digits),
    st.builds(lambda a, b: f"{a}.{b}", _digits, _digits),
    st.builds(lambda a, e: f"{a}e{e}", _digits, st.integers(-100_000, 100_000)),
    st.sampled_from(["9223372036854775808", "-9223372036854775809", "1e308", "1.8e308"]),
)


@_SETTINGS
@given(
    number=_numbers,
    where=st.sampled_from(
        [
            "SELECT Id FROM Account WHERE NumberOfEmployees > {}",
            "SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = {}",
            "SELECT COUNT(Id) FROM Case GROUP BY Status HAVING COUNT(Id) > {}",
            "SELECT Id FROM Account WHERE NumberOfEmployees IN (1, {})",
        ]
    ),
)
def test_any_number_literal_is_answered_or_refused_in_salesforces_words(
    org_file, number: str, where: str
) -> None:
    result = _ask(org_file, where.format(number))
    assert result.error is None or not result.error.startswith("UNKNOWN_EXCEPTION"), result.error


@_SETTINGS
@given(
    word=st.sampled_from(N_WORDS),
    count=st.one_of(st.integers(0, 10**30), st.text("0123456789", min_size=1, max_size=400)),
    field=st.sampled_from(["CreatedDate", "ClosedDate", "DAY_ONLY(CreatedDate)"]),
)
def test_any_date_literal_count_is_answered_or_refused(org_file, word, count, field) -> None:
    result = _ask(org_file, f"SELECT Id FROM Case WHERE {field} >= {word}:{count}")
    assert result.error is None or result.error.split(":")[0] in (RANGE, MQ, "INVALID_FIELD"), (
        result.error
    )


@_SETTINGS
@given(
    limit=st.one_of(st.integers(0, 10**40), st.text("0123456789", min_size=1, max_size=300)),
    template=st.sampled_from(
        [
            "SELECT Id FROM Case LIMIT {}",
            "SELECT Id FROM Case OFFSET {}",
            "FIND {{acme}} RETURNING Account(Id LIMIT {})",
            "FIND {{acme}} RETURNING Account(Id) LIMIT {}",
        ]
    ),
)
def test_any_limit_is_answered_or_refused(org_file, limit, template: str) -> None:
    result = _ask(org_file, template.format(limit))
    assert result.error is None or not result.error.startswith("UNKNOWN_EXCEPTION"), result.error


@_SETTINGS
@given(
    pattern=st.lists(
        st.sampled_from(["%", "_", "a", "\\%", "\\_", "é", "\ud800", "'", "\\\\", "%" * 5000]),
        max_size=400,
    ).map("".join)
)
def test_any_like_pattern_is_answered_or_refused(org_file, pattern: str) -> None:
    pattern = pattern.replace("'", "\\'")
    result = _ask(org_file, f"SELECT Id FROM Case WHERE Subject LIKE '{pattern}'")
    assert result.error is None or result.error.split(":")[0] in (MQ,), result.error


@_SETTINGS
@given(text=st.text(min_size=1, max_size=200))
def test_any_unicode_in_a_literal_or_a_search_is_answered_or_refused(org_file, text: str) -> None:
    quoted = text.replace("\\", "\\\\").replace("'", "\\'")
    soql = _ask(org_file, f"SELECT Id FROM Case WHERE Subject = '{quoted}'")
    assert soql.error is None or not soql.error.startswith("UNKNOWN_EXCEPTION"), soql.error
    braces = text.replace("{", "").replace("}", "")
    sosl = _ask(org_file, f"FIND {{{braces}}} RETURNING Case(Id)")
    assert sosl.error is None or not sosl.error.startswith("UNKNOWN_EXCEPTION"), sosl.error
