"""Fields the importer derives rather than copies: what Salesforce computes, and how dates read.

- `Name` on User, Contact and Lead is a compound field Salesforce composes from FirstName and
  LastName: first name, a space, last name; the last name alone when there is no first name. A
  snapshot that stores the parts but no `Name` column gets `Name` composed the same way
  (`composed_name`), so `Owner.Name` and `Contact.Name` answer as on Salesforce.
- A date or datetime column holding slash values (`07/06/2021 10:50:00 a. m.`) is read in one
  order for the whole column (`coerce_dates.column_order`), decided from all its distinct values
  before the rows are copied (`date_readings`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from crmarena_tui.orgs.coerce_dates import ColumnOrder, column_order
from crmarena_tui.orgs.soql.schema_index import quote_ident

COMPOSED_NAMES = frozenset({"User", "Contact", "Lead"})  # objects whose Name Salesforce composes
COMPOSED_HOW = "first name, a space, last name; the last name alone without a first name"


@dataclass(frozen=True, slots=True)
class Composed:
    """A column of the imported org computed from snapshot columns (an SQL expression over the
    snapshot's table), and the columns it reads."""

    sql: str
    sources: tuple[str, ...]


def _part(column: str) -> str:
    """A name part as text: NULL, and text of spaces only, count as no part."""
    return f"NULLIF(TRIM(CAST({quote_ident(column)} AS TEXT)), '')"


def composed_name(object_name: str, columns: list[str]) -> Composed | None:
    """How `Name` is composed for `object_name` from the snapshot's `columns`, or None when the
    object's Name is not composed or the snapshot lacks its LastName."""
    if object_name not in COMPOSED_NAMES:
        return None
    by_lower = {c.lower(): c for c in columns}
    first, last = by_lower.get("firstname"), by_lower.get("lastname")
    if last is None:
        return None
    if first is None:
        return Composed(_part(last), (last,))
    sql = f"COALESCE({_part(first)} || ' ' || {_part(last)}, {_part(last)}, {_part(first)})"
    return Composed(sql, (first, last))


def date_readings(
    conn: sqlite3.Connection, table: str, fields: Sequence[tuple[str, str, str]]
) -> dict[str, ColumnOrder]:
    """Field name -> the reading of its column's slash values, for the (field, type, column)
    triples of date and datetime fields whose column holds any."""
    out: dict[str, ColumnOrder] = {}
    for name, ftype, column in fields:
        if ftype not in ("date", "datetime"):
            continue
        col = quote_ident(column)
        values = [
            row[0]
            for row in conn.execute(
                f"SELECT DISTINCT {col} FROM {quote_ident(table)} "
                f"WHERE typeof({col}) = 'text' AND {col} LIKE '%/%/%'"
            )
        ]
        found = column_order(values)
        if found is not None:
            out[name] = found
    return out
