"""SOQL (parsed) to one parameterised SQLite statement per query level, plus a shaping plan.

Identifiers in the emitted SQL come only from the schema (quoted), every value is a parameter,
and table aliases are generated (`t0`, `t1`, ...). A parent path becomes a LEFT JOIN shared by every
field that goes through it; a child subquery becomes a second statement keyed by the parents' Ids.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from crmarena_tui.orgs.schema import ObjectDef
from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql import rules
from crmarena_tui.orgs.soql.conditions import ConditionCompiler
from crmarena_tui.orgs.soql.errors import RELATIONSHIP_HINT, SoqlError, unknown_object
from crmarena_tui.orgs.soql.expand import expand_fields
from crmarena_tui.orgs.soql.functions import AGGREGATES, DATE_FUNCTIONS, PASSTHROUGH
from crmarena_tui.orgs.soql.schema_index import TEXT_TYPES, SchemaIndex, quote_ident
from crmarena_tui.orgs.soql.scope import Column, Scope
from crmarena_tui.orgs.soql.shape import (
    ChildSlot,
    FieldSlot,
    ParentSlot,
    Slot,
    converter,
    find_slot,
)
from crmarena_tui.orgs.soql.typeof import check_select, compile_typeof, refuse_outside_records

MAX_OFFSET = 2000
_COUNT = frozenset({"COUNT"})


@dataclass(slots=True)
class ChildPlan:
    """A child subquery: `head + "?, ?, ..." + tail` selects the children of a batch of parents."""

    key: str
    type_name: str
    head: str
    tail: str
    params: list[Any]
    slots: list[Slot]
    id_col: int
    fk_col: int
    limit: int | None
    offset: int | None


@dataclass(slots=True)
class Plan:
    sql: str
    params: list[Any]
    mode: Literal["records", "aggregate", "count"]
    type_name: str
    slots: list[Slot] = field(default_factory=list)
    id_col: int = 0
    children: list[ChildPlan] = field(default_factory=list)


class _Columns:
    def __init__(self) -> None:
        self.sql: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, sql: str) -> int:
        idx = self._index.get(sql)
        if idx is None:
            idx = self._index[sql] = len(self.sql)
            self.sql.append(sql)
        return idx


def _is_call(item: n.SelectItem | n.ChildSelect | n.TypeOf, names: Collection[str]) -> bool:
    return (
        isinstance(item, n.SelectItem)
        and isinstance(item.expr, n.Call)
        and item.expr.name.upper() in names
    )


class Translator:
    """`strict` (the default) refuses what Salesforce refuses (`rules`); lenient answers it."""

    def __init__(
        self, index: SchemaIndex, today: date, text: str = "", *, strict: bool = True
    ) -> None:
        self.ix = index
        self.today = today
        self.text = text
        self.strict = strict
        self._aliases = 0

    # ---- helpers shared with ConditionCompiler
    def new_alias(self) -> str:
        alias = f"t{self._aliases}"
        self._aliases += 1
        return alias

    def new_scope(self, obj: ObjectDef) -> Scope:
        return Scope(self.ix, obj, self.new_alias(), self.new_alias, strict=self.strict)

    def object(self, q: n.Query | n.Returning) -> ObjectDef:
        obj = self.ix.object(q.object)
        if obj is None:
            raise unknown_object(q.object, q.object_pos)
        return obj

    # ---- entry points
    def query(self, q: n.Query) -> Plan:
        obj = self.object(q)
        scope = self.new_scope(obj)
        select = q.select
        if any(_is_call(i, _COUNT) and i.expr.arg is None for i in select):  # type: ignore[union-attr]
            if len(select) != 1:
                raise SoqlError(
                    "MALFORMED_QUERY",
                    "COUNT() must be the only item in the SELECT list",
                    q.object_pos,
                )
            if self.strict:
                rules.check_count(q)
            return self._count(q, scope)
        if q.group_by or any(_is_call(i, AGGREGATES) for i in select):
            refuse_outside_records(select, "an aggregate query")
            return self._aggregate(q, scope)
        return self._records(q, scope)

    def returning(self, r: n.Returning, search: Callable[[Scope], tuple[str, list[Any]]]) -> Plan:
        """A SOSL RETURNING item (fields, or Id when none; filters, order, limit); `search` gives
        the search condition over the item's scope."""
        obj = self.object(r)
        scope = self.new_scope(obj)
        extra = search(scope)
        select = r.select or [n.SelectItem(n.Path(("Id",), r.object_pos))]
        q = n.Query(
            select, r.object, r.object_pos, r.where, [], None, r.order_by, r.limit, r.offset
        )
        if any(isinstance(i, (n.ChildSelect, n.TypeOf)) for i in select) or any(
            _is_call(i, AGGREGATES) or _is_call(i, DATE_FUNCTIONS) for i in select
        ):
            raise SoqlError(
                "MALFORMED_SEARCH", "RETURNING fields must be plain fields", r.object_pos
            )
        return self._records(q, scope, extra=extra)

    # ---- the three kinds of query
    def _records(
        self,
        q: n.Query,
        scope: Scope,
        *,
        fk: str | None = None,
        extra: tuple[str, list[Any]] | None = None,
    ) -> Plan:
        cols = _Columns()
        id_col = cols.add(f'{scope.alias}."Id"')
        slots: list[Slot] = []
        children: list[ChildPlan] = []
        check_select(q.select)
        for item in expand_fields(q, scope.obj):
            if isinstance(item, n.TypeOf):
                typeof = compile_typeof(scope, item, self.new_scope, cols.add)
                if find_slot(slots, typeof.key) is not None:
                    raise SoqlError(
                        "MALFORMED_QUERY", f"duplicate field selected: {typeof.key}", item.pos
                    )
                slots.append(typeof)
                continue
            if isinstance(item, n.ChildSelect):
                if fk is not None or extra is not None:
                    raise SoqlError(
                        "MALFORMED_QUERY", "nested child subqueries are not supported", item.pos
                    )
                key = self._child_key(scope.obj, item)
                if find_slot(slots, key) is not None:
                    raise SoqlError("MALFORMED_QUERY", f"duplicate field selected: {key}", item.pos)
                slots.append(ChildSlot(key, len(children)))
                if self.strict:
                    rules.check_child_offset(q, item.query, item.pos)
                children.append(self._child(scope.obj, item))
                continue
            if item.alias is not None:
                raise SoqlError(
                    "MALFORMED_QUERY",
                    "Only aggregate expressions use field aliasing",
                    item.expr.pos,
                )
            expr = item.expr
            while isinstance(expr, n.Call) and expr.name.upper() in PASSTHROUGH and expr.arg:
                expr = expr.arg
            if isinstance(expr, n.Call):
                scope.expr(expr)  # an unknown function or a bad argument fails here first
                raise SoqlError(
                    "MALFORMED_QUERY",
                    f"{expr.name} is only allowed in aggregate queries (with GROUP BY)",
                    expr.pos,
                )
            col = scope.resolve(expr)
            target = slots
            for rel, tobj, alias in col.chain:
                slot = find_slot(target, rel)
                if not isinstance(slot, ParentSlot):
                    slot = ParentSlot(rel, tobj.name, cols.add(f'{alias}."Id"'))
                    target.append(slot)
                target = slot.slots
            leaf = col.fdef.name  # type: ignore[union-attr]
            if find_slot(target, leaf) is not None:
                raise SoqlError(
                    "MALFORMED_QUERY", f"duplicate field selected: {expr.text}", expr.pos
                )
            target.append(FieldSlot(leaf, cols.add(col.sql), converter(col.type)))
        fk_col = cols.add(f"{scope.alias}.{quote_ident(fk)}") if fk else 0
        where, params = self._where(q, scope)
        if extra is not None:
            where.insert(0, extra[0])
            params = [*extra[1], *params]
        order = self._order(q, scope, {})
        head = f"SELECT {', '.join(cols.sql)} FROM {scope.from_sql} WHERE "
        if fk is not None:
            tail = "".join(f" AND {w}" for w in where) + order
            return Plan(
                "",
                [],
                "records",
                scope.obj.name,
                slots,
                id_col,
                [
                    ChildPlan(
                        "",
                        scope.obj.name,
                        head + f"{scope.alias}.{quote_ident(fk)} IN (",
                        ")" + tail,
                        params,
                        slots,
                        id_col,
                        fk_col,
                        q.limit,
                        q.offset,
                    )
                ],
            )
        sql, params = self._finish(head, where, params, order, q)
        return Plan(sql, params, "records", scope.obj.name, slots, id_col, children)

    def _aggregate(self, q: n.Query, scope: Scope) -> Plan:
        """An aggregate query. An alias names a result column and nothing else: Salesforce
        reads `ORDER BY n` or `HAVING n > 1` as a field called n ("Use Aliases with GROUP BY";
        HAVING's conditions use aggregate functions), so only the lenient org reads aliases."""
        groups = [scope.expr(g) for g in q.group_by]
        grouped = {g.sql for g in groups}
        if self.strict:
            for g, col in zip(q.group_by, groups, strict=True):
                rules.check_group(col.fdef, g.pos)
            rules.check_aggregate_limit(q)
        cols = _Columns()
        slots: list[Slot] = []
        aliases: dict[str, Column] = {}
        expr_n = 0
        for item in q.select:
            if not isinstance(item, n.SelectItem):  # a TYPEOF is refused before
                raise SoqlError(
                    "MALFORMED_QUERY",
                    "child subqueries are not allowed in aggregate queries",
                    item.pos,
                )
            col = scope.expr(item.expr, allow_aggregate=True)
            if not col.aggregate and col.sql not in grouped:
                raise SoqlError(
                    "MALFORMED_QUERY",
                    f"Field must be grouped or aggregated: {item.expr.text}",
                    item.expr.pos,
                )
            if item.alias is not None:
                key = item.alias
                if not self.strict:  # Salesforce reads an alias in no clause (`_aggregate`)
                    aliases[key.lower()] = col
            elif isinstance(item.expr, n.Call) and item.expr.name.upper() not in PASSTHROUGH:
                key = f"expr{expr_n}"
                expr_n += 1
            else:
                key = col.fdef.name if col.fdef is not None else col.label
            slots.append(FieldSlot(key, cols.add(col.sql), converter(col.type)))
        where, params = self._where(q, scope)
        tail = ""
        if groups:
            tail += " GROUP BY " + ", ".join(g.sql for g in groups)
        if q.having is not None:
            sql, hparams = ConditionCompiler(
                self, scope, having=True, aliases=aliases, grouped=grouped
            ).compile(q.having)
            tail += f" HAVING {sql}"
            params = [*params, *hparams]
        tail += self._order(q, scope, aliases, grouped=grouped)
        head = f"SELECT {', '.join(cols.sql)} FROM {scope.from_sql} WHERE "
        sql, params = self._finish(head, where, params, tail, q)
        return Plan(sql, params, "aggregate", "AggregateResult", slots)

    def _count(self, q: n.Query, scope: Scope) -> Plan:
        where, params = self._where(q, scope)
        tail = ""
        if q.group_by:
            tail += " GROUP BY " + ", ".join(scope.expr(g).sql for g in q.group_by)
        if q.having is not None:
            sql, hparams = ConditionCompiler(self, scope, having=True).compile(q.having)
            tail += f" HAVING {sql}"
            params = [*params, *hparams]
        if not tail and q.limit is None and q.offset is None:
            sql, params = self._finish(
                f"SELECT COUNT(*) FROM {scope.from_sql} WHERE ", where, params, "", q
            )
            return Plan(sql, params, "count", scope.obj.name)
        inner, params = self._finish(
            f"SELECT 1 FROM {scope.from_sql} WHERE ", where, params, tail, q
        )
        return Plan(f"SELECT COUNT(*) FROM ({inner})", params, "count", scope.obj.name)

    # ---- clauses
    def _where(self, q: n.Query, scope: Scope) -> tuple[list[str], list[Any]]:
        if q.where is None:
            return [], []
        if self.strict:
            rules.check_semi_join_placement(q.where)
        sql, params = ConditionCompiler(self, scope).compile(q.where)
        return [sql], params

    def _order(
        self,
        q: n.Query,
        scope: Scope,
        aliases: dict[str, Column],
        *,
        grouped: set[str] | None = None,
    ) -> str:
        """ORDER BY; `grouped` (the GROUP BY columns' SQL) in an aggregate query."""
        if not q.order_by:
            return ""
        parts = []
        for item in q.order_by:
            col = None
            if aliases and isinstance(item.expr, n.Path) and len(item.expr.parts) == 1:
                col = aliases.get(item.expr.parts[0].lower())
            if col is None:
                col = scope.expr(item.expr, allow_aggregate=grouped is not None)
                if self.strict:
                    rules.check_sort(col.fdef, item.expr.pos)
                    if grouped is not None and not col.aggregate and col.sql not in grouped:
                        raise rules.not_grouped(item.expr, ordered=True)
            sql = col.sql + (" COLLATE NOCASE" if col.type in TEXT_TYPES else "")
            nulls = item.nulls or ("last" if item.desc else "first")
            parts.append(f"{sql} {'DESC' if item.desc else 'ASC'} NULLS {nulls.upper()}")
        return " ORDER BY " + ", ".join(parts)

    def _finish(
        self, head: str, where: list[str], params: list[Any], tail: str, q: n.Query
    ) -> tuple[str, list[Any]]:
        sql = head + (" AND ".join(where) if where else "1") + tail
        if q.offset is not None and q.offset > MAX_OFFSET:
            raise SoqlError(
                "NUMBER_OUTSIDE_VALID_RANGE", f"Maximum SOQL offset allowed is {MAX_OFFSET}"
            )
        if q.limit is not None or q.offset is not None:
            sql += " LIMIT ? OFFSET ?"
            params = [*params, -1 if q.limit is None else q.limit, q.offset or 0]
        return sql, params

    # ---- child subqueries
    def _child_key(self, parent: ObjectDef, item: n.ChildSelect) -> str:
        rel = self.ix.child(parent, item.query.object)
        if rel is None:
            raise SoqlError(
                "INVALID_TYPE",
                f"Didn't understand relationship '{item.query.object}' "
                f"in FROM part of query call. {RELATIONSHIP_HINT}",
                item.pos,
            )
        return rel.name

    def _child(self, parent: ObjectDef, item: n.ChildSelect) -> ChildPlan:
        rel = self.ix.child(parent, item.query.object)
        assert rel is not None  # checked by _child_key
        obj = self.ix.object(rel.child_object)
        assert obj is not None
        q = item.query
        if q.group_by or any(_is_call(i, AGGREGATES) for i in q.select):
            raise SoqlError(
                "MALFORMED_QUERY",
                "aggregate functions are not allowed in a child subquery",
                item.pos,
            )
        plan = self._records(q, self.new_scope(obj), fk=rel.field)
        if q.offset is not None and q.offset > MAX_OFFSET:
            raise SoqlError(
                "NUMBER_OUTSIDE_VALID_RANGE", f"Maximum SOQL offset allowed is {MAX_OFFSET}"
            )
        child = plan.children[0]
        child.key = rel.name
        return child
