"""Field properties as Salesforce's describe reports them: derived from the type, stated by the
benchmark schema's standard-field facts, persisted in the org file, and derived again for an org
file written before the property columns existed.

Facts checked against the Salesforce Field Reference / Object Reference pages (Case, Product2,
Pricebook2, Territory2) and "Considerations for GROUP BY" / "Support for Field Types in Aggregate
Functions" of the SOQL and SOSL Reference.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.schema import FieldDef, read_schema, type_properties, write_schema

OLD_FIELDS_SQL = """
CREATE TABLE _sf_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE _sf_objects (
    name TEXT PRIMARY KEY, label TEXT, key_prefix TEXT, description TEXT, position INTEGER
);
CREATE TABLE _sf_fields (
    object TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT,
    reference_to TEXT, relationship_name TEXT, child_relationship TEXT, position INTEGER,
    PRIMARY KEY (object, name)
);
"""


def _flags(f: FieldDef) -> tuple[bool | None, ...]:
    return (f.filterable, f.sortable, f.groupable, f.aggregatable)


@pytest.mark.parametrize(
    ("typ", "length", "flags"),
    [
        ("id", None, (True, True, True, True)),
        ("reference", None, (True, True, True, True)),
        ("string", None, (True, True, True, True)),
        ("picklist", None, (True, True, True, True)),
        ("date", None, (True, True, True, True)),
        ("int", None, (True, True, True, True)),
        ("boolean", None, (True, True, True, False)),  # groupable, never aggregated
        ("datetime", None, (True, True, False, True)),  # grouped through DAY_ONLY(), ...
        ("currency", None, (True, True, False, True)),
        ("double", None, (True, True, False, True)),
        ("percent", None, (True, True, False, True)),
        ("textarea", 255, (True, True, True, True)),  # a short Text Area
        ("textarea", 32000, (False, False, False, False)),  # a long text area
        ("textarea", None, (False, False, False, False)),  # unknown length: long
    ],
)
def test_properties_follow_from_the_type(
    typ: str, length: int | None, flags: tuple[bool, ...]
) -> None:
    props = type_properties(typ, length)
    assert (props.filterable, props.sortable, props.groupable, props.aggregatable) == flags
    assert _flags(FieldDef("X", typ, length=length)) == flags  # type: ignore[arg-type]


def test_stated_properties_win_over_the_type() -> None:
    f = FieldDef("Description", "textarea", length=4000, filterable=True, sortable=True)
    assert _flags(f) == (True, True, False, False)


def test_benchmark_schema_states_salesforce_standard_field_facts() -> None:
    schema = reference_schema()

    def field(obj: str, name: str) -> FieldDef:
        found = schema.objects[obj].field(name)
        assert found is not None
        return found

    long_texts = [
        ("Case", "Description"),
        ("Account", "Description"),
        ("Opportunity", "Description"),
        ("Knowledge__kav", "FAQ_Answer__c"),
        ("EmailMessage", "TextBody"),
        ("LiveChatTranscript", "Body"),
        ("VoiceCallTranscript__c", "Body__c"),
        ("Task", "Description"),
        ("Event", "Description"),
    ]
    for obj, name in long_texts:
        f = field(obj, name)
        assert f.type == "textarea" and (f.length or 0) > 255, (obj, name)
        assert _flags(f) == (False, False, False, False), (obj, name)
    # Product2.Description is a 4000-character text area Salesforce filters and sorts
    assert _flags(field("Product2", "Description")) == (True, True, False, False)
    # Territory2.Description is a 1000-character string; Pricebook2.Description a 255 one
    assert field("Territory2", "Description").type == "string"
    assert field("Territory2", "Description").length == 1000
    assert _flags(field("Pricebook2", "Description")) == (True, True, True, True)
    assert _flags(field("Case", "OwnerId")) == (True, True, True, True)
    assert _flags(field("Lead", "IsConverted")) == (True, True, True, False)
    assert _flags(field("Case", "CreatedDate")) == (True, True, False, True)
    assert _flags(field("Opportunity", "Amount")) == (True, True, False, True)
    # polymorphic references (their parents are read through the Name object)
    assert field("Task", "WhatId").polymorphic and field("Case", "OwnerId").polymorphic
    assert not field("Opportunity", "OwnerId").polymorphic  # an opportunity's owner is a User
    assert not field("Case", "AccountId").polymorphic


def test_properties_round_trip_through_the_org_file(tmp_path: Path) -> None:
    schema = reference_schema()
    schema.objects["Account"].fields.append(
        FieldDef("Notes__c", "textarea", "notes", length=255, groupable=False)
    )
    conn = sqlite3.connect(tmp_path / "org.db")
    write_schema(conn, schema)
    stored = read_schema(conn)
    for name, obj in schema.objects.items():
        for want, got in zip(obj.fields, stored.objects[name].fields, strict=True):
            assert got == want
    notes = stored.objects["Account"].field("Notes__c")
    assert notes is not None and _flags(notes) == (True, True, False, True)


def test_an_org_file_written_before_the_properties_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_FIELDS_SQL)
    conn.execute("INSERT INTO _sf_objects VALUES ('Case', 'Case', '500', '', 0)")
    for pos, (name, typ) in enumerate(
        [("Id", "id"), ("Description", "textarea"), ("CreatedDate", "datetime")]
    ):
        conn.execute(
            "INSERT INTO _sf_fields VALUES ('Case', ?, ?, '', NULL, NULL, NULL, ?)",
            (name, typ, pos),
        )
    conn.execute(
        'CREATE TABLE "Case" ("Id" TEXT PRIMARY KEY, "Description" TEXT, CreatedDate TEXT)'
    )
    conn.execute(
        "INSERT INTO \"Case\" VALUES ('500000000000001AAA', 'x', '2024-01-01T00:00:00.000+0000')"
    )
    conn.commit()
    conn.close()
    with LocalOrg(path) as org:
        case = org.describe().objects["Case"]
        assert _flags(case.field("Description")) == (False, False, False, False)
        assert _flags(case.field("CreatedDate")) == (True, True, False, True)
        res = org.query("SELECT Id FROM Case WHERE Description = 'x'")
        assert res.error_summary == (
            "INVALID_FIELD: field 'Description' can not be filtered in a query call"
        )
    # writing the schema into such a file again adds the missing columns
    conn = sqlite3.connect(path)
    write_schema(conn, reference_schema())
    stored = read_schema(conn)
    assert stored.objects["Product2"].field("Description").filterable is True
