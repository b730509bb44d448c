"""JSON read from a file a user hands in (a result file, a study file), with the values SQLite,
the JSON export and the reports cannot hold refused, each named by where it is.

`json.loads` accepts `NaN`, `Infinity` and `1e400` (a float that is infinite), integers of any
size (SQLite's end at 2**63), escapes of lone surrogates (text no UTF-8 file or SQLite can hold),
and fails on deep nesting with a `RecursionError`. `loads` parses as `json.loads` does, then, only
when the text could hold such a value, walks the data to name the first: `JsonValueError(where,
problem)`, `where` as `entry 3, field agent_info.total_cost` (the top level's index or key, then
the path inside it). Whether it could is told by the parser itself, which hands every number and
constant it reads to `loads` (a few per item of a result file: the text's digits inside strings
are never looked at), and by one search for an escaped surrogate (`\\ud800`), which starts at
each backslash-u only. A regular expression over the whole text for both cost ten to twenty
times the parse itself.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

INT_LIMIT = 2**63  # SQLite's integers are 64-bit
LONG_INT = 19  # characters of an integer that may be out of range (2**63 has 19 digits)
# An escaped surrogate (a pair is fine; the walk tells a lone one)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


class JsonValueError(ValueError):
    """A value `loads` refuses: `where` it is and the `problem`."""

    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}" if where else problem)


def loads(text: str) -> Any:
    """`json.loads(text)`, refusing non-finite numbers, integers SQLite cannot hold, lone
    surrogates and nesting too deep to read (`JsonValueError`; a syntax error stays
    `json.JSONDecodeError`)."""
    suspect: list[str] = []  # numbers and constants that may be refused

    def integer(digits: str) -> int:
        if len(digits) >= LONG_INT:
            suspect.append(digits)
        return int(digits)

    def number(digits: str) -> float:
        value = float(digits)
        if not math.isfinite(value):  # (`1e400`)
            suspect.append(digits)
        return value

    def constant(name: str) -> float:  # (`NaN`, `Infinity`, `-Infinity`)
        suspect.append(name)
        return float(name)

    try:
        data = json.loads(text, parse_int=integer, parse_float=number, parse_constant=constant)
    except RecursionError:
        raise JsonValueError("", "nested too deeply (brackets within brackets)") from None
    if suspect or _SURROGATE_ESCAPE.search(text):
        found = first_bad_value(data)
        if found is not None:
            raise JsonValueError(*found)
    return data


def value_problem(value: Any) -> str | None:
    """What is wrong with one value, else None."""
    kind = type(value)
    if kind is float and not math.isfinite(value):
        return f"{value} is not a finite number"
    if kind is int and not -INT_LIMIT <= value < INT_LIMIT:
        return f"the number {str(value)[:24]}... is out of range"
    if kind is str and has_surrogate(value):
        return "holds a lone surrogate (\\ud800-\\udfff), which is not text"
    return None


def has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def first_bad_value(data: Any) -> tuple[str, str] | None:
    """(where, problem) of the first value `value_problem` refuses, keys included; a walk
    without recursion (the data may be nested as deep as `json` reads)."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        problem = value_problem(value)
        if problem is not None:
            return place(path), problem
        if isinstance(value, dict):
            for key, inner in reversed(list(value.items())):
                if has_surrogate(key):
                    return place((*path, repr(key))), "a key holds a lone surrogate"
                stack.append((inner, (*path, key)))
        elif isinstance(value, list):
            stack.extend((inner, (*path, k)) for k, inner in reversed(list(enumerate(value))))
    return None


def place(path: tuple[str | int, ...]) -> str:
    """Where a value is: `entry 3, field agent_info.total_cost` for the path (3, "agent_info",
    "total_cost"); `participants entry 0, field queue.0.task_idx` when the entry is in a list
    under a key; `field study.created_at` when no list holds it."""
    if not path:
        return "the top level"
    at = next((k for k, part in enumerate(path) if isinstance(part, int)), None)
    if at is None:
        return f"field {'.'.join(map(str, path))}"
    entry = " ".join([*map(str, path[:at]), f"entry {path[at]}"])
    rest = ".".join(map(str, path[at + 1 :]))
    return f"{entry}, field {rest}" if rest else entry
