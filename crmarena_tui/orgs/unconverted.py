"""Fields of an imported org holding values the import left as stored, and the warning a query
that leans on them earns.

`org import` keeps a value it cannot convert exactly as stored (`snapshot_copy.py`), and lists the
field in its report, which the org keeps in `_sf_meta` (`import_report`). Such values do not behave
as their type: a datetime kept as text drops out of date filters and groups apart in
`CALENDAR_MONTH`. `LocalOrg` reads the list once (`read_unconverted`) and, for a query that
filters, groups or sorts on one of those fields (`used_fields`: WHERE, HAVING, GROUP BY, ORDER BY,
semi-joins, child subqueries, SOSL RETURNING clauses), puts a one-line `QueryResult.warning`.
The Episode shows it on a session's first such query only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from crmarena_tui.orgs.schema import ObjectDef
from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql.schema_index import SchemaIndex

WARNING_PREFIX = "Warning from the org: "
Key = tuple[str, str]  # (object, field) as the schema spells them


@dataclass(frozen=True, slots=True)
class Unconverted:
    object: str
    field: str
    type: str
    count: int
    examples: tuple[str, ...]

    @property
    def line(self) -> str:
        example = f" (e.g. {self.examples[0]!r})" if self.examples else ""
        return (
            f"{self.object}.{self.field} holds {self.count:,} {self.type} values the import kept "
            f"as text{example}"
        )


def read_unconverted(meta: dict[str, str]) -> dict[Key, Unconverted]:
    """The fields the stored import report lists as holding values left as stored."""
    text = meta.get("import_report")
    if not text:
        return {}
    try:
        objects = json.loads(text).get("objects") or []
        found = {
            (o["name"], p["field"]): Unconverted(
                o["name"], p["field"], p["type"], int(p["count"]), tuple(p.get("examples") or ())
            )
            for o in objects
            for p in o.get("problems") or []
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}
    return {k: v for k, v in found.items() if v.count}


def _path(expr: n.Expr | None) -> n.Path | None:
    while isinstance(expr, n.Call):
        expr = expr.arg
    return expr


def _resolve(index: SchemaIndex, obj: ObjectDef, path: n.Path) -> Key | None:
    rels = list(path.parts[:-1])
    if rels and rels[0].lower() == obj.name.lower() and index.parent(obj, rels[0]) is None:
        rels = rels[1:]
    for rel in rels:
        hit = index.parent(obj, rel)
        if hit is None:
            return None
        obj = hit[1]
    f = index.field(obj, path.parts[-1])
    return (obj.name, f.name) if f is not None else None


class _Walk:
    def __init__(self, index: SchemaIndex) -> None:
        self.index = index
        self.found: set[Key] = set()

    def expr(self, obj: ObjectDef, expr: n.Expr | None) -> None:
        path = _path(expr)
        key = _resolve(self.index, obj, path) if path is not None else None
        if key is not None:
            self.found.add(key)

    def condition(self, obj: ObjectDef, cond: n.Condition | None) -> None:
        if isinstance(cond, n.Compare):
            self.expr(obj, cond.lhs)
            if isinstance(cond.value, n.Query):  # a semi-join: its select filters too
                self.query(cond.value, selected=True)
        elif isinstance(cond, n.BoolOp):
            for item in cond.items:
                self.condition(obj, item)
        elif isinstance(cond, n.Not):
            self.condition(obj, cond.item)

    def clauses(
        self,
        obj: ObjectDef,
        select: Iterable[n.SelectItem | n.ChildSelect | n.TypeOf],
        where: n.Condition | None,
        order_by: Iterable[n.OrderItem],
        group_by: Iterable[n.Expr] = (),
        having: n.Condition | None = None,
        selected: bool = False,
    ) -> None:
        self.condition(obj, where)
        self.condition(obj, having)
        for e in group_by:
            self.expr(obj, e)
        for item in order_by:
            self.expr(obj, item.expr)
        for sel in select:
            if isinstance(sel, n.ChildSelect):
                rel = self.index.child(obj, sel.query.object)
                child = self.index.object(rel.child_object) if rel is not None else None
                if child is not None:
                    q = sel.query
                    self.clauses(child, (), q.where, q.order_by, q.group_by, q.having)
            elif selected and isinstance(sel, n.SelectItem):
                self.expr(obj, sel.expr)

    def query(self, q: n.Query, selected: bool = False) -> None:
        obj = self.index.object(q.object)
        if obj is not None:
            self.clauses(obj, q.select, q.where, q.order_by, q.group_by, q.having, selected)


def used_fields(index: SchemaIndex, statement: n.Query | n.Search) -> set[Key]:
    """The fields a parsed SOQL query or SOSL search filters, groups or sorts on."""
    walk = _Walk(index)
    if isinstance(statement, n.Query):
        walk.query(statement)
    else:
        for r in statement.returning:
            obj = index.object(r.object)
            if obj is not None:
                walk.clauses(obj, r.select or (), r.where, r.order_by)
    return walk.found


def warning_for(
    index: SchemaIndex, unconverted: dict[Key, Unconverted], statement: n.Query | n.Search
) -> str:
    """The warning for a statement ("" when it leans on no such field)."""
    hits = [unconverted[k] for k in sorted(used_fields(index, statement)) if k in unconverted]
    if not hits:
        return ""
    it = "it" if len(hits) == 1 else "them"
    return (
        f"{WARNING_PREFIX}{'; '.join(h.line for h in hits)}; this query filters, groups or sorts "
        f"on {it}, so those records may drop out of filters or group apart (see `crmarena-tui "
        "org info`)."
    )
