"""Compile SOQL/SOSL text into plans and run plans on an SQLite connection."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date
from typing import Any

from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql.errors import SoqlError, malformed
from crmarena_tui.orgs.soql.parser import parse_soql, parse_sosl
from crmarena_tui.orgs.soql.schema_index import TEXT_TYPES, SchemaIndex, quote_ident
from crmarena_tui.orgs.soql.scope import Scope
from crmarena_tui.orgs.soql.shape import build_aggregate, build_record, child_result
from crmarena_tui.orgs.soql.sosl import CompiledTerm, compile_term, search_condition
from crmarena_tui.orgs.soql.translate import ChildPlan, Plan, Translator

CHILD_BATCH = 500
SOSL_MAX_RECORDS = 2000
_SCOPE_TYPES = {"ALL": TEXT_TYPES, "SIDEBAR": TEXT_TYPES, "EMAIL": {"email"}, "PHONE": {"phone"}}


@dataclass(slots=True)
class SearchPlan:
    plans: list[Plan]
    limit: int


def compile_query(index: SchemaIndex, text: str, today: date, *, lenient: bool = False) -> Plan:
    """The plan of one SOQL statement; `lenient` answers what Salesforce refuses (`rules`)."""
    return Translator(index, today, text, strict=not lenient).query(parse_soql(text))


def run_plan(conn: sqlite3.Connection, plan: Plan) -> tuple[list[dict[str, Any]], int]:
    """The records of a compiled query and its totalSize."""
    rows = conn.execute(plan.sql, plan.params).fetchall()
    if plan.mode == "count":
        return [], int(rows[0][0]) if rows else 0
    if plan.mode == "aggregate":
        return [build_aggregate(r, plan.slots) for r in rows], len(rows)  # type: ignore[arg-type]
    children = None
    if plan.children:
        ids = [r[plan.id_col] for r in rows]
        children = [_fetch_children(conn, cp, ids) for cp in plan.children]
    records = [build_record(r, plan.slots, plan.type_name, plan.id_col, children) for r in rows]
    return records, len(records)


def _fetch_children(
    conn: sqlite3.Connection, cp: ChildPlan, parent_ids: list[Any]
) -> dict[Any, Any]:
    grouped: dict[Any, list[Any]] = {}
    ids = list(dict.fromkeys(i for i in parent_ids if i is not None))
    for start in range(0, len(ids), CHILD_BATCH):
        chunk = ids[start : start + CHILD_BATCH]
        sql = cp.head + ", ".join("?" * len(chunk)) + cp.tail
        for row in conn.execute(sql, [*chunk, *cp.params]):
            grouped.setdefault(row[cp.fk_col], []).append(row)
    lo = cp.offset or 0
    hi = None if cp.limit is None else lo + cp.limit
    return {
        pid: child_result([build_record(r, cp.slots, cp.type_name, cp.id_col) for r in rows[lo:hi]])
        for pid, rows in grouped.items()
    }


def _search_fields(index: SchemaIndex, scope: Scope, where: str) -> list[str]:
    obj = scope.obj
    if where == "NAME":
        fields = index.name_fields(obj)
    else:
        types = _SCOPE_TYPES.get(where, TEXT_TYPES)
        fields = [f for f in obj.fields if f.type in types]
    return [f"{scope.alias}.{quote_ident(f.name)}" for f in fields]


def compile_search(
    index: SchemaIndex, text: str, today: date, *, lenient: bool = False
) -> SearchPlan:
    try:
        search = parse_sosl(text)
        if search.quoted and not lenient:  # the API reads only FIND {term}; 'term' is Apex's
            raise malformed(text, "'", search.term_pos - 1, "MALFORMED_SEARCH")
        term = compile_term(search.term, search.term_pos)
        returning = search.returning or [
            n.Returning(o.name, search.term_pos) for o in index.schema.objects.values()
        ]
        tr = Translator(index, today, text, strict=not lenient)
        plans = [tr.returning(r, _condition(index, term, search.scope)) for r in returning]
    except SoqlError as exc:
        if exc.code == "MALFORMED_QUERY":
            exc.code = "MALFORMED_SEARCH"
        raise
    limit = min(search.limit, SOSL_MAX_RECORDS) if search.limit is not None else SOSL_MAX_RECORDS
    return SearchPlan(plans, limit)


def _condition(index: SchemaIndex, term: CompiledTerm, where: str):  # noqa: ANN202
    def make(scope: Scope) -> tuple[str, list[Any]]:
        columns = _search_fields(index, scope, where)
        if not columns:
            return "0", []
        return search_condition(term, columns)

    return make


def run_search(conn: sqlite3.Connection, plan: SearchPlan) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in plan.plans:
        remaining = plan.limit - len(out)
        if remaining <= 0:
            break
        records, _ = run_plan(conn, p)
        out.extend(records[:remaining])
    return out
