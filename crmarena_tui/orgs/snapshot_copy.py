"""Copy one snapshot table into the org file, coercing every value and counting what changed.

Rows keep their order. A value that cannot be coerced is written exactly as stored (its column's
affinity may still store a numeric text as a number) and counted with a few examples in the report;
no value is dropped. Text that reads as a null ('None', 'null', 'nan', ...) in an Id, reference,
date, number or boolean field becomes NULL and is counted apart (`ObjectReport.nulled`). A composed
field (`snapshot_fields.Composed`) is computed in the SELECT from the snapshot's columns. A row
whose Id repeats an earlier row's cannot be kept (Id is the primary key): those rows are counted
and a few of their Ids named.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from crmarena_tui.orgs.coerce import FAILED, REWRITTEN, coercer
from crmarena_tui.orgs.import_report import FieldProblem, ObjectReport
from crmarena_tui.orgs.snapshot_fields import Composed
from crmarena_tui.orgs.soql.schema_index import quote_ident

if TYPE_CHECKING:
    from crmarena_tui.orgs.snapshot_import import TablePlan


def _made_id(prefix: str, rowid: int, to_18: Callable[[str], str]) -> str:
    """A Salesforce-shaped Id for a row that has none: key prefix + zero-padded row number."""
    return to_18((prefix or "000")[:3] + str(rowid).rjust(12, "0")[-12:])


def copy_table(
    src: sqlite3.Connection,
    dst: sqlite3.Connection,
    plan: TablePlan,
    to_18: Callable[[str], str],
) -> None:
    """Copy `plan`'s table from `src` into its object's table in `dst`, filling `plan.report`."""
    rep, obj = plan.report, plan.obj
    made_id = plan.columns[0] is None
    selected = [
        c.sql if isinstance(c, Composed) else quote_ident(c) for c in plan.columns if c is not None
    ]
    select = ", ".join((["rowid"] if made_id else []) + selected)
    cursor = src.execute(f"SELECT {select} FROM {quote_ident(rep.table)}")
    fields = obj.fields
    readings = plan.readings
    coercers = [
        coercer(f.type, readings[f.name].order) if f.name in readings else coercer(f.type)
        for f in fields
    ]
    rewritten = [0] * len(fields)
    nulled = [0] * len(fields)
    problems: list[FieldProblem | None] = [None] * len(fields)
    read = 0

    def rows() -> Iterator[list[Any]]:
        nonlocal read
        for row in cursor:
            read += 1
            if made_id:
                row = (_made_id(obj.key_prefix, row[0], to_18), *row[1:])
            values: list[Any] = []
            append = values.append
            for i, value in enumerate(row):
                new, status = coercers[i](value)
                if status:
                    if status == REWRITTEN:
                        if new is None and type(value) is str and value.strip():
                            nulled[i] += 1  # a null word; an empty string is a plain rewrite
                        else:
                            rewritten[i] += 1
                    elif status == FAILED:
                        found = problems[i]
                        if found is None:
                            found = problems[i] = _problem(plan, fields[i].name, fields[i].type)
                        found.add(value)
                append(new)
            yield values

    names = ", ".join(quote_ident(f.name) for f in fields)
    marks = ", ".join("?" for _ in fields)
    dst.executemany(
        f"INSERT OR IGNORE INTO {quote_ident(obj.name)} ({names}) VALUES ({marks})", rows()
    )
    rep.rows_read = read
    rep.rows_kept = dst.execute(f"SELECT COUNT(*) FROM {quote_ident(obj.name)}").fetchone()[0]
    rep.rewritten = {f.name: n for f, n in zip(fields, rewritten, strict=True) if n}
    rep.nulled = {f.name: n for f, n in zip(fields, nulled, strict=True) if n}
    if made_id:
        rep.rewritten.pop("Id", None)
    rep.problems = [p for p in problems if p is not None]
    if rep.rows_kept < rep.rows_read:
        id_column = plan.columns[0]
        _note_duplicates(src, rep, id_column if isinstance(id_column, str) else None)
    nulls = dst.execute(f"SELECT COUNT(*) FROM {quote_ident(obj.name)} WHERE Id IS NULL")
    count = nulls.fetchone()[0]
    if count:
        rep.notes.append(f"{count:,} rows have no Id (kept; they cannot be looked up by Id)")


def _problem(plan: TablePlan, name: str, ftype: str) -> FieldProblem:
    """The problem record of one field, with its column's reason when its slash dates were left
    as text."""
    reading = plan.readings.get(name)
    if reading is None or reading.converted:
        return FieldProblem(name, ftype)
    shape = f"{reading.values:,} distinct values of the form {reading.form}"
    return FieldProblem(name, ftype, reason=f"{shape}, left as stored: {reading.reason}")


def _note_duplicates(src: sqlite3.Connection, rep: ObjectReport, id_column: str | None) -> None:
    lost = rep.rows_read - rep.rows_kept
    shown = ""
    if id_column is not None:
        col = quote_ident(id_column)
        ids = [
            str(r[0])
            for r in src.execute(
                f"SELECT {col} FROM {quote_ident(rep.table)} WHERE {col} IS NOT NULL "
                f"GROUP BY {col} HAVING COUNT(*) > 1 LIMIT 3"
            )
        ]
        shown = f" (e.g. {', '.join(ids)})" if ids else ""
    rep.notes.append(
        f"{lost:,} rows repeat the Id of an earlier row and were left out{shown}: an Id names one "
        "record"
    )
