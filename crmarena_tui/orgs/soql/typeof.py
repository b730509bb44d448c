"""TYPEOF in a SELECT list: the fields read from a polymorphic reference, by the referenced type.

`SELECT TYPEOF What WHEN Account THEN Phone, Name WHEN Opportunity THEN Amount ELSE Name END
FROM Event` reads, for each event, the record `WhatId` points to: the WHEN branch naming its type
gives the fields (paths through its own parents too), else the ELSE fields, which are the Name
object's (`rules.NAME_OBJECT_FIELDS`), as when a polymorphic reference is read without TYPEOF.
The result nests the record under the relationship name with `attributes.type` its own type,
as the REST API does; a reference that no branch reads gives the attributes alone.

Every WHEN object is a LEFT JOIN on its Id: Ids are unique across objects, so only the join of
the referenced record's type finds a row. The ELSE joins the objects Salesforce lets the field
point to (`TARGETS`) that the org has and no WHEN names.

The rules follow the SOQL and SOSL Reference's TYPEOF page: the field is a polymorphic
relationship of the queried object; it is not also referenced in the SELECT list; TYPEOF stands
only in the SELECT list, never in a query that returns no records (COUNT(), aggregates), nor in a
semi-join's SELECT. Salesforce does not document its messages for these; the codes are its
usual ones, the words this org's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crmarena_tui.orgs.schema import ObjectDef
from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql import rules
from crmarena_tui.orgs.soql.errors import SoqlError, bad_relationship, unknown_object
from crmarena_tui.orgs.soql.schema_index import quote_ident
from crmarena_tui.orgs.soql.scope import Scope
from crmarena_tui.orgs.soql.shape import (
    ConstSlot,
    FieldSlot,
    ParentSlot,
    Slot,
    TypeOfSlot,
    converter,
    find_slot,
)

if TYPE_CHECKING:
    from collections.abc import Callable

# The objects a polymorphic relationship may point to (Object Reference: Task and Event's WhatId
# and WhoId, an owner's User or queue), where the org has them; others read their own target.
TARGETS: dict[str, tuple[str, ...]] = {
    "what": (
        "Account",
        "Asset",
        "Campaign",
        "Case",
        "Contract",
        "Opportunity",
        "Order",
        "Product2",
        "Quote",
        "Solution",
    ),
    "who": ("Contact", "Lead"),
    "owner": ("User", "Group"),
}


def _malformed(message: str, pos: int) -> SoqlError:
    return SoqlError("MALFORMED_QUERY", message, pos)


def check_select(select: list[n.SelectItem | n.ChildSelect | n.TypeOf]) -> None:
    """A TYPEOF's relationship is read by it alone: not twice, not also as `What.Name`."""
    typeofs = [i for i in select if isinstance(i, n.TypeOf)]
    seen: set[str] = set()
    for t in typeofs:
        if t.field.lower() in seen:
            raise _malformed(f"duplicate TYPEOF {t.field} in the SELECT list", t.pos)
        seen.add(t.field.lower())
    for item in select:
        if isinstance(item, n.SelectItem):
            path = item.expr.arg if isinstance(item.expr, n.Call) else item.expr
            if isinstance(path, n.Path) and len(path.parts) > 1 and path.parts[0].lower() in seen:
                raise _malformed(
                    f"TYPEOF {path.parts[0]}: the relationship '{path.parts[0]}' can not also "
                    f"be referenced in the SELECT list ({path.text})",
                    path.pos,
                )


def refuse_outside_records(select: list, what: str) -> None:
    """TYPEOF in a query that returns no records (`what`: aggregate, COUNT(), semi-join)."""
    for item in select:
        if isinstance(item, n.TypeOf):
            raise _malformed(f"TYPEOF is not allowed in {what}", item.pos)


def compile_typeof(
    scope: Scope,
    item: n.TypeOf,
    new_scope: Callable[[ObjectDef], Scope],
    add_col: Callable[[str], int],
) -> TypeOfSlot:
    """The slot of one TYPEOF over `scope`; its joins are added to `scope.join_sql`."""
    ix = scope.ix
    hit = ix.parent(scope.obj, item.field)
    if hit is None:
        raise bad_relationship(item.field, item.pos)
    ref, declared = hit
    if scope.strict and not ref.polymorphic:
        raise _malformed(
            f"TYPEOF can only be used with a polymorphic relationship field, and "
            f"'{ref.relationship_name or item.field}' on {scope.obj.name} refers to "
            f"{declared.name} only",
            item.pos,
        )
    key = ref.relationship_name or item.field
    on = f"{scope.alias}.{quote_ident(ref.name)}"
    branches: list[ParentSlot] = []
    named: set[str] = set()
    for obj_name, pos, fields in item.whens:
        obj = ix.object(obj_name)
        if obj is None:
            raise unknown_object(obj_name, pos)
        if obj.name in named:
            raise _malformed(f"duplicate WHEN {obj.name} in TYPEOF {key}", pos)
        named.add(obj.name)
        sub = new_scope(obj)
        scope.join_sql.append(
            f'LEFT JOIN {quote_ident(obj.name)} AS {sub.alias} ON {sub.alias}."Id" = {on}'
        )
        slots = _when_fields(sub, fields, add_col)
        scope.join_sql.extend(sub.join_sql)
        branches.append(ParentSlot(obj.name, obj.name, add_col(f'{sub.alias}."Id"'), slots))
    if item.otherwise is not None:
        names = TARGETS.get(key.lower(), ()) + (declared.name,)
        for obj_name in dict.fromkeys(names):
            obj = ix.object(obj_name)
            if obj is None or obj.name in named or ix.field(obj, "Id") is None:
                continue
            named.add(obj.name)
            alias = new_scope(obj).alias
            scope.join_sql.append(
                f'LEFT JOIN {quote_ident(obj.name)} AS {alias} ON {alias}."Id" = {on}'
            )
            slots = _else_fields(scope, obj, alias, item.otherwise, add_col)
            branches.append(ParentSlot(obj.name, obj.name, add_col(f'{alias}."Id"'), slots))
    types = {o.key_prefix: o.name for o in ix.schema.objects.values() if o.key_prefix}
    return TypeOfSlot(key, add_col(on), branches, types)


def _when_fields(sub: Scope, fields: list[n.Path], add_col: Callable[[str], int]) -> list[Slot]:
    """A WHEN branch's fields on its object, parents nested as in any record."""
    slots: list[Slot] = []
    for path in fields:
        col = sub.resolve(path)
        target = slots
        for rel, tobj, alias in col.chain:
            slot = find_slot(target, rel)
            if not isinstance(slot, ParentSlot):
                slot = ParentSlot(rel, tobj.name, add_col(f'{alias}."Id"'))
                target.append(slot)
            target = slot.slots
        leaf = col.fdef.name  # type: ignore[union-attr]
        if find_slot(target, leaf) is not None:
            raise _malformed(f"duplicate field selected: {path.text}", path.pos)
        target.append(FieldSlot(leaf, add_col(col.sql), converter(col.type)))
    return slots


def _else_fields(
    scope: Scope,
    obj: ObjectDef,
    alias: str,
    fields: list[n.Path],
    add_col: Callable[[str], int],
) -> list[Slot]:
    """The ELSE fields read on one possible target: the Name object's fields (strict), each the
    target's field of that name or null where it has none; `Type` is the target's type."""
    slots: list[Slot] = []
    for path in fields:
        if len(path.parts) > 1:
            raise bad_relationship(path.parts[0], path.pos)
        name = path.parts[0]
        if scope.strict:
            rules.check_name_field(name, path.pos)
        canonical = rules.NAME_FIELD_NAMES.get(name.lower(), name)
        if find_slot(slots, canonical) is not None:
            raise _malformed(f"duplicate field selected: {name}", path.pos)
        f = scope.ix.field(obj, name)
        if canonical == "Type":
            slots.append(ConstSlot("Type", obj.name))
        elif f is None:
            slots.append(ConstSlot(canonical, None))
        else:
            col = add_col(f"{alias}.{quote_ident(f.name)}")
            slots.append(FieldSlot(canonical, col, converter(f.type)))
    return slots
