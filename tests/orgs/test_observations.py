"""An observation's records read back whichever protocol wrote it: JSON, or upstream's repr."""

from __future__ import annotations

from collections import OrderedDict

from crmarena_tui.orgs.observations import observation_records, parse_observation


def test_json_and_upstream_repr_read_as_the_same_records() -> None:
    nested = OrderedDict(
        [("attributes", OrderedDict([("type", "User"), ("url", "/u/1")])), ("Name", "Ana")]
    )
    records = [{"Id": "500x", "Owner": nested, "Days": -2.5, "IsClosed": True, "Note": None}]
    as_repr = repr(records)
    assert "OrderedDict(" in as_repr or "'Name': 'Ana'" in as_repr
    expected = [
        {
            "Id": "500x",
            "Owner": {"attributes": {"type": "User", "url": "/u/1"}, "Name": "Ana"},
            "Days": -2.5,
            "IsClosed": True,
            "Note": None,
        }
    ]
    assert observation_records(as_repr) == expected
    assert observation_records('[{"Id": "500x"}]') == [{"Id": "500x"}]
    assert observation_records("[]") == []


def test_the_python_3_10_form_of_ordereddict_reads_too() -> None:
    text = "[{'Id': '1', 'Account': OrderedDict([('Name', 'Acme')])}]"
    assert observation_records(text) == [{"Id": "1", "Account": {"Name": "Acme"}}]


def test_code_and_errors_are_not_data() -> None:
    assert parse_observation("[__import__('os').system('true')]") is None
    assert parse_observation("[OrderedDict(x=1)]") is None
    assert parse_observation("MALFORMED_QUERY: unexpected token") is None
    assert observation_records('{"count": 3}') is None
