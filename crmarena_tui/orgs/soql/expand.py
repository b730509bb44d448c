"""`FIELDS(ALL|STANDARD|CUSTOM)` in a SELECT list, expanded to the object's fields."""

from __future__ import annotations

from crmarena_tui.orgs.schema import ObjectDef
from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql.errors import SoqlError


def _is_fields(item: n.SelectItem | n.ChildSelect | n.TypeOf) -> bool:
    return (
        isinstance(item, n.SelectItem)
        and isinstance(item.expr, n.Call)
        and item.expr.name.upper() == "FIELDS"
    )


def expand_fields(q: n.Query, obj: ObjectDef) -> list[n.SelectItem | n.ChildSelect | n.TypeOf]:
    """`FIELDS(ALL|STANDARD|CUSTOM)` becomes the object's fields (ALL and CUSTOM need a LIMIT
    of at most 200, as in Salesforce); fields also named explicitly are not repeated."""
    calls = [i for i in q.select if _is_fields(i)]
    if not calls:
        return q.select
    explicit = {
        i.expr.parts[-1].lower()
        for i in q.select
        if isinstance(i, n.SelectItem) and isinstance(i.expr, n.Path) and len(i.expr.parts) == 1
    }
    out: list[n.SelectItem | n.ChildSelect | n.TypeOf] = []
    for item in q.select:
        if item not in calls:
            out.append(item)
            continue
        call: n.Call = item.expr  # type: ignore[union-attr, assignment]
        arg = call.arg
        which = arg.parts[0].upper() if isinstance(arg, n.Path) and len(arg.parts) == 1 else ""
        if which not in ("ALL", "STANDARD", "CUSTOM"):
            raise SoqlError("MALFORMED_QUERY", "FIELDS() takes ALL, STANDARD or CUSTOM", call.pos)
        if which != "STANDARD" and (q.limit is None or q.limit > 200):
            raise SoqlError(
                "MALFORMED_QUERY",
                "The SOQL FIELDS function must have a LIMIT of at most 200",
                call.pos,
            )
        for f in obj.fields:
            custom = f.name.endswith("__c")
            if (which == "ALL" or (which == "CUSTOM") == custom) and f.name.lower() not in explicit:
                explicit.add(f.name.lower())
                out.append(n.SelectItem(n.Path((f.name,), call.pos)))
    return out
