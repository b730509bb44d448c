"""Case-insensitive look-ups over a `Schema`: objects, fields, parent and child relationships."""

from __future__ import annotations

from crmarena_tui.orgs.schema import ChildRelationship, FieldDef, ObjectDef, Schema

TEXT_TYPES = frozenset({"string", "textarea", "email", "phone", "url", "picklist"})
ID_TYPES = frozenset({"id", "reference"})
NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})
DATE_TYPES = frozenset({"date", "datetime"})


def quote_ident(name: str) -> str:
    """An SQL identifier for a schema name (names come from the schema, never from a query)."""
    return '"' + name.replace('"', '""') + '"'


class SchemaIndex:
    """Dictionaries built once per org so that name resolution is a hash look-up."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._objects: dict[str, ObjectDef] = {o.name.lower(): o for o in schema.objects.values()}
        self._fields: dict[tuple[str, str], FieldDef] = {}
        self._parents: dict[tuple[str, str], FieldDef] = {}
        self._children: dict[tuple[str, str], ChildRelationship] = {}
        self._child_lists: dict[str, list[ChildRelationship]] = {}
        for obj in schema.objects.values():
            for f in obj.fields:
                self._fields[(obj.name, f.name.lower())] = f
                if f.type == "reference" and f.reference_to and f.relationship_name:
                    self._parents[(obj.name, f.relationship_name.lower())] = f
                    if f.child_relationship and f.reference_to in schema.objects:
                        rel = ChildRelationship(f.child_relationship, obj.name, f.name)
                        self._children.setdefault((f.reference_to, rel.name.lower()), rel)
                        self._child_lists.setdefault(f.reference_to, []).append(rel)

    def object(self, name: str) -> ObjectDef | None:
        return self._objects.get(name.lower())

    def field(self, obj: ObjectDef, name: str) -> FieldDef | None:
        return self._fields.get((obj.name, name.lower()))

    def parent(self, obj: ObjectDef, relationship: str) -> tuple[FieldDef, ObjectDef] | None:
        """The reference field behind `relationship` on `obj` and the object it points to."""
        f = self._parents.get((obj.name, relationship.lower()))
        if f is None or f.reference_to is None:
            return None
        target = self.schema.objects.get(f.reference_to)
        return (f, target) if target is not None else None

    def child(self, obj: ObjectDef, relationship: str) -> ChildRelationship | None:
        return self._children.get((obj.name, relationship.lower()))

    def children(self, obj: ObjectDef) -> list[ChildRelationship]:
        return list(self._child_lists.get(obj.name, []))

    def name_fields(self, obj: ObjectDef) -> list[FieldDef]:
        """The fields SOSL's `IN NAME FIELDS` searches: Name (and its parts), else Title/Subject."""
        names = [f for f in obj.fields if f.name in ("Name", "FirstName", "LastName")]
        if not names:
            names = [f for f in obj.fields if f.name in ("Title", "Subject")]
        return names
