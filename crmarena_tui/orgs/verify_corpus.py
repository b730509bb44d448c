"""The built-in corpus of `org verify`: queries over every object and every engine feature.

Per object of the benchmark schema present in the org: `COUNT()`, every record with every field,
each parent path, each child subquery, each date field through a relative literal and a date
function with `GROUP BY`, each picklist grouped, each number aggregated, each flag filtered. Then one
query per remaining feature (`LIKE`, `IN`, semi- and anti-joins, `HAVING`, `OFFSET`, `NULLS LAST`,
three-level paths, aliases, date literals, SOSL scopes, errors). Every query is one Salesforce
accepts as well: no filtering, grouping or sorting on long text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from crmarena_tui.orgs.schema import FieldDef, ObjectDef, Schema

NUMBERS = ("int", "double", "currency", "percent")


@dataclass(frozen=True, slots=True)
class CorpusQuery:
    text: str
    source: str  # "built-in", "sessions" or "file"
    today: str | None = None  # YYYY-MM-DD the query's date literals count from (None: default)


def _object_queries(obj: ObjectDef, schema: Schema) -> list[str]:
    name = obj.name
    out = [f"SELECT COUNT() FROM {name}"]
    fields = ", ".join(f.name for f in obj.fields)
    out.append(f"SELECT {fields} FROM {name} ORDER BY Id")
    for f in obj.fields:
        out += _field_queries(obj, f, schema)
    for rel in schema.child_relationships(name):
        if rel.child_object in schema.objects:
            out.append(
                f"SELECT Id, (SELECT Id FROM {rel.name} ORDER BY Id) FROM {name} ORDER BY Id "
                "LIMIT 50"
            )
    return out


def _field_queries(obj: ObjectDef, f: FieldDef, schema: Schema) -> list[str]:
    name, field = obj.name, f.name
    if f.type == "reference" and f.relationship_name and f.reference_to in schema.objects:
        target = schema.objects[f.reference_to]
        shown = "Name" if target.field("Name") is not None else "Id"
        return [
            f"SELECT Id, {f.relationship_name}.{shown} FROM {name} ORDER BY Id LIMIT 200",
            f"SELECT COUNT() FROM {name} WHERE {field} != null",
        ]
    if f.type in ("date", "datetime"):
        return [
            f"SELECT COUNT() FROM {name} WHERE {field} = LAST_N_DAYS:365",
            f"SELECT CALENDAR_YEAR({field}), COUNT(Id) FROM {name} WHERE {field} != null "
            f"GROUP BY CALENDAR_YEAR({field}) ORDER BY CALENDAR_YEAR({field})",
        ]
    if f.type == "picklist":
        return [
            f"SELECT {field}, COUNT(Id) n FROM {name} GROUP BY {field} ORDER BY {field} NULLS FIRST"
        ]
    if f.type in NUMBERS:
        return [f"SELECT SUM({field}), AVG({field}), MIN({field}), MAX({field}) FROM {name}"]
    if f.type == "boolean":
        return [f"SELECT COUNT() FROM {name} WHERE {field} = true"]
    return []


def _first_word(texts: list[str]) -> str:
    for text in texts:
        for word in str(text).split():
            word = "".join(ch for ch in word if ch.isalnum())
            if len(word) >= 3:
                return word
    return "Acme"


FEATURES: list[tuple[tuple[str, ...], str]] = [
    (("Account",), "SELECT Id, Name FROM Account WHERE Name LIKE '{a}%' ORDER BY Name"),
    (("Account",), "SELECT Id FROM Account WHERE NOT Name LIKE '%{a}%' ORDER BY Id"),
    (
        ("Account", "Contact"),
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Contact) ORDER BY Id",
    ),
    (
        ("Account", "Case"),
        "SELECT Id FROM Account WHERE Id NOT IN (SELECT AccountId FROM Case) ORDER BY Id",
    ),
    (
        ("Case",),
        "SELECT Status, COUNT(Id) total FROM Case GROUP BY Status HAVING COUNT(Id) > 1 "
        "ORDER BY Status",
    ),
    (("Case",), "SELECT COUNT_DISTINCT(OwnerId) FROM Case"),
    (("Case",), "SELECT Id, ClosedDate FROM Case ORDER BY ClosedDate DESC NULLS LAST, Id"),
    (("Case",), "SELECT Id FROM Case ORDER BY CreatedDate, Id LIMIT 10 OFFSET 5"),
    (
        ("Case",),
        "SELECT Id FROM Case WHERE Status IN ('New', 'Closed') AND (Priority = 'High' OR "
        "Priority = 'Low') ORDER BY Id",
    ),
    (("Case",), "SELECT Id FROM Case WHERE Status NOT IN ('Closed') ORDER BY Id"),
    (("Case",), "SELECT COUNT() FROM Case WHERE CreatedDate >= 2024-01-01T00:00:00Z"),
    (("Case",), "SELECT COUNT() FROM Case WHERE CreatedDate = THIS_QUARTER"),
    (("Case",), "SELECT COUNT() FROM Case WHERE CreatedDate = LAST_N_MONTHS:6"),
    (("Case",), "SELECT COUNT() FROM Case WHERE ClosedDate < TODAY"),
    (
        ("Case",),
        "SELECT DAY_ONLY(CreatedDate) d, COUNT(Id) n FROM Case GROUP BY DAY_ONLY(CreatedDate) "
        "ORDER BY DAY_ONLY(CreatedDate)",
    ),
    (
        ("Case",),
        "SELECT CALENDAR_MONTH(CreatedDate) m, COUNT(Id) FROM Case "
        "WHERE CALENDAR_YEAR(CreatedDate) = 2024 GROUP BY CALENDAR_MONTH(CreatedDate) "
        "ORDER BY CALENDAR_MONTH(CreatedDate)",
    ),
    (("Opportunity",), "SELECT COUNT() FROM Opportunity WHERE CloseDate < 2024-06-01"),
    (
        ("Opportunity", "Account", "User"),
        "SELECT Id, Account.Name, Owner.Name FROM Opportunity WHERE Amount > 10000 ORDER BY Id",
    ),
    (
        ("OrderItem", "Order", "Account"),
        "SELECT Id, Order.Account.ShippingState FROM OrderItem ORDER BY Id LIMIT 100",
    ),
    (("Account",), "FIND {{{a}}} IN ALL FIELDS RETURNING Account(Id, Name), Contact(Id, Name)"),
    (("Lead",), "FIND {{{l}}} IN NAME FIELDS RETURNING Lead(Id, Name WHERE Status != null)"),
    (("Knowledge__kav",), "FIND {{{k}}} RETURNING Knowledge__kav(Id, Title LIMIT 5)"),
    (("Account",), "SELECT Nmae FROM Account"),
    (("Account",), "SELECT Id FROM Acount"),
    (("Account",), "SELECT Id FROM Account WHERE"),
]


def builtin_corpus(schema: Schema, sample: Callable[[str], list[str]]) -> list[CorpusQuery]:
    """The built-in queries for an org with `schema`; `sample(soql)` reads a few names from the
    org (the words the LIKE and SOSL queries look for)."""
    queries: list[str] = []
    for obj in schema.objects.values():
        queries += _object_queries(obj, schema)
    words = {
        "a": _first_word(sample("SELECT Name FROM Account ORDER BY Name LIMIT 5"))
        if "Account" in schema.objects
        else "Acme",
        "l": _first_word(sample("SELECT LastName FROM Lead ORDER BY LastName LIMIT 5"))
        if "Lead" in schema.objects
        else "Smith",
        "k": _first_word(sample("SELECT Title FROM Knowledge__kav ORDER BY Title LIMIT 5"))
        if "Knowledge__kav" in schema.objects
        else "policy",
    }
    for needs, template in FEATURES:
        if all(n in schema.objects for n in needs):
            queries.append(template.format(**words))
    return [CorpusQuery(q, "built-in") for q in dict.fromkeys(queries)]  # once each, in order
