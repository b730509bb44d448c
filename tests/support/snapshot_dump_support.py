"""Write an org file as an upstream-shaped snapshot: plain tables, values as a naive dump keeps them.

This is the shape `org import` reads (one table per object named by its API name, columns named by
field API names, datetimes as Salesforce strings), with the storage choices a dump might make left
open (`DumpStyle`): booleans as words or 0/1, numbers as text, empty strings for nulls, 15-character
Ids, untyped columns, datetimes in a locale form or as epoch milliseconds, and compound names left
out (no `Name` on User, Contact and Lead, only its parts). A helper of the tests and of
`benchmarks/bench_org_import.py`, which build snapshots with it; the package never calls it.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from crmarena_tui.orgs.schema import FieldDef, read_schema
from crmarena_tui.orgs.soql.schema_index import quote_ident
from crmarena_tui.settings.sqlite_readonly import open_readonly


@dataclass(frozen=True, slots=True)
class DumpStyle:
    booleans: Literal["words", "ints"] = "words"  # 'true'/'false' or 1/0
    numbers: Literal["native", "text"] = "native"  # 12.5 or '12.5'
    nulls: Literal["null", "empty"] = "null"  # NULL or ''
    columns: Literal["untyped", "text", "typed"] = "untyped"  # the declared column types
    short_ids: bool = False  # Ids in their 15-character form
    # datetimes as Salesforce writes them, as a Spanish-locale client does
    # (`07/06/2021 10:50:00 a. m.`), as a US one does (`06/07/2021 10:50 AM`: no seconds), or as
    # epoch milliseconds
    datetimes: Literal["salesforce", "spanish", "us", "epoch_ms"] = "salesforce"
    compound_names: bool = True  # False: no Name column on User, Contact and Lead


def _declared(f: FieldDef, style: DumpStyle) -> str:
    if style.columns == "untyped":
        return ""
    if style.columns == "text":
        return " TEXT"
    return " " + f.sql_type


COMPOUND_NAMES = ("User", "Contact", "Lead")  # objects whose Name Salesforce composes


def _datetime(value: str, style: DumpStyle) -> Any:
    moment = datetime.strptime(value[:23], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)
    if style.datetimes == "epoch_ms":
        ms = round(moment.timestamp() * 1000)
        return str(ms) if style.numbers == "text" else ms
    hour = moment.hour % 12 or 12
    if style.datetimes == "us":
        return f"{moment:%m/%d/%Y} {hour}:{moment:%M} {'AM' if moment.hour < 12 else 'PM'}"
    return f"{moment:%d/%m/%Y} {hour}:{moment:%M:%S} {'a. m.' if moment.hour < 12 else 'p. m.'}"


def _dump_value(value: Any, f: FieldDef, style: DumpStyle) -> Any:
    if value is None:
        return "" if style.nulls == "empty" else None
    if f.type == "datetime" and style.datetimes != "salesforce" and isinstance(value, str):
        return _datetime(value, style)
    if f.type == "boolean":
        flag = bool(value)
        return ("true" if flag else "false") if style.booleans == "words" else int(flag)
    if f.type in ("int", "double", "currency", "percent") and style.numbers == "text":
        return str(value)
    if f.type in ("id", "reference") and style.short_ids and isinstance(value, str):
        return value[:15]
    return value


def dump_snapshot(
    org_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    style: DumpStyle | None = None,
) -> Path:
    """Write the org file at `org_path` as a snapshot at `out` (replaced) and return its path."""
    style = style or DumpStyle()
    out = Path(out)
    out.unlink(missing_ok=True)
    src = open_readonly(org_path)
    dst = sqlite3.connect(out)
    try:
        schema = read_schema(src)
        dst.execute("PRAGMA journal_mode=OFF")
        with dst:
            for obj in schema.objects.values():
                fields = [
                    f
                    for f in obj.fields
                    if style.compound_names or f.name != "Name" or obj.name not in COMPOUND_NAMES
                ]
                cols = ", ".join(quote_ident(f.name) + _declared(f, style) for f in fields)
                dst.execute(f"CREATE TABLE {quote_ident(obj.name)} ({cols})")
                names = ", ".join(quote_ident(f.name) for f in fields)
                marks = ", ".join("?" for _ in fields)
                rows = src.execute(f"SELECT {names} FROM {quote_ident(obj.name)}")
                dst.executemany(
                    f"INSERT INTO {quote_ident(obj.name)} VALUES ({marks})",
                    (
                        [_dump_value(v, f, style) for v, f in zip(row, fields, strict=True)]
                        for row in rows
                    ),
                )
    finally:
        src.close()
        dst.close()
    return out
