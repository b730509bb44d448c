"""WHERE and HAVING conditions as parameterised SQLite SQL, with Salesforce's null semantics.

Salesforce conditions are two-valued: a null field is simply unequal to every value, so `!=`,
`NOT IN`, `EXCLUDES` and `NOT (...)` keep records whose field is null. SQL is three-valued, so NOT is
pushed down to the comparisons (De Morgan) and every negated comparison becomes
`(x IS NULL OR NOT (comparison))`. Values only ever travel as parameters.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from crmarena_tui.orgs.salesforce_ids import to_18
from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql import rules
from crmarena_tui.orgs.soql.dates import (
    TAKES_N,
    day_start,
    literal_kind,
    literal_range,
    sf_datetime,
)
from crmarena_tui.orgs.soql.errors import SoqlError, line_col, malformed
from crmarena_tui.orgs.soql.schema_index import (
    DATE_TYPES,
    ID_TYPES,
    NUMBER_TYPES,
    TEXT_TYPES,
)
from crmarena_tui.orgs.soql.scope import Column, Scope
from crmarena_tui.orgs.soql.typeof import refuse_outside_records

if TYPE_CHECKING:
    from crmarena_tui.orgs.soql.translate import Translator

_ID_RE = re.compile(r"^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$")
_SF_TYPE = {
    "string": "string",
    "textarea": "string",
    "email": "string",
    "phone": "string",
    "url": "string",
    "picklist": "string",
    "id": "id",
    "reference": "id",
    "int": "int",
    "double": "double",
    "currency": "double",
    "percent": "double",
    "boolean": "boolean",
    "date": "date",
    "datetime": "dateTime",
}
_FLIP = {"and": "or", "or": "and"}
MAX_LIKE_PATTERN = 50_000  # SQLite's limit on a LIKE pattern, in bytes

Sql = tuple[str, list[Any]]


def like_pattern(raw: str) -> str:
    """A LIKE pattern (escape character `\\`) from a string literal's raw text."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in "%_\\":
                out.append("\\" + nxt)
            else:
                out.append(
                    {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(nxt.lower(), nxt)
                )
            i += 2
            continue
        if ch == "%" and out and out[-1] == "%":
            i += 1  # a run of % matches what one does (and SQLite refuses very long patterns)
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _negatable(sql: str, params: list[Any], nullable: str | None, neg: bool) -> Sql:
    if not neg:
        return sql, params
    if nullable is None:
        return f"NOT ({sql})", params
    return f"({nullable} IS NULL OR NOT ({sql}))", params


class ConditionCompiler:
    """WHERE (or, with `having`, HAVING over the `grouped` columns' SQL) of one scope."""

    def __init__(
        self,
        tr: Translator,
        scope: Scope,
        *,
        having: bool = False,
        aliases: dict[str, Column] | None = None,
        grouped: set[str] | None = None,
    ) -> None:
        self.tr = tr
        self.strict = tr.strict
        self.scope = scope
        self.having = having
        self.aliases = aliases or {}
        self.grouped = grouped or set()

    def compile(self, cond: n.Condition) -> Sql:
        return self._cond(cond, False)

    def _cond(self, cond: n.Condition, neg: bool) -> Sql:
        if isinstance(cond, n.Not):
            return self._cond(cond.item, not neg)
        if isinstance(cond, n.BoolOp):
            op = _FLIP[cond.op] if neg else cond.op
            parts = [self._cond(item, neg) for item in cond.items]
            params = [p for _, ps in parts for p in ps]
            return "(" + f" {op.upper()} ".join(sql for sql, _ in parts) + ")", params
        return self._compare(cond, neg != cond.negated)

    def _operand(self, e: n.Expr) -> Column:
        if self.aliases and isinstance(e, n.Path) and len(e.parts) == 1:
            hit = self.aliases.get(e.parts[0].lower())
            if hit is not None:
                return hit
        col = self.scope.expr(e, allow_aggregate=self.having)
        if self.strict:
            if not self.having:
                rules.check_filter(col.fdef, e.pos)
            elif not col.aggregate and col.sql not in self.grouped:
                raise rules.not_grouped(e)
        return col

    def _compare(self, c: n.Compare, neg: bool) -> Sql:
        lhs = self._operand(c.lhs)
        if c.op == "in" and isinstance(c.value, n.Query):
            return self._semi_join(c.lhs, lhs, c.value, neg)
        op = c.op
        if op == "!=":
            op, neg = "=", not neg
        if op == "like":
            return self._like(lhs, c.value, neg)  # type: ignore[arg-type]
        if op in ("includes", "excludes"):
            return self._includes(lhs, c.value, neg != (op == "excludes"))  # type: ignore[arg-type]
        if op == "in":
            return self._in(lhs, c.value, neg)  # type: ignore[arg-type]
        return self._scalar_compare(lhs, op, c.value, neg)  # type: ignore[arg-type]

    # ---- values
    def _type_error(self, lhs: Column, v: n.Value) -> SoqlError:
        sf = _SF_TYPE.get(lhs.type, lhs.type)
        if sf in ("string", "id"):
            tail = "should be enclosed in quotes"
        else:
            tail = "should not be enclosed in quotes"
        return SoqlError(
            "INVALID_FIELD",
            f"value of filter criterion for field '{lhs.label}' must be of type {sf} and {tail}",
            v.pos,
        )

    def _value(self, lhs: Column, v: n.Value) -> tuple[str, Any, Any]:
        """("null", None, None), ("point", p, None) or ("range", lo, hi) in the column's terms."""
        t = lhs.type
        if v.kind == "word":
            word = v.value
            if word in ("NULL", "TRUE", "FALSE") and v.n is None:
                if word == "NULL":
                    return "null", None, None
                if t != "boolean":
                    raise self._type_error(lhs, v)
                return "point", 1 if word == "TRUE" else 0, None
            kind = literal_kind(word)
            if kind is None or (kind == TAKES_N) != (v.n is not None):
                if kind == TAKES_N:
                    raise SoqlError(
                        "MALFORMED_QUERY", f"date literal {word} needs a number: {word}:n", v.pos
                    )
                raise malformed(self.tr.text, v.raw, v.pos)
            if t not in DATE_TYPES:
                raise self._type_error(lhs, v)
            try:
                start, end = literal_range(word, v.n, self.tr.today)  # type: ignore[misc]
            except (OverflowError, ValueError):  # beyond the years a date can hold
                line, col = line_col(self.tr.text, v.pos)
                raise SoqlError(
                    "NUMBER_OUTSIDE_VALID_RANGE",
                    f"{v.raw} reaches a date outside the valid range at line {line} column {col}",
                    v.pos,
                ) from None
            return self._day_range(t, start, end)
        if t == "boolean" or (t in NUMBER_TYPES and v.kind != "number"):
            raise self._type_error(lhs, v)
        if t in NUMBER_TYPES:
            return "point", v.value, None
        if t in TEXT_TYPES or t in ID_TYPES:
            if v.kind != "string":
                raise self._type_error(lhs, v)
            return "point", v.value, None
        if t == "date":
            if v.kind == "date":
                return "point", v.value.isoformat(), None
            if v.kind == "datetime" and not self.strict:  # lenient: the datetime's UTC day
                dt: datetime = v.value
                if dt.hour == dt.minute == dt.second == dt.microsecond == 0:
                    return "point", dt.date().isoformat(), None
                after = (dt.date() + timedelta(days=1)).isoformat()
                return "range", after, after
            raise self._type_error(lhs, v)
        if t == "datetime":
            if v.kind == "datetime":
                return "point", sf_datetime(v.value), None
            if v.kind == "date" and not self.strict:  # lenient: that UTC day
                return self._day_range(t, v.value, v.value + timedelta(days=1))
            raise self._type_error(lhs, v)
        raise self._type_error(lhs, v)

    @staticmethod
    def _day_range(t: str, start: date, end: date) -> tuple[str, Any, Any]:
        if t == "date":
            return "range", start.isoformat(), end.isoformat()
        return "range", day_start(start), day_start(end)

    def _check_id(self, lhs: Column, v: n.Value, value: Any) -> Any:
        """An Id value as stored: 15-character Ids gain their 18-character suffix; a value that
        is no Id at all is Salesforce's `invalid ID field` error."""
        if lhs.type not in ID_TYPES or not isinstance(value, str) or not value:
            return value
        if not _ID_RE.match(value):
            raise SoqlError("INVALID_QUERY_FILTER_OPERATOR", f"invalid ID field: {value}", v.pos)
        return to_18(value)

    # ---- comparisons
    def _collate(self, lhs: Column) -> str:
        return " COLLATE NOCASE" if lhs.type in TEXT_TYPES else ""

    def _scalar_compare(self, lhs: Column, op: str, v: n.Value, neg: bool) -> Sql:
        kind, a, b = self._value(lhs, v)
        x = lhs.sql
        if kind == "null":
            if op != "=":
                raise SoqlError(
                    "INVALID_QUERY_FILTER_OPERATOR", "null can only be compared with = or !=", v.pos
                )
            return (f"{x} IS NOT NULL" if neg else f"{x} IS NULL"), []
        if lhs.type == "boolean" and op != "=":
            raise SoqlError(
                "INVALID_QUERY_FILTER_OPERATOR",
                f"invalid operator on boolean field '{lhs.label}'",
                v.pos,
            )
        if kind == "point":
            if op == "=":
                a = self._check_id(lhs, v, a)
            return _negatable(f"{x} {op} ?{self._collate(lhs)}", [a], x, neg)
        if op == "=":
            return _negatable(f"({x} >= ? AND {x} < ?)", [a, b], x, neg)
        sql, param = {"<": ("<", a), "<=": ("<", b), ">": (">=", b), ">=": (">=", a)}[op]
        return _negatable(f"{x} {sql} ?", [param], x, neg)

    def _like(self, lhs: Column, v: n.Value, neg: bool) -> Sql:
        if lhs.type not in TEXT_TYPES and lhs.type not in ID_TYPES:
            raise SoqlError(
                "INVALID_QUERY_FILTER_OPERATOR",
                f"LIKE can only be used on string fields, not on '{lhs.label}'",
                v.pos,
            )
        if v.kind != "string":
            raise self._type_error(lhs, v)
        pattern = like_pattern(v.raw)
        if len(pattern.encode("utf-8", "replace")) > MAX_LIKE_PATTERN:
            line, col = line_col(self.tr.text, v.pos)
            raise SoqlError(
                "MALFORMED_QUERY",
                f"LIKE pattern longer than {MAX_LIKE_PATTERN:,} bytes at line {line} column {col}",
                v.pos,
            )
        return _negatable(f"{lhs.sql} LIKE ? ESCAPE '\\'", [pattern], lhs.sql, neg)

    def _in(self, lhs: Column, values: list[n.Value], neg: bool) -> Sql:
        points: list[Any] = []
        ranges: list[tuple[Any, Any]] = []
        has_null = False
        for v in values:
            kind, a, b = self._value(lhs, v)
            if kind == "null":
                has_null = True
            elif kind == "point":
                points.append(self._check_id(lhs, v, a))
            else:
                ranges.append((a, b))
        x = lhs.sql
        parts: list[str] = []
        params: list[Any] = []
        if points:
            parts.append(f"{x}{self._collate(lhs)} IN ({', '.join('?' * len(points))})")
            params.extend(points)
        for lo, hi in ranges:
            parts.append(f"({x} >= ? AND {x} < ?)")
            params.extend((lo, hi))
        if has_null:
            parts.append(f"{x} IS NULL")
        sql = parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"
        return _negatable(sql, params, None if has_null else x, neg)

    def _includes(self, lhs: Column, values: list[n.Value], neg: bool) -> Sql:
        if lhs.type not in TEXT_TYPES:
            raise SoqlError(
                "INVALID_QUERY_FILTER_OPERATOR",
                "includes or excludes operator only valid on multipicklist field",
                values[0].pos,
            )
        x = lhs.sql
        alternatives: list[str] = []
        params: list[Any] = []
        for v in values:
            if v.kind != "string":
                raise self._type_error(lhs, v)
            picks = [p.strip() for p in v.value.split(";") if p.strip()]
            conds = []
            for pick in picks:
                conds.append(f"(';' || {x} || ';') LIKE ? ESCAPE '\\'")
                params.append(f"%;{like_escape(pick)};%")
            alternatives.append("(" + " AND ".join(conds) + ")" if conds else "0")
        return _negatable("(" + " OR ".join(alternatives) + ")", params, x, neg)

    def _semi_join(self, expr: n.Expr, lhs: Column, sub: n.Query, neg: bool) -> Sql:
        if self.strict and self.having:
            raise rules.semi_join_in_having(sub)
        if lhs.aggregate:
            raise SoqlError("MALFORMED_QUERY", "semi-join on an aggregate", sub.object_pos)
        obj = self.tr.object(sub)
        refuse_outside_records(sub.select, "the SELECT clause of a semi-join query")
        if (
            len(sub.select) != 1
            or not isinstance(sub.select[0], n.SelectItem)
            or not isinstance(sub.select[0].expr, n.Path)
            or sub.group_by
            or sub.having
        ):
            raise SoqlError(
                "MALFORMED_QUERY", "a semi-join subquery selects exactly one field", sub.object_pos
            )
        scope = self.tr.new_scope(obj)
        col = scope.resolve(sub.select[0].expr)
        if self.strict:
            rules.check_semi_join(
                expr,
                None if lhs.chain else lhs.fdef,
                self.scope.obj.name,
                sub,
                obj.name,
                None if col.chain else col.fdef,
            )
        where = [f"{col.sql} IS NOT NULL"]
        params: list[Any] = []
        if sub.where is not None:
            sql, params = ConditionCompiler(self.tr, scope).compile(sub.where)
            where.insert(0, sql)
        inner = f"SELECT {col.sql} FROM {scope.from_sql} WHERE {' AND '.join(where)}"
        if sub.limit is not None:
            inner += " LIMIT ?"
            params = [*params, sub.limit]
        return _negatable(f"{lhs.sql} IN ({inner})", params, lhs.sql, neg)
