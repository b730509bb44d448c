"""The org's schema: objects, fields with descriptions, references and child relationships.

One `Schema` feeds the SOQL engine (which names exist, their types, how parents join, what each
field may be used for), the record browser, `describe()` and an agent's system prompt. A local org
file stores it in two tables beside the data (`_sf_objects`, `_sf_fields`) and free key/values in
`_sf_meta`.

Each field carries the properties Salesforce's describe reports for it: `length`, whether it
is `filterable` (WHERE), `sortable` (ORDER BY), `groupable` (GROUP BY) and `aggregatable` (COUNT,
MIN, MAX...), and whether a reference is `polymorphic` (Task.What: its parent is read through
Salesforce's Name object). Left unset they follow from the field type as describe reports them for standard
fields (`type_properties`): a `textarea` longer than 255 characters is a long text area, which can
be selected and searched with SOSL but not filtered, sorted, grouped or aggregated; datetimes and
decimal numbers cannot be grouped; booleans cannot be aggregated. An org file written before these
columns existed reads back with the properties of its field types.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Literal

from crmarena_tui.orgs.meta import read_meta as read_meta  # (orgs/meta.py: without this module)
from crmarena_tui.orgs.meta import write_meta as write_meta

FieldType = Literal[
    "id",
    "string",
    "textarea",
    "email",
    "phone",
    "url",
    "picklist",
    "reference",
    "date",
    "datetime",
    "boolean",
    "int",
    "double",
    "currency",
    "percent",
]

SQL_TYPES: dict[str, str] = {
    "int": "INTEGER",
    "boolean": "INTEGER",
    "double": "REAL",
    "currency": "REAL",
    "percent": "REAL",
}

SCHEMA_TABLES_SQL = """
CREATE TABLE IF NOT EXISTS _sf_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS _sf_objects (
    name TEXT PRIMARY KEY, label TEXT, key_prefix TEXT, description TEXT, position INTEGER
);
CREATE TABLE IF NOT EXISTS _sf_fields (
    object TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT,
    reference_to TEXT, relationship_name TEXT, child_relationship TEXT, position INTEGER,
    length INTEGER, filterable INTEGER, sortable INTEGER, groupable INTEGER, aggregatable INTEGER,
    polymorphic INTEGER,
    PRIMARY KEY (object, name)
);
"""
# Columns added to `_sf_fields` after the first org files were written (read as NULL there).
PROPERTY_COLUMNS = (
    "length",
    "filterable",
    "sortable",
    "groupable",
    "aggregatable",
    "polymorphic",
)
FIELD_COLUMNS = (
    "object",
    "name",
    "type",
    "description",
    "reference_to",
    "relationship_name",
    "child_relationship",
    "position",
    *PROPERTY_COLUMNS,
)
LONG_TEXT_MIN = 256  # a textarea longer than 255 characters is a long text area

_DEFAULT_LENGTH = {"id": 18, "reference": 18, "textarea": 32000, "phone": 40, "email": 80}
_STRING_TYPES = frozenset({"string", "email", "phone", "url", "picklist"})


@dataclass(frozen=True, slots=True)
class FieldProperties:
    """What describe says a field may be used for."""

    length: int
    filterable: bool
    sortable: bool
    groupable: bool
    aggregatable: bool
    polymorphic: bool = False


def _quote(name: str) -> str:
    """An SQL identifier (a snapshot's names may hold any character, `"` among them)."""
    return '"' + name.replace('"', '""') + '"'


def type_properties(field_type: str, length: int | None = None) -> FieldProperties:
    """The properties describe reports for a standard field of this type (and length)."""
    if length is None:
        length = _DEFAULT_LENGTH.get(field_type, 255 if field_type in _STRING_TYPES else 0)
    if field_type == "textarea" and length >= LONG_TEXT_MIN:
        return FieldProperties(length, False, False, False, False)
    groupable = field_type not in ("datetime", "double", "currency", "percent")
    return FieldProperties(length, True, True, groupable, field_type != "boolean")


@dataclass(frozen=True, slots=True)
class FieldDef:
    name: str
    type: FieldType
    description: str = ""
    reference_to: str | None = None  # target object of a reference field
    relationship_name: str | None = None  # parent path name: Case.OwnerId -> "Owner"
    child_relationship: str | None = None  # name on the parent: Contact.AccountId -> "Contacts"
    # Describe's properties; None (the default) means "as `type_properties` gives for the type".
    length: int | None = None
    filterable: bool | None = None
    sortable: bool | None = None
    groupable: bool | None = None
    aggregatable: bool | None = None
    polymorphic: bool | None = None

    def __post_init__(self) -> None:
        derived = type_properties(self.type, self.length)
        for name in PROPERTY_COLUMNS:
            if getattr(self, name) is None:
                object.__setattr__(self, name, getattr(derived, name))

    @property
    def sql_type(self) -> str:
        return SQL_TYPES.get(self.type, "TEXT")


@dataclass(frozen=True, slots=True)
class ChildRelationship:
    name: str  # "Contacts"
    child_object: str  # "Contact"
    field: str  # "AccountId"


@dataclass(slots=True)
class ObjectDef:
    name: str
    key_prefix: str
    label: str = ""
    description: str = ""
    fields: list[FieldDef] = field(default_factory=list)

    def field(self, name: str) -> FieldDef | None:
        """The field called `name`, case-insensitively."""
        low = name.lower()
        for f in self.fields:
            if f.name.lower() == low:
                return f
        return None

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]


@dataclass(slots=True)
class Schema:
    objects: dict[str, ObjectDef] = field(default_factory=dict)

    def object(self, name: str) -> ObjectDef | None:
        """The object called `name`, case-insensitively."""
        hit = self.objects.get(name)
        if hit is not None:
            return hit
        low = name.lower()
        for obj in self.objects.values():
            if obj.name.lower() == low:
                return obj
        return None

    def child_relationships(self, parent: str) -> list[ChildRelationship]:
        out = []
        for obj in self.objects.values():
            for f in obj.fields:
                if f.reference_to == parent and f.child_relationship:
                    out.append(ChildRelationship(f.child_relationship, obj.name, f.name))
        return out

    def object_for_id(self, record_id: str) -> ObjectDef | None:
        """The object whose key prefix starts `record_id` (None when no prefix matches)."""
        prefix = record_id[:3]
        for obj in self.objects.values():
            if obj.key_prefix == prefix:
                return obj
        return None

    def listed_fields(self, obj: ObjectDef) -> list[FieldDef]:
        """The fields of `obj` an agent's prompt lists: all but the standard fields a live org
        has beyond the benchmark's (`schema_standard`), which the live org's prompt left out."""
        from crmarena_tui.orgs.schema_standard import unlisted

        return [f for f in obj.fields if not unlisted(obj.name, f.name)]

    def to_prompt(self) -> str:
        """Object names, then each object's fields with descriptions: the agent's schema text."""
        lines = ["Objects: " + ", ".join(self.objects), ""]
        for obj in self.objects.values():
            lines.append(f"{obj.name}:")
            for f in self.listed_fields(obj):
                lines.append(f"  - {f.name}: {f.description}" if f.description else f"  - {f.name}")
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"

    def to_rows(self) -> list[dict]:
        """Rows in the hub's `b2b_schema` shape: `{"object": ..., "fields": {name: description}}`."""
        return [
            {"object": o.name, "fields": {f.name: f.description for f in self.listed_fields(o)}}
            for o in self.objects.values()
        ]


# The date fields indexed in a built org (the demo orgs, an imported snapshot): the task
# families and the agents filter and sort by them.
DATE_INDEXES: dict[str, tuple[str, ...]] = {
    "Case": ("CreatedDate", "ClosedDate"),
    "CaseHistory__c": ("CreatedDate",),
    "Contract": ("CompanySignedDate",),
    "Opportunity": ("CreatedDate", "CloseDate"),
    "Order": ("EffectiveDate",),
    "Lead": ("CreatedDate", "ConvertedDate"),
    "Task": ("ActivityDate",),
    "EmailMessage": ("MessageDate",),
    "VoiceCallTranscript__c": ("CreatedDate",),
    "Quote": ("CreatedDate",),
    "Event": ("StartDateTime",),
    "LiveChatTranscript": ("EndTime",),
}


def _field_columns(conn: sqlite3.Connection) -> list[str]:
    return [d[0] for d in conn.execute("SELECT * FROM _sf_fields LIMIT 0").description]


def write_schema(conn: sqlite3.Connection, schema: Schema) -> None:
    """Create the schema tables, one data table per object, and the indexes on reference fields."""
    conn.executescript(SCHEMA_TABLES_SQL)
    present = _field_columns(conn)
    for col in PROPERTY_COLUMNS:
        if col not in present:  # a schema table written before the property columns
            conn.execute(f"ALTER TABLE _sf_fields ADD COLUMN {col} INTEGER")
    insert_field = (
        f"INSERT OR REPLACE INTO _sf_fields ({', '.join(FIELD_COLUMNS)}) "
        f"VALUES ({', '.join('?' * len(FIELD_COLUMNS))})"
    )
    for pos, obj in enumerate(schema.objects.values()):
        conn.execute(
            "INSERT OR REPLACE INTO _sf_objects VALUES (?, ?, ?, ?, ?)",
            (obj.name, obj.label or obj.name, obj.key_prefix, obj.description, pos),
        )
        cols = []
        for fpos, f in enumerate(obj.fields):
            conn.execute(
                insert_field,
                (
                    obj.name,
                    f.name,
                    f.type,
                    f.description,
                    f.reference_to,
                    f.relationship_name,
                    f.child_relationship,
                    fpos,
                    *(getattr(f, col) for col in PROPERTY_COLUMNS),
                ),
            )
            col = f"{_quote(f.name)} {f.sql_type}"
            if f.name == "Id":
                col += " PRIMARY KEY"
            cols.append(col)
        table = _quote(obj.name)
        conn.execute(f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(cols)})")
        for f in obj.fields:
            if f.type == "reference":
                index = _quote(f"ix_{obj.name}_{f.name}")
                conn.execute(f"CREATE INDEX IF NOT EXISTS {index} ON {table} ({_quote(f.name)})")


def read_schema(conn: sqlite3.Connection) -> Schema:
    """The schema stored in an org file (an older file without the property columns gets the
    properties of its field types)."""
    schema = Schema()
    for name, label, prefix, desc in conn.execute(
        "SELECT name, label, key_prefix, description FROM _sf_objects ORDER BY position"
    ):
        schema.objects[name] = ObjectDef(
            name=name, key_prefix=prefix, label=label, description=desc
        )
    present = set(_field_columns(conn))
    props = ", ".join(col if col in present else "NULL" for col in PROPERTY_COLUMNS)
    for obj, name, typ, desc, ref, rel, child, length, *flags in conn.execute(
        "SELECT object, name, type, description, reference_to, relationship_name, "
        f"child_relationship, {props} FROM _sf_fields ORDER BY object, position"
    ):
        filterable, sortable, groupable, aggregatable, polymorphic = (
            None if v is None else bool(v) for v in flags
        )
        schema.objects[obj].fields.append(
            FieldDef(
                name,
                typ,
                desc or "",
                ref,
                rel,
                child,
                length,
                filterable,
                sortable,
                groupable,
                aggregatable,
                polymorphic,
            )
        )
    return schema
