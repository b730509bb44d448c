"""Errors in Salesforce's style: a code, a message and where in the query text it happened.

Salesforce's API words a query error it can place (`PLACED`) as the code, then the offending line
of the query, a caret under the offending character, `ERROR at Row:r:Column:c` (1-based) and the
explanation, each on its own line; upstream's connector showed that text to its agents as
`CODE: message`. `SoqlError.worded` gives that text for the local org, so an agent sees what the
live org would have shown.
"""

from __future__ import annotations

import re

INVALID_FIELD_HINT = (
    "If you are attempting to use a custom field, be sure to append the '__c' after the custom "
    "field name. Please reference your WSDL or the describe call for the appropriate names."
)
INVALID_TYPE_HINT = (
    "If you are attempting to use a custom object, be sure to append the '__c' after the entity "
    "name. Please reference your WSDL or the describe call for the appropriate names."
)
RELATIONSHIP_HINT = (
    "If you are attempting to use a custom relationship, be sure to append the '__r' after the "
    "custom relationship name. Please reference your WSDL or the describe call for the appropriate "
    "names."
)

# the codes whose API message carries the query line, the caret and `ERROR at Row:r:Column:c`
PLACED = frozenset(
    {"INVALID_FIELD", "INVALID_TYPE", "MALFORMED_QUERY", "INVALID_QUERY_FILTER_OPERATOR"}
)
WHOLE_LINE = 80  # a line up to this long is shown whole
CONTEXT = 41  # else about this many characters either side of the error, cut at whole words
_GAP = re.compile(r"[\s,]+")


class SoqlError(Exception):
    """A query the org refuses: `code` is Salesforce's error code (MALFORMED_QUERY, ...)."""

    def __init__(self, code: str, message: str, offset: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.offset = offset

    @property
    def text(self) -> str:
        return f"{self.code}: {self.message}"

    def worded(self, query: str) -> str:
        """`CODE: message` as Salesforce's API words it for `query`, the text `offset` counts in:
        with the line, the caret and the row and column when the code is one Salesforce places."""
        if self.offset is None or self.code not in PLACED:
            return self.text
        return f"{self.code}: \n{placement(query, self.offset)}\n{self.message}"


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def placement(query: str, offset: int) -> str:
    """The offending line of `query` (a window of a long one), a caret line under `offset` and
    `ERROR at Row:r:Column:c`, as Salesforce's messages begin."""
    row, col = line_col(query, offset)
    start = query.rfind("\n", 0, max(0, min(offset, len(query)))) + 1
    end = query.find("\n", start)
    line = query[start : len(query) if end == -1 else end]
    shown, caret = _window(line, col - 1)
    return f"{shown}\n{' ' * caret}^\nERROR at Row:{row}:Column:{col}"


def _window(line: str, at: int) -> tuple[str, int]:
    """`line`, or the words of a long one within `CONTEXT` characters of `at`; and the caret's
    position in what is shown. Where Salesforce cuts a long line is not documented: this window
    matches the messages seen in public reports, not necessarily to the word."""
    if len(line) <= WHOLE_LINE:
        return line, at
    first, last = max(0, at - CONTEXT), min(len(line), at + CONTEXT)
    if first > 0 and not _GAP.match(line, first - 1):  # drop the cut word before the first gap
        gap = _GAP.search(line, first)
        first = gap.end() if gap and gap.end() <= at else first
    if last < len(line):  # drop the cut word after the last gap
        gaps = [g for g in _GAP.finditer(line, at, last + 1) if g.start() > at]
        last = gaps[-1].start() if gaps else last
    return line[first:last], at - first


def malformed(text: str, token: str, offset: int, code: str = "MALFORMED_QUERY") -> SoqlError:
    shown = token if token == "<EOF>" else repr(token)
    if code in PLACED:  # the row and column come before the message (`SoqlError.worded`)
        return SoqlError(code, f"unexpected token: {shown}", offset)
    line, col = line_col(text, offset)
    return SoqlError(code, f"unexpected token: {shown} at line {line} column {col}", offset)


def no_such_column(field: str, obj: str, offset: int | None = None) -> SoqlError:
    return SoqlError(
        "INVALID_FIELD", f"No such column '{field}' on entity '{obj}'. {INVALID_FIELD_HINT}", offset
    )


def bad_relationship(name: str, offset: int | None = None) -> SoqlError:
    return SoqlError(
        "INVALID_FIELD",
        f"Didn't understand relationship '{name}' in field path. {RELATIONSHIP_HINT}",
        offset,
    )


def unknown_object(name: str, offset: int | None = None) -> SoqlError:
    return SoqlError(
        "INVALID_TYPE", f"sObject type '{name}' is not supported. {INVALID_TYPE_HINT}", offset
    )
