"""Snapshot values into the org's stored forms: worked examples per field type, and the types
read for columns the schema does not know."""

from __future__ import annotations

import pytest

from crmarena_tui.orgs.coerce import FAILED, REWRITTEN, SAME, coercer
from crmarena_tui.orgs.coerce_dates import SPANISH_FORM, column_order
from crmarena_tui.orgs.snapshot_infer import infer_field, infer_type

CASES = [
    # (type, stored, expected value, status)
    ("datetime", "2021-06-07T10:50:00.000+0000", "2021-06-07T10:50:00.000+0000", SAME),
    ("datetime", "2021-06-07T10:50:00Z", "2021-06-07T10:50:00.000+0000", REWRITTEN),
    ("datetime", "2021-06-07T12:50:00.000+02:00", "2021-06-07T10:50:00.000+0000", REWRITTEN),
    ("datetime", "2021-06-07 10:50:00", "2021-06-07T10:50:00.000+0000", REWRITTEN),
    ("datetime", "2021-06-07 10:50:00.250+00:00", "2021-06-07T10:50:00.250+0000", REWRITTEN),
    ("datetime", "2021-06-07", "2021-06-07T00:00:00.000+0000", REWRITTEN),
    ("datetime", 1623063000, "2021-06-07T10:50:00.000+0000", REWRITTEN),
    ("datetime", 1623063000000, "2021-06-07T10:50:00.000+0000", REWRITTEN),
    ("datetime", "", None, REWRITTEN),
    ("datetime", "yesterday", "yesterday", FAILED),
    ("datetime", "2021-02-30T10:00:00Z", "2021-02-30T10:00:00Z", FAILED),
    # slash forms read alone: day first when the form says so or the first number exceeds 12
    ("datetime", "07/06/2021 10:50:00 a. m.", "2021-06-07T10:50:00.000+0000", REWRITTEN),
    ("datetime", "07/06/2021 12:05:09 p.\u00a0m.", "2021-06-07T12:05:09.000+0000", REWRITTEN),
    ("datetime", "07/06/2021 12:05:09 a. m.", "2021-06-07T00:05:09.000+0000", REWRITTEN),
    ("datetime", "06/07/2021 10:50 PM", "2021-06-07T22:50:00.000+0000", REWRITTEN),
    ("datetime", "25/06/2021 10:50", "2021-06-25T10:50:00.000+0000", REWRITTEN),
    ("datetime", "06/07/2021 13:50 PM", "06/07/2021 13:50 PM", FAILED),
    ("datetime", "1623063000000", "2021-06-07T10:50:00.000+0000", REWRITTEN),
    ("datetime", "None", None, REWRITTEN),
    ("date", "07/06/2021 10:50:00 a. m.", "2021-06-07", REWRITTEN),
    ("date", "1623063000000", "2021-06-07", REWRITTEN),
    ("date", "2024-03-01", "2024-03-01", SAME),
    ("date", "2024-03-01T00:00:00.000+0000", "2024-03-01", REWRITTEN),
    ("date", "3/1/2024", "2024-03-01", REWRITTEN),
    ("date", "2024-3-1", "2024-03-01", REWRITTEN),
    ("date", "31/02/2024", "31/02/2024", FAILED),
    ("boolean", 1, 1, SAME),
    ("boolean", "true", 1, REWRITTEN),
    ("boolean", "FALSE", 0, REWRITTEN),
    ("boolean", 0.0, 0, REWRITTEN),
    ("boolean", "None", None, REWRITTEN),
    ("boolean", "maybe", "maybe", FAILED),
    ("int", 12, 12, SAME),
    ("int", "12", 12, REWRITTEN),
    ("int", 12.0, 12, REWRITTEN),
    ("int", "1,200", 1200, REWRITTEN),
    ("int", 12.5, 12.5, FAILED),
    ("currency", 12.5, 12.5, SAME),
    ("currency", "12.50", 12.5, REWRITTEN),
    ("currency", "$1,234.50", 1234.5, REWRITTEN),
    ("percent", "15%", 15.0, REWRITTEN),
    ("double", "nan", None, REWRITTEN),
    ("double", "about 5k", "about 5k", FAILED),
    ("id", "001Dm00000ABCDEFGH", "001Dm00000ABCDEFGH", SAME),
    ("reference", "500Ak00000Xy1Zq", "500Ak00000Xy1ZqIAJ", REWRITTEN),
    ("reference", "", None, REWRITTEN),
    ("reference", "null", None, REWRITTEN),
    ("reference", "not-an-id", "not-an-id", FAILED),
    ("string", "Acme", "Acme", SAME),
    ("string", "", None, REWRITTEN),
    ("string", "None", "None", SAME),  # text stays text, even when it reads like a null
    ("phone", 5551234.0, "5551234", REWRITTEN),
    ("textarea", b"caf\xc3\xa9", "café", REWRITTEN),
    ("string", None, None, SAME),
]


@pytest.mark.parametrize(("ftype", "stored", "expected", "status"), CASES)
def test_values_are_coerced_to_the_org_form(ftype: str, stored, expected, status: int) -> None:
    assert coercer(ftype)(stored) == (expected, status)


@pytest.mark.parametrize(
    ("values", "order", "form"),
    [
        (["07/06/2021 10:50:00 a. m.", "01/02/2021 1:00:00 p. m."], "dmy", SPANISH_FORM),
        (["13/06/2021 10:50", "01/02/2021 09:00"], "dmy", "DD/MM/YYYY HH:MM:SS"),
        (["06/13/2021 10:50 AM", "01/02/2021 9:00 PM"], "mdy", "MM/DD/YYYY HH:MM AM"),
        (["06/07/2021 10:50 AM", "01/02/2021 9:00 PM"], "undecided", "NN/NN/YYYY HH:MM AM"),
        (["13/06/2021", "06/13/2021"], "undecided", "NN/NN/YYYY"),
    ],
    ids=["spanish", "day-above-12-first", "day-above-12-second", "ambiguous", "inconsistent"],
)
def test_a_columns_slash_order_is_read_from_all_its_values(
    values: list[str], order: str, form: str
) -> None:
    found = column_order(["2021-06-07T10:50:00.000+0000", None, *values])
    assert found is not None and (found.order, found.values, found.form) == (order, 2, form)
    convert = coercer("datetime", found.order)
    statuses = {convert(v)[1] for v in values}
    assert statuses == ({REWRITTEN} if found.converted else {FAILED})
    assert column_order(["2021-06-07", 12, "Acme"]) is None


def test_an_ambiguous_value_is_read_in_its_columns_order() -> None:
    assert coercer("datetime", "dmy")("06/07/2021 10:50 AM")[0] == "2021-07-06T10:50:00.000+0000"
    assert coercer("datetime", "mdy")("06/07/2021 10:50 AM")[0] == "2021-06-07T10:50:00.000+0000"
    assert coercer("date", "dmy")("06/07/2021") == ("2021-07-06", REWRITTEN)
    assert coercer("date", "undecided")("06/07/2021") == ("06/07/2021", FAILED)
    assert coercer("date", "undecided")("2021-07-06") == ("2021-07-06", SAME)


def test_the_case_safe_suffix_of_a_15_character_id_is_salesforces() -> None:
    assert coercer("id")("001Dm000003kUk3")[0] == "001Dm000003kUk3IAE"


@pytest.mark.parametrize(
    ("name", "decl", "values", "expected"),
    [
        ("Id", "", ["a01000000000001AAA"], "id"),
        ("Flag", "", ["true", "false", "TRUE"], "boolean"),
        ("IsActive", "", [1, 0, 1], "boolean"),
        ("Count", "", [1, 0, 1], "int"),
        ("Seats", "", ["12", "7"], "int"),
        ("Zip", "", ["02139", "10001"], "string"),
        ("Budget", "", ["1200.5", "3"], "double"),
        ("When", "", ["2024-03-01"], "date"),
        ("At", "", ["2024-03-01T10:00:00.000+0000", "2024-03-01 11:00:00"], "datetime"),
        ("Notes", "", ["line one\nline two"], "textarea"),
        ("Name", "", ["Acme", "12"], "string"),
        ("Seats", "INTEGER", [], "int"),
        ("Blank", "", [], "string"),
        ("CampaignId", "", ["701000000000001AAA", "701000000000002"], "reference"),
    ],
)
def test_types_of_unknown_columns_are_read_from_their_values(
    name: str, decl: str, values: list, expected: str
) -> None:
    assert infer_type(name, decl, values) == expected


def test_an_inferred_reference_aims_at_the_object_its_ids_name() -> None:
    from crmarena_tui.orgs.reference_schema import reference_schema

    objects = list(reference_schema().objects.values())
    f = infer_field("BuyerId__c", "", ["001000000000001AAA", "001000000000002AAA"], objects)
    assert (f.type, f.reference_to, f.relationship_name) == ("reference", "Account", "BuyerId__r")
    assert f.description.startswith("Not in the benchmark schema")
    mixed = infer_field("WhoId", "", ["001000000000001AAA", "003000000000002AAA"], objects)
    assert (mixed.type, mixed.reference_to, mixed.relationship_name) == ("reference", None, "Who")
