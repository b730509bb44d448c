"""Malformed and hostile queries: each gets Salesforce's error code, none raises, none writes."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crmarena_tui.orgs.base import execute
from crmarena_tui.orgs.local import LocalOrg
from tests.support.soql_fixture_support import build_fixture_org
from tests.support.soql_rules_support import ALLOWED, RULES, Rule

MQ, MS = "MALFORMED_QUERY", "MALFORMED_SEARCH"
IF, IT, OP = "INVALID_FIELD", "INVALID_TYPE", "INVALID_QUERY_FILTER_OPERATOR"

BAD_SOQL: list[tuple[str, str]] = [
    ("SELECT Id FROM Account; DROP TABLE Account", MQ),
    ("SELECT Id FROM Account;", MQ),
    ("SELECT Id FROM Account -- trailing comment", MQ),
    ("SELECT Id FROM Account /* comment */", MQ),
    ("SELECT Id FROM Account WHERE Name = 'x' OR 1=1 --'", MQ),
    ("SELECT Id FROM Account WHERE Name = 'x'' OR ''1''=''1'", MQ),
    ("DELETE FROM Account", MQ),
    ("UPDATE Account SET Name = 'x'", MQ),
    ("INSERT INTO Account (Id) VALUES ('x')", MQ),
    ("DROP TABLE Account", MQ),
    ("PRAGMA writable_schema = 1", MQ),
    ("ATTACH DATABASE '/tmp/evil.db' AS evil", MQ),
    ("SELECT Id FROM Account WHERE Name = 'x'; ATTACH DATABASE '/tmp/evil.db' AS evil", MQ),
    ("SELECT Id FROM Account UNION SELECT Id FROM Contact", MQ),
    ("SELECT Id FROM Account WHERE Id IN (SELECT Id FROM Account; DELETE FROM Account)", MQ),
    ('SELECT "Id" FROM Account', MQ),
    ("SELECT `Id` FROM Account", MQ),
    ('SELECT Id FROM Account WHERE Name = "x"', MQ),
    ("SELECT * FROM Account", MQ),
    ("SELECT Id FROM Account WHERE", MQ),
    ("SELECT Id FROM", MQ),
    ("", MQ),
    ("   \n  ", MQ),
    ("SELECT Id, FROM Account", MQ),
    ("SELECT FROM Account", MQ),
    ("SELECT Id FROM Account WHERE Name = 'unterminated", MQ),
    ("SELECT Id FROM Account WHERE Name == 'x'", MQ),
    ("SELECT Id FROM Account LIMIT -1", MQ),
    ("SELECT Id FROM Account LIMIT 'x'", MQ),
    ("SELECT Id FROM Account WHERE Name = Closed", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate = TODAY:3", MQ),
    ("SELECT Id FROM Account ORDER BY", MQ),
    ("SELECT Id FROM Account WHERE Id IN ()", MQ),
    ("SELECT Id, Name Name FROM Account", MQ),
    ("SELECT Id, Id FROM Account", MQ),
    ("SELECT Name, COUNT(Id) FROM Account", MQ),
    ("SELECT Industry, Name FROM Account GROUP BY Industry", MQ),
    ("SELECT COUNT(), Name FROM Account", MQ),
    ("SELECT Id FROM Account WHERE COUNT(Id) > 1", MQ),
    ("SELECT Id FROM Account WHERE Name = 'x\\q'", MQ),
    ("SELECT Id FROM Account WHERE sqlite_version() = 'x'", MQ),
    ("SELECT load_extension('evil') FROM Account", MQ),
    ("SELECT CALENDAR_YEAR(CreatedDate) FROM Case", MQ),
    ("SELECT Id FROM Account WHERE (Name = 'x'", MQ),
    ("SELECT (SELECT Id FROM Contacts), COUNT(Id) FROM Account", MQ),
    ("SELECT Id, (SELECT Id, (SELECT Id FROM Cases) FROM Contacts) FROM Account", MQ),
    ("SELECT Id FROM Account WHERE Id IN (SELECT Id, Name FROM Contact)", MQ),
    ("SELECT Id FROM _sf_meta", MQ),
    ("SELECT Id FROM Case WHERE CreatedDate > 2024-13-45", MQ),
    ("SELECT Id FROM Account WHERE Name = '" + "a" * 200_000 + "'", MQ),
    ("SELECT Id FROM Account WHERE Name = '\x00'; DROP TABLE Account", MQ),
    ("SELECT Id FROM Account WHERE Name = 'a' AND Industry = 'b' OR Phone = 'c'", MQ),
    ("SELECT Id FROM Account WHERE Name = 'a' OR Industry = 'b' AND Phone = 'c'", MQ),
    ("SELECT Id FROM Account WHERE Name = 'a' AND NOT Industry = 'b'", MQ),
    ("SELECT Id FROM Account WHERE Name NOT LIKE 'a%'", MQ),
    ("SELECT Id FROM Account OFFSET 5000", "NUMBER_OUTSIDE_VALID_RANGE"),
    ("SELECT Id FROM Account WHERE " + "NOT " * 3000 + "Name = 'x'", "QUERY_TOO_COMPLICATED"),
    ("SELECT Id FROM Account WHERE " + " OR ".join(["Name = 'x'"] * 3000), "QUERY_TOO_COMPLICATED"),
    ("SELECT Foo FROM Account", IF),
    ("SELECT Id FROM Account WHERE Foo = 'x'", IF),
    ("SELECT Id, Owner.Name FROM Account", IF),
    ("SELECT Id FROM Case WHERE Owner.Nmae = 'x'", IF),
    ("SELECT Id, Owner FROM Case", IF),
    ("SELECT Id FROM Account WHERE NumberOfEmployees = 'ten'", IF),
    ("SELECT Id FROM Account WHERE Name = 5", IF),
    ("SELECT Id FROM Opportunity WHERE CloseDate = '2024-01-01'", IF),
    ("SELECT Id FROM User WHERE IsActive = 'true'", IF),
    ("SELECT Id FROM Account WHERE Name = TODAY", IF),
    ("SELECT SUM(Name) FROM Account", IF),
    ("SELECT Id FROM Account ORDER BY Nope", IF),
    ("SELECT CALENDAR_YEAR(Name) FROM Account GROUP BY CALENDAR_YEAR(Name)", IF),
    ("SELECT Id FROM sqlite_master", IT),
    ("SELECT Id FROM sqlite_temp_master", IT),
    ("SELECT Id FROM Foo", IT),
    ("SELECT Id, (SELECT Id FROM Nope) FROM Account", IT),
    ("SELECT Id FROM Account WHERE Id IN (SELECT Id FROM Nope)", IT),
    ("SELECT Id FROM User WHERE IsActive > true", OP),
    ("SELECT Id FROM Account WHERE NumberOfEmployees LIKE '5%'", OP),
    ("SELECT Id FROM Account WHERE Id = 'not-an-id'", OP),
    ("SELECT Id FROM Account WHERE Id = 'x''; DROP TABLE Account; --'", MQ),
    ("SELECT Id FROM Account WHERE NumberOfEmployees INCLUDES ('5')", OP),
    ("SELECT Id FROM Account WHERE NumberOfEmployees > null", OP),
]

BAD_SOSL: list[tuple[str, str]] = [
    ("FIND {a}", MS),
    ("FIND {}", MS),
    ("FIND {*}", MS),
    ("FIND {acme", MS),
    ("FIND {acme} RETURNING", MS),
    ("FIND {acme}; DROP TABLE Account", MS),
    ('FIND {"unterminated phrase}', MS),
    ("FIND {(acme} RETURNING Account", MS),
    ("FIND {acme OR} RETURNING Account", MS),
    ("FIND {acme} IN BOGUS FIELDS", MS),
    ("FIND {acme} RETURNING Account(Name WHERE)", MS),
    ("FIND {acme} RETURNING Account(Name) LIMIT x", MS),
    ("FIND {acme} RETURNING Nope(Id)", IT),
    ("FIND {acme} RETURNING Account(Nope)", IF),
    ("FIND {acme} RETURNING Account(Name WHERE Nope = 'x')", IF),
    ("FIND {acme} RETURNING Account(Name, (SELECT Id FROM Contacts))", MS),
    ("FIND {" + "x" * 30_000 + "}", MS),
]


def checksum(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def org_file(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("hostile")
    path = build_fixture_org(folder / "org.db")
    org = LocalOrg(path)
    before = (checksum(path), sorted(p.name for p in folder.iterdir()))
    yield org, path
    org.close()
    assert (checksum(path), sorted(p.name for p in folder.iterdir())) == before


@pytest.mark.parametrize(("text", "code"), BAD_SOQL, ids=[t[:70] for t, _ in BAD_SOQL])
def test_bad_soql_gets_salesforce_error(org_file, text: str, code: str) -> None:
    org, path = org_file
    before = checksum(path)
    res = org.query(text)
    assert res.error_code == code, res.error
    assert res.records == [] and not res.ok
    assert checksum(path) == before


@pytest.mark.parametrize(("text", "code"), BAD_SOSL, ids=[t[:70] for t, _ in BAD_SOSL])
def test_bad_sosl_gets_salesforce_error(org_file, text: str, code: str) -> None:
    org, path = org_file
    res = org.search(text)
    assert res.error_code == code, res.error
    assert res.kind == "search"


@pytest.mark.parametrize("rule", RULES, ids=[r.query[:70] for r in RULES])
def test_strict_org_refuses_what_salesforce_refuses(org_file, rule: Rule) -> None:
    """One query per rule (each checked against the page `rule.doc` names)."""
    org, _ = org_file
    assert not org.lenient  # strict is the default
    res = execute(org, rule.query)
    assert res.error_code == rule.code, (rule.doc, res.error)
    assert rule.message in (res.error or ""), rule.doc
    assert res.records == [] and res.error_offset is not None
    assert 0 <= res.error_offset < len(rule.query)


@pytest.mark.parametrize("text", ALLOWED, ids=[t[:70] for t in ALLOWED])
def test_strict_org_answers_what_salesforce_allows(org_file, text: str) -> None:
    org, _ = org_file
    res = execute(org, text)
    assert res.ok, res.error


def _worded(query: str, column: int, message: str, code: str = "MALFORMED_QUERY") -> str:
    """Salesforce's wording of an error it places on a one-line query."""
    return f"{code}: \n{query}\n{' ' * (column - 1)}^\nERROR at Row:1:Column:{column}\n{message}"


def test_syntax_errors_name_the_token_and_position(org_file) -> None:
    org, _ = org_file
    text = "SELECT Id FROM Account WHERE Name = 'a' DELETE"
    res = org.query(text)
    assert res.error == _worded(text, 41, "unexpected token: 'DELETE'")
    assert res.error_offset == 40
    assert org.query("SELECT Id FROM").error == _worded(
        "SELECT Id FROM", 15, "unexpected token: <EOF>"
    )
    # Salesforce wants parentheses when AND and OR mix, and around NOT beside them
    text = "SELECT Id FROM Account WHERE Name = 'a' AND Industry = 'b' OR Phone = 'c'"
    assert org.query(text).error == _worded(text, 60, "unexpected token: 'OR'")
    text = "SELECT Id FROM Account WHERE Name = 'a' AND NOT Industry = 'b'"
    assert org.query(text).error == _worded(text, 45, "unexpected token: 'NOT'")


def test_the_connection_itself_refuses_writes_attach_pragma_and_foreign_functions(org_file) -> None:
    org, path = org_file
    with org._session() as conn:
        _refuses_everything_but_reads(conn, path)


def _refuses_everything_but_reads(conn: sqlite3.Connection, path: Path) -> None:
    for sql in (
        "DELETE FROM Account",
        "UPDATE Account SET Name = 'x'",
        "CREATE TABLE t (x)",
        "INSERT INTO Account (Id) VALUES ('x')",
        "DROP TABLE Account",
        f"ATTACH DATABASE '{path.parent / 'evil.db'}' AS evil",
        "PRAGMA writable_schema = 1",
        "PRAGMA query_only = 0",
        "SELECT load_extension('x')",
        "SELECT sqlite_version()",
        "SELECT readfile('/etc/passwd')",
        "BEGIN IMMEDIATE",
        "VACUUM",
    ):
        with pytest.raises(sqlite3.DatabaseError):
            conn.execute(sql).fetchall()
    assert conn.execute('SELECT COUNT(*) FROM "Account"').fetchone() == (6,)
    assert not (path.parent / "evil.db").exists()


TOKENS = [
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "LIKE",
    "INCLUDES",
    "EXCLUDES",
    "ORDER",
    "BY",
    "GROUP",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "ASC",
    "DESC",
    "NULLS",
    "FIRST",
    "LAST",
    "NULL",
    "TRUE",
    "Id",
    "Name",
    "Account",
    "Case",
    "Contact",
    "Owner.Name",
    "Account.Name",
    "CreatedDate",
    "Amount",
    "Cases",
    "Opportunity",
    "IsActive",
    "Status",
    "COUNT()",
    "COUNT(Id)",
    "SUM(Amount)",
    "COUNT",
    "CALENDAR_MONTH(CreatedDate)",
    "DAY_ONLY(CreatedDate)",
    ",",
    "(",
    ")",
    "=",
    "!=",
    "<",
    ">=",
    "<>",
    "'x'",
    "'Acme%'",
    "'001000000000001AAA'",
    "5",
    "-1",
    "2.5",
    "2024-01-01",
    "2024-01-01T00:00:00Z",
    "TODAY",
    "LAST_N_DAYS:3",
    "THIS_QUARTER",
    "N_DAYS_AGO",
    ";",
    "--",
    "/*",
    "*/",
    '"',
    "`",
    "DROP",
    "TABLE",
    "PRAGMA",
    "ATTACH",
    "DELETE",
    "sqlite_master",
    "FIND",
    "{acme}",
    "{a*}",
    "RETURNING",
    "\\",
    "'",
    "{",
    "}",
    ":",
    ".",
    "\n",
    "\x00",
    "é",
    "?",
]


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=25), st.booleans())
def test_token_soup_never_raises_and_never_writes(
    org_file, tokens: list[str], prefix: bool
) -> None:
    org, _ = org_file
    text = ("SELECT " if prefix else "") + " ".join(tokens)
    for res in (org.query(text), org.search(text)):
        assert res.error is None or res.error_code != "UNKNOWN_EXCEPTION", res.error


FIELDS = [
    "Id",
    "Name",
    "Subject",
    "Owner.Name",
    "Account.Name",
    "CreatedDate",
    "Amount",
    "IsActive",
    "NumberOfEmployees",
    "CloseDate",
    "Status",
    "AccountId",
    "Nope",
]
OPS = ["=", "!=", "<", "<=", ">", ">=", "LIKE", "IN", "NOT IN", "INCLUDES", "EXCLUDES"]
VALUES = [
    "'x'",
    "'Acme%'",
    "5",
    "2.5",
    "null",
    "true",
    "TODAY",
    "LAST_N_DAYS:7",
    "2024-05-01",
    "2024-05-01T10:00:00Z",
    "('a', 'b')",
    "(1, 2)",
    "(SELECT AccountId FROM Contact)",
    "NEXT_N_MONTHS:2",
]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(["Account", "Case", "Opportunity", "User", "Contact"]),
    st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3),
    st.sampled_from(FIELDS),
    st.sampled_from(OPS),
    st.sampled_from(VALUES),
    st.booleans(),
)
def test_well_formed_random_queries_never_raise(
    org_file, obj, fields, lhs, op, value, grouped
) -> None:
    org, _ = org_file
    if op in ("IN", "NOT IN", "INCLUDES", "EXCLUDES") and not value.startswith("("):
        value = f"({value})"
    text = f"SELECT {', '.join(fields)} FROM {obj} WHERE {lhs} {op} {value}"
    if grouped:
        text = f"SELECT {fields[0]}, COUNT(Id) FROM {obj} WHERE {lhs} {op} {value} GROUP BY {fields[0]}"
    res = org.query(text)
    assert res.error is None or res.error_code != "UNKNOWN_EXCEPTION", (text, res.error)
