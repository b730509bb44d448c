"""Field types for snapshot columns the benchmark schema does not know, read from their values.

A column's type is the narrowest that every sampled value coerces to without failing: boolean words
(never bare 0/1 unless the name reads like a flag), whole numbers, numbers, datetimes, dates; a
column named like a reference (`...Id`, `...Id__c`) holding Salesforce Ids is a reference, aimed at
the object whose key prefix those Ids carry. Anything else is text (textarea when values are long or
span lines). A declared type `sf:<field type>` (what `org snapshot` writes from a live org's
describe, ` text` after it for text) is taken as it is; another declared SQL type decides only when there are no values.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from crmarena_tui.orgs.coerce import FAILED, coercer
from crmarena_tui.orgs.schema import FieldDef, FieldType, ObjectDef
from crmarena_tui.orgs.schema_standard import standard_field
from crmarena_tui.orgs.soql.schema_index import quote_ident

SAMPLE = 200
_ID = re.compile(r"^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$")
_BOOL_WORDS = frozenset({"true", "false"})
_FLAG_NAME = re.compile(r"^(Is|Has|Can|Allow)[A-Z_]")
NOT_IN_SCHEMA = "Not in the benchmark schema: kept from the snapshot"
FIELD_TYPES = frozenset(FieldType.__args__)  # type: ignore[attr-defined]


def sample_values(conn: sqlite3.Connection, table: str, column: str) -> list[Any]:
    """Up to SAMPLE non-empty values of a column."""
    col = quote_ident(column)
    sql = (
        f"SELECT {col} FROM {quote_ident(table)} WHERE {col} IS NOT NULL AND {col} != '' "
        f"LIMIT {SAMPLE}"
    )
    return [row[0] for row in conn.execute(sql)]


def _all_coerce(values: Sequence[Any], field_type: str) -> bool:
    coerce = coercer(field_type)
    return all(coerce(v)[1] != FAILED for v in values)


def _declared(decl: str) -> FieldType:
    decl = decl.upper()
    if "INT" in decl:
        return "int"
    if any(word in decl for word in ("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL")):
        return "double"
    if "BOOL" in decl:
        return "boolean"
    return "string"


def infer_type(name: str, decl: str, values: Sequence[Any]) -> FieldType:
    """The field type a column's name, declared type and sampled values suggest."""
    if name.lower() == "id":
        return "id"
    said = decl[3:].split()[0].lower() if decl.lower().startswith("sf:") and decl[3:] else ""
    if said in FIELD_TYPES:  # `sf:string text`, `sf:int`: a live org's describe said so
        return said  # type: ignore[return-value]
    if not values:
        return _declared(decl)
    texts = [v.strip().lower() for v in values if isinstance(v, str)]
    if len(texts) == len(values) and set(texts) <= _BOOL_WORDS:
        return "boolean"
    if _FLAG_NAME.match(name) and _all_coerce(values, "boolean"):
        return "boolean"
    if (name.endswith("Id") or name.endswith("Id__c")) and all(
        isinstance(v, str) and _ID.match(v) for v in values
    ):
        return "reference"
    padded = any(isinstance(v, str) and re.match(r"\s*0\d", v) for v in values)
    if all(isinstance(v, int) for v in values) or (
        not padded and all(isinstance(v, str) for v in values) and _all_coerce(values, "int")
    ):
        return "int"
    if padded:  # zip codes, phone numbers: text that happens to be digits
        return "string"
    if _all_coerce(values, "double"):
        return "double"
    strings = [v for v in values if isinstance(v, str)]
    if len(strings) == len(values):
        if all(len(v.strip()) == 10 for v in strings) and _all_coerce(strings, "date"):
            return "date"
        if all(len(v.strip()) > 10 for v in strings) and _all_coerce(strings, "datetime"):
            return "datetime"
        if any(len(v) > 255 or "\n" in v for v in strings):
            return "textarea"
    return "string"


def _target(values: Sequence[Any], objects: Sequence[ObjectDef]) -> str | None:
    """The one object whose key prefix every sampled Id carries, if there is exactly one."""
    prefixes = {str(v)[:3] for v in values}
    if len(prefixes) != 1:
        return None
    prefix = prefixes.pop()
    hits = [o.name for o in objects if o.key_prefix and o.key_prefix == prefix]
    return hits[0] if len(hits) == 1 else None


def standard_column(object_name: str, name: str, values: Sequence[Any]) -> FieldDef | None:
    """The definition of a column that is a Salesforce standard field beyond the benchmark's
    (`schema_standard`), when its sampled values fit that field's type: a reference then reaches
    its parent even when the values alone cannot tell which object that is."""
    standard = standard_field(object_name, name)
    if standard is None or not _all_coerce(values, standard.type):
        return None
    what = standard.description[:1].lower() + standard.description[1:]
    return replace(standard, description=f"{NOT_IN_SCHEMA} (a standard Salesforce field: {what})")


def infer_field(
    name: str, decl: str, values: Sequence[Any], objects: Sequence[ObjectDef] = ()
) -> FieldDef:
    """A FieldDef for a column the schema does not know (described as such)."""
    ftype = infer_type(name, decl, values)
    description = f"{NOT_IN_SCHEMA} (type read from its values: {ftype})"
    if ftype != "reference":
        return FieldDef(name, ftype, description)
    rel = name[:-2] if name.endswith("Id") else name[:-3] + "__r"
    return FieldDef(
        name,
        "reference",
        description,
        reference_to=_target(values, objects),
        relationship_name=rel or None,
    )


def key_prefix_of(values: Sequence[Any]) -> str:
    """The key prefix the Ids of a table share ('' when they do not look like Salesforce Ids)."""
    ids = [str(v) for v in values if isinstance(v, str) and _ID.match(v)]
    prefixes = {v[:3] for v in ids}
    return prefixes.pop() if len(prefixes) == 1 else ""
