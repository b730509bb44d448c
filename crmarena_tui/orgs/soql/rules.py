"""What Salesforce refuses that SQLite would answer: the strict org's rules, one function each.

The translator calls these only in strict mode (the default; `--lenient` skips them). Each rule
follows a page of Salesforce's SOQL and SOSL Reference, and reads the field properties describe
reports (`FieldDef.filterable`, `sortable`, `groupable`, `aggregatable`), never a list of names:

- fieldExpression Syntax: a WHERE field can be any field except a long text area (not filterable).
- ORDER BY / Considerations for GROUP BY: only sortable fields sort, only groupable fields group.
- Support for Field Types in Aggregate Functions: no aggregate over a field describe marks
  not aggregatable (long text areas, booleans).
- COUNT() and COUNT(fieldName): COUNT() takes neither GROUP BY nor ORDER BY.
- Considerations When Using HAVING: HAVING filters only grouped fields and aggregates, and holds
  no semi- or anti-join.
- Considerations for GROUP BY: a query with an aggregate function and LIMIT needs GROUP BY.
- Comparison Operators (semi-joins with IN, anti-joins with NOT IN): at most two per WHERE, only
  as top-level AND terms (never under OR or NOT), never nested; the subquery selects one Id or
  reference field of another object, of the type the left operand refers to, without ORDER BY,
  LIMIT, OFFSET or aggregates, and not from Task or Event; the left operand is an Id or
  reference field of the queried object itself.
- OFFSET: a child subquery may use OFFSET only when the outer query has LIMIT 1.
- Understanding Relationship Fields and Polymorphic Fields / Object Reference "Name": through a
  polymorphic reference (describe's polymorphicForeignKey: Task.What, a Case's Owner) a query
  reads only the Name object's fields, and goes no further up.
"""

from __future__ import annotations

from crmarena_tui.orgs.schema import FieldDef
from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql.errors import SoqlError, no_such_column
from crmarena_tui.orgs.soql.schema_index import ID_TYPES

MAX_SEMI_JOINS = 2
# "The following objects aren't currently supported in subqueries" (Comparison Operators).
SEMI_JOIN_UNSUPPORTED = frozenset(
    {"ActivityHistory", "Attachment", "Event", "EventAttendee", "Note", "OpenActivity", "Task"}
)
# The fields of Salesforce's Name object (Object Reference: Name), by lower-case name.
NAME_FIELD_NAMES: dict[str, str] = {
    name.lower(): name
    for name in (
        "Alias",
        "CommunityNickname",
        "Email",
        "FirstName",
        "Id",
        "IsActive",
        "LastName",
        "LastReferencedDate",
        "LastViewedDate",
        "MiddleName",
        "Name",
        "NameOrAlias",
        "Phone",
        "ProfileId",
        "RecordTypeId",
        "Suffix",
        "Title",
        "Type",
        "UserRoleId",
        "Username",
    )
}
NAME_OBJECT_FIELDS = frozenset(NAME_FIELD_NAMES)
_TOP_LEVEL = (
    "Semi join sub-selects are only allowed at the top level WHERE expressions and not in "
    "nested WHERE expressions."
)


def _malformed(message: str, pos: int | None) -> SoqlError:
    return SoqlError("MALFORMED_QUERY", message, pos)


def _cannot(f: FieldDef | None, verb: str, pos: int) -> None:
    if f is not None:
        raise SoqlError("INVALID_FIELD", f"field '{f.name}' can not be {verb} in a query call", pos)


def check_filter(f: FieldDef | None, pos: int) -> None:
    if f is not None and not f.filterable:
        _cannot(f, "filtered", pos)


def check_sort(f: FieldDef | None, pos: int) -> None:
    if f is not None and not f.sortable:
        _cannot(f, "sorted", pos)


def check_group(f: FieldDef | None, pos: int) -> None:
    if f is not None and not f.groupable:
        _cannot(f, "grouped", pos)


def check_aggregate(f: FieldDef | None, call: n.Call) -> None:
    if f is not None and not f.aggregatable:
        raise SoqlError(
            "INVALID_FIELD",
            f"field {f.name} does not support aggregate operator {call.name.upper()}",
            call.pos,
        )


def check_name_field(name: str, pos: int) -> None:
    """A field read through a polymorphic reference: only the Name object's fields exist."""
    if name.lower() not in NAME_OBJECT_FIELDS:
        raise no_such_column(name, "Name", pos)


def check_count(q: n.Query) -> None:
    """`SELECT COUNT() ...` with GROUP BY or ORDER BY (use COUNT(fieldName) there)."""
    if q.group_by:
        raise _malformed(
            "COUNT() can not be used with GROUP BY; use COUNT(fieldName)", q.group_by[0].pos
        )
    if q.order_by:
        raise _malformed(
            "COUNT() can not be used with ORDER BY; use COUNT(fieldName)", q.order_by[0].expr.pos
        )


def check_aggregate_limit(q: n.Query) -> None:
    if q.limit is not None and not q.group_by:
        raise _malformed("an aggregate query with LIMIT needs a GROUP BY clause", q.object_pos)


def check_child_offset(outer: n.Query, child: n.Query, pos: int) -> None:
    if child.offset is not None and outer.limit != 1:
        raise _malformed("a subquery can use OFFSET only when the outer query has LIMIT 1", pos)


def not_grouped(e: n.Expr, *, ordered: bool = False) -> SoqlError:
    what = "Ordered field" if ordered else "Field"
    return _malformed(f"{what} must be grouped or aggregated: {e.text}", e.pos)


# ---- semi- and anti-joins


def _semi_joins(cond: n.Condition | None) -> list[n.Compare]:
    if cond is None:
        return []
    if isinstance(cond, n.Compare):
        return [cond] if isinstance(cond.value, n.Query) else []
    if isinstance(cond, n.Not):
        return _semi_joins(cond.item)
    return [c for item in cond.items for c in _semi_joins(item)]


def check_semi_join_placement(where: n.Condition | None) -> None:
    """At most two semi-/anti-joins, each the whole WHERE or a term of its top-level AND."""
    joins = _semi_joins(where)
    if not joins:
        return
    if len(joins) > MAX_SEMI_JOINS:
        raise _malformed(
            f"a WHERE clause can have at most {MAX_SEMI_JOINS} semi join or anti join sub-selects",
            joins[MAX_SEMI_JOINS].pos,
        )
    top: list[n.Condition] = [where] if where is not None else []
    if isinstance(where, n.BoolOp) and where.op == "and":
        top = where.items
    for join in joins:
        if any(item is join for item in top):
            continue
        if isinstance(where, n.BoolOp) and where.op == "or":
            raise _malformed(
                "Semi join sub-selects are not allowed with the 'OR' operator", join.pos
            )
        raise _malformed(_TOP_LEVEL, join.pos)


def check_semi_join(
    lhs: n.Expr,
    lhs_field: FieldDef | None,
    outer: str,
    sub: n.Query,
    inner: str,
    selected: FieldDef | None,
) -> None:
    """One semi-/anti-join: `lhs IN (sub)` in a query on `outer`; `sub` is on `inner`.
    `lhs_field` and `selected` are None when the expression is no field of the object itself
    (a function, or a path through a relationship)."""
    if _semi_joins(sub.where):
        raise _malformed("Nesting of semi join sub-selects is not supported", sub.object_pos)
    if inner in SEMI_JOIN_UNSUPPORTED:
        raise _malformed(
            f"Entity '{inner}' is not supported for semi join inner selects", sub.object_pos
        )
    if inner == outer:
        raise _malformed(
            "The inner and outer selects should not be on the same object type", sub.object_pos
        )
    if lhs_field is None or lhs_field.type not in ID_TYPES:
        raise _malformed(
            f"semi join sub-selects can only be compared with an Id or reference field of "
            f"{outer}, not with '{lhs.text}'",
            lhs.pos,
        )
    item = sub.select[0] if len(sub.select) == 1 else None
    path = item.expr if isinstance(item, n.SelectItem) else None
    if not isinstance(path, n.Path) or selected is None or selected.type not in ID_TYPES:
        shown = path.text if isinstance(path, (n.Path, n.Call)) else "a subquery"
        raise _malformed(
            f"semi join sub selects can only query id fields, cannot use: '{shown}'",
            path.pos if path is not None else sub.object_pos,
        )
    target = lhs_field.reference_to if lhs_field.type == "reference" else outer
    selected_target = selected.reference_to if selected.type == "reference" else inner
    if target and selected_target and target != selected_target:
        raise _malformed(
            f"semi join sub-select field '{path.text}' refers to {selected_target}, "
            f"but '{lhs.text}' refers to {target}",
            path.pos,
        )
    for clause, present in (
        ("ORDER BY", bool(sub.order_by)),
        ("LIMIT", sub.limit is not None),
        ("OFFSET", sub.offset is not None),
        ("GROUP BY", bool(sub.group_by)),
    ):
        if present:
            raise _malformed(f"semi join sub-selects can not use {clause}", sub.object_pos)


def semi_join_in_having(sub: n.Query) -> SoqlError:
    return _malformed("semi join sub-selects are not allowed in a HAVING clause", sub.object_pos)
