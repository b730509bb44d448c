"""Errors in Salesforce's style: a code, a message and where in the query text it happened."""

from __future__ import annotations

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


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def malformed(text: str, token: str, offset: int, code: str = "MALFORMED_QUERY") -> SoqlError:
    line, col = line_col(text, offset)
    shown = token if token == "<EOF>" else repr(token)
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
