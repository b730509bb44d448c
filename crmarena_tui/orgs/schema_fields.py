"""Field builders for the benchmark schema, with Salesforce's standard-field facts.

A field's describe properties (filterable, sortable, groupable, aggregatable, length) follow from its
type unless a builder states them (`crmarena_tui.orgs.schema.type_properties`): Ids, references,
strings, picklists, dates and booleans can be filtered, sorted and grouped; datetimes and decimal
numbers cannot be grouped; booleans cannot be aggregated. Long text areas (`long_text`) such as
Case.Description, EmailMessage.TextBody or LiveChatTranscript.Body can only be selected and searched
with SOSL. The few text areas Salesforce lets a query filter and sort (Product2.Description,
Knowledge Summary) say so with `FILTER_SORT`.
"""

from __future__ import annotations

from typing import Any

from crmarena_tui.orgs.schema import FieldDef

STANDARD_LONG_TEXT = 32000  # Salesforce's standard long text areas (Case.Description, ...)
CUSTOM_LONG_TEXT = 32768  # the default length of a custom Long Text Area field
# A text area that can be filtered and sorted, but not grouped or aggregated.
FILTER_SORT: dict[str, Any] = {
    "filterable": True,
    "sortable": True,
    "groupable": False,
    "aggregatable": False,
}


def id_field(obj: str) -> FieldDef:
    return FieldDef("Id", "id", f"Unique identifier of the {obj} record")


def ref_field(
    name: str,
    target: str,
    desc: str,
    rel: str | None = None,
    child: str | None = None,
    *,
    polymorphic: bool = False,
) -> FieldDef:
    """A reference to `target`; `polymorphic` when Salesforce lets it point to several objects
    (Task.WhatId, a Case's owner: User or queue), so that queries read its parent through the
    Name object."""
    rel = rel or (name[:-2] if name.endswith("Id") else name.replace("__c", "__r"))
    return FieldDef(
        name,
        "reference",
        desc,
        reference_to=target,
        relationship_name=rel,
        child_relationship=child,
        polymorphic=polymorphic,
    )


def field(name: str, typ: str, desc: str, **props: Any) -> FieldDef:
    """A field of type `typ`; `props` set describe properties the type alone does not give."""
    return FieldDef(name, typ, desc, **props)  # type: ignore[arg-type]


def long_text(name: str, desc: str, length: int = STANDARD_LONG_TEXT) -> FieldDef:
    """A long text area: selected and searched (SOSL), never filtered, sorted or grouped."""
    return FieldDef(name, "textarea", desc, length=length)
