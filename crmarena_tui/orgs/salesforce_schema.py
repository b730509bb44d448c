"""A real org's `Schema`: sObject describes (cached on disk) merged with the benchmark's field list.

The describe API knows every field's type, length, reference target, relationship names and what
a query may do with it (filterable, sortable, groupable, aggregatable), but has no descriptions and lists dozens of system fields the benchmark never shows. So the schema keeps the
benchmark's fields (the hub's schema rows when given, else `reference_schema()`), in that order,
takes types and relationships from the describe, and descriptions from the rows or the reference
schema (the describe's field label when neither has one). Fields the org lacks are left out.

The cache holds a compact copy of the describes (`<cache dir>/salesforce/<org>-<key>-describe.json`),
so the schema, and with it an agent's prompt, needs no network after the first time.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from crmarena_tui.orgs.base import API_VERSION
from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.salesforce_auth import SalesforceApiError, SalesforceConnection
from crmarena_tui.orgs.schema import FieldDef, FieldType, ObjectDef, Schema
from crmarena_tui.settings import locations

log = logging.getLogger(__name__)

CACHE_FORMAT = 2  # 2: fields carry length and the filterable/sortable/groupable/aggregatable flags
BATCH_SIZE = 25  # the composite batch API takes at most 25 subrequests

_TYPES: dict[str, FieldType] = {
    "id": "id",
    "string": "string",
    "textarea": "textarea",
    "email": "email",
    "phone": "phone",
    "url": "url",
    "picklist": "picklist",
    "multipicklist": "picklist",
    "combobox": "picklist",
    "reference": "reference",
    "date": "date",
    "datetime": "datetime",
    "boolean": "boolean",
    "int": "int",
    "long": "int",
    "double": "double",
    "currency": "currency",
    "percent": "percent",
}

SchemaRows = Iterable[Mapping[str, Any]]
DESCRIBE_PROPERTIES = ("length", "filterable", "sortable", "groupable", "aggregatable")
POLYMORPHIC = "polymorphicForeignKey"  # describe's name for FieldDef.polymorphic


def cache_path(org_type: str, key: str) -> Path:
    return locations.cache_dir() / "salesforce" / f"{org_type}-{key}-describe.json"


def load_cache(path: Path) -> dict[str, Any] | None:
    """The cached describes, or None when absent, unreadable or written by another format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(data, dict)
        or data.get("format") != CACHE_FORMAT
        or data.get("api_version") != API_VERSION
        or not isinstance(data.get("objects"), list)
    ):
        return None
    return data


def save_cache(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)


def object_names(rows: SchemaRows | None) -> list[str]:
    """The objects to describe: those of the hub's rows, else the benchmark's 27."""
    if rows is not None:
        return [str(r["object"]) for r in rows]
    return list(reference_schema().objects)


def compact_describe(describe: Mapping[str, Any], wanted: set[str]) -> dict[str, Any]:
    """The parts of one sObject describe the schema needs."""
    return {
        "name": describe["name"],
        "label": describe.get("label") or describe["name"],
        "keyPrefix": describe.get("keyPrefix") or "",
        "fields": [
            {
                "name": f["name"],
                "type": f.get("type", "string"),
                "label": f.get("label") or "",
                "referenceTo": list(f.get("referenceTo") or []),
                "relationshipName": f.get("relationshipName"),
                **{k: f[k] for k in (*DESCRIBE_PROPERTIES, POLYMORPHIC) if k in f},
            }
            for f in describe.get("fields", [])
        ],
        "childRelationships": [
            {
                "childSObject": c["childSObject"],
                "field": c["field"],
                "relationshipName": c.get("relationshipName"),
            }
            for c in describe.get("childRelationships", [])
            if c.get("childSObject") in wanted and c.get("relationshipName")
        ],
    }


def fetch_describes(conn: SalesforceConnection, names: list[str]) -> dict[str, Any]:
    """Describe `names` through the composite batch API (25 per call); objects the org lacks are skipped."""
    wanted = set(names)
    objects: list[dict[str, Any]] = []
    for start in range(0, len(names), BATCH_SIZE):
        chunk = names[start : start + BATCH_SIZE]
        body = json.dumps(
            {
                "batchRequests": [
                    {"method": "GET", "url": f"{API_VERSION}/sobjects/{name}/describe"}
                    for name in chunk
                ]
            }
        )

        def batch(sf: Any, body: str = body) -> Any:
            return sf.restful("composite/batch", method="POST", data=body)

        answer = conn.call(batch)
        results = (answer or {}).get("results") or []
        for name, result in zip(chunk, results, strict=False):
            status = result.get("statusCode")
            if status == 200:
                objects.append(compact_describe(result["result"], wanted))
                continue
            body_ = result.get("result")
            err = body_[0] if isinstance(body_, list) and body_ else {}
            code = str(err.get("errorCode") or f"HTTP_{status}")
            if status == 404 or code in ("NOT_FOUND", "INVALID_TYPE"):
                log.info("object %s does not exist in this org; left out of the schema", name)
                continue
            raise SalesforceApiError(code, f"describe {name}: {err.get('message', '')}".strip())
    if not objects:
        raise SalesforceApiError("NOT_FOUND", "none of the benchmark's objects exist in this org")
    return {"format": CACHE_FORMAT, "api_version": API_VERSION, "objects": objects}


def _known_fields(rows: SchemaRows | None) -> dict[str, dict[str, str]]:
    """object -> {field: description} in the benchmark's order (hub rows, else the reference)."""
    if rows is None:
        return {
            o.name: {f.name: f.description for f in o.fields}
            for o in reference_schema().objects.values()
        }
    known: dict[str, dict[str, str]] = {}
    for row in rows:
        fields = row.get("fields") or {}
        known[str(row["object"])] = {k: (v or "") for k, v in fields.items() if v is not None}
    return known


def _pick_target(targets: list[str], hint: str | None, present: set[str]) -> str | None:
    """One target of a (possibly polymorphic) reference: the reference schema's, else one we know."""
    if hint and hint in targets:
        return hint
    for t in targets:
        if t in present:
            return t
    return targets[0] if targets else None


def build_schema(data: Mapping[str, Any], rows: SchemaRows | None = None) -> Schema:
    """The `Schema` of a real org from its compact describes and the benchmark's field list."""
    rows = list(rows) if rows is not None else None
    reference = reference_schema()
    known = _known_fields(rows)
    described = {o["name"]: o for o in data["objects"]}
    present = set(described)
    child_names: dict[tuple[str, str, str], str] = {}
    for parent in described.values():
        for c in parent["childRelationships"]:
            child_names[(c["childSObject"], c["field"], parent["name"])] = c["relationshipName"]

    schema = Schema()
    for obj_name, wanted in known.items():
        d = described.get(obj_name)
        if d is None:
            continue
        ref_obj = reference.object(obj_name)
        by_name = {f["name"].lower(): f for f in d["fields"]}
        descriptions = {k.lower(): v for k, v in wanted.items()}
        picked = (
            [by_name[n.lower()] for n in wanted if n.lower() in by_name]
            if wanted
            else list(d["fields"])
        )
        fields = []
        for f in picked:
            ref_field = ref_obj.field(f["name"]) if ref_obj else None
            description = (
                descriptions.get(f["name"].lower())
                or (ref_field.description if ref_field else "")
                or f["label"]
            )
            ftype = _TYPES.get(f["type"], "string")
            target = rel = child = None
            if ftype == "reference":
                target = _pick_target(
                    f["referenceTo"], ref_field.reference_to if ref_field else None, present
                )
                rel = f["relationshipName"]
                child = child_names.get((d["name"], f["name"], target or ""))
            fields.append(
                FieldDef(
                    f["name"],
                    ftype,
                    description,
                    target,
                    rel,
                    child,
                    polymorphic=f.get(POLYMORPHIC),
                    **{k: f.get(k) for k in DESCRIBE_PROPERTIES},
                )
            )
        schema.objects[d["name"]] = ObjectDef(
            name=d["name"],
            key_prefix=d["keyPrefix"],
            label=d["label"],
            description=ref_obj.description if ref_obj else "",
            fields=fields,
        )
    return schema
