"""SOSL: FIND {term} [IN ... FIELDS] RETURNING Obj(fields WHERE ... ORDER BY ... LIMIT n) [LIMIT n]."""

from __future__ import annotations

import re
import sqlite3

import pytest

from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.reference_schema import reference_schema
from tests.support.soql_fixture_support import A, K, build_fixture_org

TEXT_TYPES = {"string", "textarea", "email", "phone", "url", "picklist"}


@pytest.fixture(scope="module")
def org_and_raw(tmp_path_factory: pytest.TempPathFactory):
    path = build_fixture_org(tmp_path_factory.mktemp("sosl") / "org.db")
    org = LocalOrg(path)
    raw = sqlite3.connect(path)
    yield org, raw
    org.close()
    raw.close()


def ids(res) -> list[str]:
    assert res.error is None, res.error
    assert res.kind == "search" and res.total_size == len(res.records)
    return [r["Id"] for r in res.records]


def oracle(raw: sqlite3.Connection, word: str) -> set[tuple[str, str]]:
    """(type, Id) of every record with `word` as a whole word in one of its text fields."""
    pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)
    found = set()
    for obj in reference_schema().objects.values():
        cols = [f.name for f in obj.fields if f.type in TEXT_TYPES]
        if not cols:
            continue
        sql = f'SELECT Id, {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{obj.name}"'
        for row in raw.execute(sql):
            if any(v is not None and pattern.search(str(v)) for v in row[1:]):
                found.add((obj.name, row[0]))
    return found


@pytest.mark.parametrize(
    "word",
    [
        "battery",
        "Globex",
        "acme",
        "screen",
        "flicker",
        "policy",
        "customer",
        "wifi",
        "replacement",
        "Closed",
        "High",
    ],
)
def test_one_word_finds_whole_words_in_every_object(org_and_raw, word: str) -> None:
    org, raw = org_and_raw
    res = org.search(f"FIND {{{word}}}")
    assert res.error is None, res.error
    got = {(r["attributes"]["type"], r["Id"]) for r in res.records}
    expected = oracle(raw, word)
    assert expected and got == expected
    assert all(set(r) == {"attributes", "Id"} for r in res.records)


CASE_IDS: list[tuple[str, list[int]]] = [
    ("FIND {battery} RETURNING Case(Id)", [1, 4, 8, 14]),
    ("FIND {BATTERY} RETURNING Case", [1, 4, 8, 14]),
    ("FIND {batter} RETURNING Case", []),
    ("FIND {batter*} RETURNING Case", [1, 4, 8, 14]),
    ("FIND {fl?cker} RETURNING Case", [2, 9]),
    ('FIND {"screen flicker"} RETURNING Case', [2, 9]),
    ('FIND {"flicker screen"} RETURNING Case', []),
    ("FIND {screen AND flicker*} RETURNING Case", [2, 9]),
    ("FIND {screen flicker*} RETURNING Case", [2, 9]),
    ("FIND {login OR flicker} RETURNING Case", [2, 3, 7, 9]),
    ("FIND {battery AND NOT swell*} RETURNING Case", [1, 8, 14]),
    ("FIND {(login OR screen) AND NOT dead} RETURNING Case", [2, 3, 7, 9]),
    ("FIND {o'brien} RETURNING Case", [16]),
    ("FIND {50%} RETURNING Case", [14]),
    ("FIND {battery} RETURNING Case(Id WHERE Status = 'Closed')", [1, 8]),
    ("FIND {battery} RETURNING Case(Id WHERE CreatedDate = THIS_MONTH)", [1, 4]),
    ("FIND {battery} IN NAME FIELDS RETURNING Case(Id)", [1, 4, 8, 14]),
    ("FIND {customer} IN NAME FIELDS RETURNING Case(Id)", []),
    ("FIND {customer} IN ALL FIELDS RETURNING Case(Id)", [1, 16]),
]


@pytest.mark.parametrize(("text", "expected"), CASE_IDS, ids=[t for t, _ in CASE_IDS])
def test_search_terms(org_and_raw, text: str, expected: list[int]) -> None:
    org, _ = org_and_raw
    assert sorted(ids(org.search(text))) == [K(n) for n in expected]


def test_scopes_pick_the_fields(org_and_raw) -> None:
    org, _ = org_and_raw
    res = org.search("FIND {acme} IN NAME FIELDS RETURNING Account(Name), Contact(Name)")
    assert [r["Name"] for r in res.records] == ["Acme Corp"]
    res = org.search(
        "FIND {acme.com} IN EMAIL FIELDS RETURNING Contact(Name ORDER BY Name), "
        "Lead(Name ORDER BY Name)"
    )
    assert [(r["attributes"]["type"], r["Name"]) for r in res.records] == [
        ("Contact", "Jane Roe"),
        ("Contact", "John Doe"),
        ("Lead", "Ann Lee"),
        ("Lead", "Hal Ivy"),
    ]
    res = org.search("FIND {555-0100} IN PHONE FIELDS RETURNING Account(Name), User(Name)")
    assert [r["Name"] for r in res.records] == ["Acme Corp"]
    assert ids(org.search("FIND {Enterprise} IN PHONE FIELDS RETURNING Account")) == []


def test_returning_fields_filters_order_and_limits(org_and_raw) -> None:
    org, _ = org_and_raw
    res = org.search(
        "FIND {acme} RETURNING Account(Name, Industry WHERE Industry = 'Technology'), "
        "Opportunity(Name, Account.Name)"
    )
    assert res.records[0] == {
        "attributes": {"type": "Account", "url": f"/services/data/v62.0/sobjects/Account/{A(1)}"},
        "Name": "Acme Corp",
        "Industry": "Technology",
    }
    assert res.records[1]["Name"] == "Acme expansion"
    assert res.records[1]["Account"]["Name"] == "Acme Corp"
    assert len(res.records) == 2
    res = org.search("FIND {battery} RETURNING Case(Subject ORDER BY Subject DESC LIMIT 2)")
    assert [r["Subject"] for r in res.records] == ["Battery swelling", "Battery recall"]
    res = org.search("FIND {battery} RETURNING Case(Subject), Knowledge__kav(Title) LIMIT 5")
    assert len(res.records) == 5 and res.records[-1]["attributes"]["type"] == "Knowledge__kav"
    res = org.search("FIND {battery} RETURNING Knowledge__kav(Title), Case(Id) LIMIT 2")
    assert [r["attributes"]["type"] for r in res.records] == ["Knowledge__kav", "Case"]


def test_search_response_shape_and_observation(org_and_raw) -> None:
    org, _ = org_and_raw
    res = org.search("FIND {Globex} RETURNING Account(Name)")
    assert res.to_response() == {"searchRecords": res.records}
    assert res.observation() == '[{"Name": "Globex"}]'


def test_every_word_of_a_term_must_match(org_and_raw) -> None:
    org, _ = org_and_raw
    assert ids(org.search("FIND {ACME CORP} RETURNING Account")) == [A(1)]
    assert ids(org.search("FIND {acme globex} RETURNING Account")) == []
