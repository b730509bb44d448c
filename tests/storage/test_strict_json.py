"""strict_json.loads: the values SQLite and the reports cannot hold are refused by where they
are, whatever part of the text gives them away; everything else reads as `json.loads` reads it."""

from __future__ import annotations

import json

import pytest

from crmarena_tui.storage import strict_json


@pytest.mark.parametrize(
    ("text", "where", "problem"),
    [
        ('[{"cost": NaN}]', "entry 0, field cost", "nan is not a finite number"),
        ('[{"cost": -Infinity}]', "entry 0, field cost", "-inf is not a finite number"),
        ('[1, {"cost": [2, 1e400]}]', "entry 1, field cost.1", "inf is not a finite number"),
        ('[{"id": 9223372036854775808}]', "entry 0, field id", "out of range"),
        ('[{"id": -9223372036854775809}]', "entry 0, field id", "out of range"),
        ('[{"text": "a\\ud800b"}]', "entry 0, field text", "lone surrogate"),
    ],
)
def test_a_value_sqlite_cannot_hold_is_refused_where_it_is(
    text: str, where: str, problem: str
) -> None:
    with pytest.raises(strict_json.JsonValueError) as caught:
        strict_json.loads(text)
    assert caught.value.where == where
    assert problem in caught.value.problem


def test_values_that_only_look_suspect_read_as_json_loads_reads_them() -> None:
    text = json.dumps(
        [
            {
                "id": 9223372036854775807,  # (19 digits, in range)
                "low": -9223372036854775808,
                "tiny": 0.0,  # (written 1e-400 below: 0.0, finite)
                "pair": "\U0001f600",  # (an escaped surrogate pair)
                "digits": "0123456789012345678901234 NaN Infinity 1e400",  # (inside a string)
                "price": 12.5,
            }
        ]
    ).replace('"tiny": 0.0', '"tiny": 1e-400')
    assert "\\ud83d" in text
    assert "1e-400" in text
    assert strict_json.loads(text) == json.loads(text)
