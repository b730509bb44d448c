"""The schema text an agent is given, and where it came from (`schema_source`, on every session).

Under `upstream`, upstream's runner gives the agent the hub's schema rows (`run_tasks.py`, through
`crm_sandbox/data/assets.py`): dataset Salesforce/CRMArenaPro, configuration `b2b_schema` or
`b2c_schema` (Salesforce/CRMArena's `schema` for the original org), one row per object,
`{"object": ..., "fields": {name: description}}`, the hub's null padding dropped. The `schema`
setting (`--schema`) says where those rows come from:

- `hub` (the default): the hub through `datasets` and its cache, as `--tasks hf:...` loads tasks;
- a file: the same rows saved locally (a JSON list, JSON Lines or parquet; tasks/loaders.py);
- `builtin`: this project's own field descriptions (the org's describe), a departure from
  upstream recorded on each session.

The rows apply to upstream's orgs (an imported snapshot, the live org); the demo orgs and org files
that are not imports of upstream's snapshots describe themselves, as `workbench` always does
(`project`). The source each session used is recorded in its settings as `schema_source`:
`hub:<dataset>/<config>`, `file:<name>@<first 12 hex of its sha256>`, `builtin` or `project`.
A schema that cannot be loaded raises `SchemaUnavailable`, one line naming both ways to get it.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import UserError

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.orgs.schema import Schema

HUB, BUILTIN, PROJECT = "hub", "builtin", "project"
HUB_SPLITS = {"b2b": "b2b_schema", "b2c": "b2c_schema", "original": "original_schema"}
UPSTREAM_KINDS = ("upstream", "salesforce")  # org kinds that are upstream's orgs
HASH_CHARS = 12

SchemaRow = dict[str, Any]


class SchemaUnavailable(UserError, RuntimeError):
    """The schema rows the settings ask for cannot be loaded."""


def unavailable_message(org_type: str, why: str) -> str:
    """One line: why the rows are not there, then both ways to get them (and the departure)."""
    from crmarena_tui.tasks.loaders import schema_dataset

    repo, config, _ = schema_dataset(HUB_SPLITS.get(org_type, "b2b_schema"))
    return (
        f"the agent's schema text for {org_type} tasks under --protocol upstream comes from the "
        f"hub's {repo} {config} rows, which cannot be loaded ({why.rstrip('.')}): give the rows "
        "saved locally with --schema FILE (.json, .jsonl or .parquet), or reach the hub once so "
        "`datasets` caches them (--schema builtin uses this project's own descriptions "
        "instead, recorded as a departure)"
    )


@dataclass(frozen=True, slots=True)
class AgentSchema:
    """The schema an agent sees: `rows` (None: the org's own describe) and their `source`."""

    source: str
    rows: tuple[SchemaRow, ...] | None = None

    def prompt_rows(self, org: Org) -> list[SchemaRow]:
        """The rows the system prompt lists: these, else the org's own."""
        if self.rows is not None:
            return [dict(r) for r in self.rows]
        return org.describe().to_rows()

    def describe(self, org: Org) -> Schema:
        """The org's schema, each field the rows describe described with their words."""
        schema = org.describe()
        return schema if self.rows is None else described_by(schema, self.rows)


def described_by(schema: Schema, rows: tuple[SchemaRow, ...] | list[SchemaRow]) -> Schema:
    """`schema` with the description of every field that `rows` describe (object and field
    matched case-insensitively) taken from them, so a snapshot column the rows know is not
    described as unknown; an object the rows name loses a description saying it is unknown."""
    from crmarena_tui.orgs.schema import ObjectDef, Schema
    from crmarena_tui.orgs.snapshot_infer import NOT_IN_SCHEMA

    words = {
        str(r["object"]).lower(): {str(k).lower(): str(v) for k, v in r["fields"].items()}
        for r in rows
    }
    objects = {}
    for name, obj in schema.objects.items():
        known = words.get(name.lower())
        if known is None:
            objects[name] = obj
            continue
        fields = [
            replace(f, description=known[f.name.lower()]) if f.name.lower() in known else f
            for f in obj.fields
        ]
        description = "" if obj.description.startswith(NOT_IN_SCHEMA) else obj.description
        objects[name] = ObjectDef(obj.name, obj.key_prefix, obj.label, description, fields)
    return Schema(objects)


def is_upstreams_org(org: Org) -> bool:
    """An org of upstream's: the live org, `upstream:<type>`, or an org file imported from one
    of upstream's snapshots (its metadata keeps the import's report)."""
    for _ in range(4):  # a session's view of the org (DatedOrg) wraps the shared one
        inner = getattr(org, "org", None)
        if inner is None or inner is org:
            break
        org = inner
    if getattr(org, "kind", None) in UPSTREAM_KINDS:
        return True
    meta = getattr(org, "meta", None)
    return isinstance(meta, dict) and "import_report" in meta


def file_source(path: Path) -> str:
    """`file:<name>@<first 12 hex of the file's sha256>`."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:HASH_CHARS]
    return f"file:{path.name}@{digest}"


class SchemaSources:
    """What the `schema` setting gives each session: one per process (the service's), loading
    each set of rows once, from any thread."""

    def __init__(self, setting: str | None = HUB) -> None:
        self.setting = (setting or HUB).strip() or HUB
        self._lock = threading.Lock()
        self._loaded: dict[str, AgentSchema] = {}

    @property
    def file(self) -> Path | None:
        """The schema file the setting names, if it names one."""
        return None if self.setting in (HUB, BUILTIN) else Path(self.setting).expanduser()

    def for_org(self, org: Org, protocol: str) -> AgentSchema:
        """The schema an agent on `org` under `protocol` sees. Raises `SchemaUnavailable`."""
        if protocol != "upstream":
            return AgentSchema(PROJECT)
        path = self.file
        if path is not None:
            return self._load(f"file:{path}", lambda: self._from_file(path))
        if not is_upstreams_org(org):
            return AgentSchema(PROJECT)
        if self.setting == BUILTIN:
            return AgentSchema(BUILTIN)
        org_type = str(getattr(org, "org_type", "b2b"))
        return self._load(f"hub:{org_type}", lambda: self._from_hub(org_type))

    def _load(self, key: str, load: Any) -> AgentSchema:
        with self._lock:
            found = self._loaded.get(key)
            if found is None:
                found = self._loaded[key] = load()
            return found

    @staticmethod
    def _from_file(path: Path) -> AgentSchema:
        from crmarena_tui.tasks.loaders import TaskLoadError, load_schema_rows

        try:
            rows = load_schema_rows(str(path))  # its errors start with the path
            source = file_source(path)
        except TaskLoadError as exc:
            raise SchemaUnavailable(f"--schema {exc}") from None
        except OSError as exc:
            raise SchemaUnavailable(f"--schema {path}: cannot read: {exc}") from None
        return AgentSchema(source, tuple(rows))

    @staticmethod
    def _from_hub(org_type: str) -> AgentSchema:
        from crmarena_tui.tasks.loaders import TaskLoadError, load_schema_rows, schema_dataset

        split = HUB_SPLITS.get(org_type)
        if split is None:
            raise SchemaUnavailable(f"no hub schema for org type {org_type!r}")
        repo, config, _ = schema_dataset(split)
        try:
            rows = load_schema_rows(f"hf:{split}", alternatives=None)
        except TaskLoadError as exc:
            raise SchemaUnavailable(unavailable_message(org_type, str(exc))) from None
        return AgentSchema(f"hub:{repo}/{config}", tuple(rows))
