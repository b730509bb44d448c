"""`org import`: an upstream-shaped SQLite snapshot into this project's org format.

A snapshot holds one plain table per object, named by its API name, with columns named by field API
names; how values are stored is not known for sure. The importer opens the snapshot read-only (it
never writes to it), matches tables and columns to the benchmark schema of the org type
case-insensitively, takes each known field's definition from that schema (type, description,
references), types a column that is one of Salesforce's standard fields beyond the benchmark's as
Salesforce defines it (`schema_standard`: `Account.OwnerId` reads its owner as `Owner`), reads a type
for every other column from its values (`snapshot_infer`), derives what
Salesforce computes and the snapshot lacks (`Name` of User, Contact and Lead) and the order of each
column's slash dates (`snapshot_fields`), coerces every value into the org's stored form (`coerce`),
and writes a new org file: `_sf_*` metadata, typed tables, the engine's indexes. What it did goes
into an `ImportReport`, also stored in the org.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from crmarena_tui.errors import UserError, storage_fault
from crmarena_tui.orgs.coerce_dates import ColumnOrder
from crmarena_tui.orgs.import_report import FieldProblem, ImportReport, ObjectReport
from crmarena_tui.orgs.schema import (
    DATE_INDEXES,
    FieldDef,
    ObjectDef,
    Schema,
    write_meta,
    write_schema,
)
from crmarena_tui.orgs.snapshot_fields import COMPOSED_HOW, Composed, composed_name, date_readings
from crmarena_tui.orgs.snapshot_infer import (
    NOT_IN_SCHEMA,
    infer_field,
    key_prefix_of,
    standard_column,
)
from crmarena_tui.orgs.snapshot_infer import sample_values as _sample
from crmarena_tui.orgs.soql.conditions import to_18
from crmarena_tui.orgs.soql.schema_index import quote_ident
from crmarena_tui.orgs.upstream import ORIGINAL_OBJECTS, check_org_type, guess_org_type
from crmarena_tui.settings.sqlite_readonly import open_readonly

IMPORTER_VERSION = "2"
SQLITE_MAGIC = b"SQLite format 3\x00"
LFS_MAGIC = b"version https://git-lfs"
Progress = Callable[[float, str], None]


class SnapshotError(UserError, ValueError):
    """The file cannot be imported; the message says why."""


def lfs_pointer_message(what: str, size: int) -> str:
    return (
        f"{what} is a Git LFS pointer ({size} bytes of text), not the database: upstream stores "
        "its snapshots with Git LFS, and this is the small text file that stands in for one. "
        "Download the file itself through the repository's raw address (`crmarena-tui org fetch` "
        "does), or run `git lfs pull` in a clone, then import that file."
    )


def check_snapshot_file(path: Path) -> None:
    """Refuse what is not a whole SQLite database: a missing file, an LFS pointer, a truncated file."""
    if not path.is_file():
        raise SnapshotError(f"no snapshot file at {path}")
    size = path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(100)
    if head.startswith(LFS_MAGIC):
        raise SnapshotError(lfs_pointer_message(str(path), size))
    if not head.startswith(SQLITE_MAGIC):
        shown = head[:24].decode("utf-8", errors="replace").splitlines()[0] if head else ""
        raise SnapshotError(
            f"{path} is not an SQLite database (it starts with {shown!r}, {size:,} bytes)"
        )
    if len(head) < 100:
        raise SnapshotError(f"{path} is truncated: {size} bytes, less than an SQLite header")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    header_valid = head[24:28] == head[92:96]
    if pages and header_valid and size < page_size * pages:
        raise SnapshotError(
            f"{path} is truncated: its header promises {page_size * pages:,} bytes, the file has "
            f"{size:,} (an interrupted download?)"
        )


@dataclass(slots=True)
class TablePlan:
    """How one snapshot table becomes one object: its fields and the column feeding each."""

    report: ObjectReport
    obj: ObjectDef
    # the snapshot column feeding each field; None: Id made from the row number; Composed: computed
    columns: list[str | Composed | None] = field(default_factory=list)
    readings: dict[str, ColumnOrder] = field(
        default_factory=dict
    )  # field -> its slash dates' order


@dataclass(slots=True)
class Benchmark:
    """The schema an org type's snapshot is matched against."""

    schema: Schema
    objects: tuple[str, ...]  # the objects the benchmark's tasks use
    source: str
    lists_fields: bool  # whether a missing field is worth reporting


def benchmark_for(org_type: str) -> Benchmark:
    from crmarena_tui.orgs.reference_schema import reference_schema

    schema = reference_schema()
    if org_type == "original":
        return Benchmark(
            schema,
            ORIGINAL_OBJECTS,
            "introspected: the original CRMArena's schema is not available offline (upstream "
            "loads it from the Hugging Face hub), so fields are typed as in CRMArena-Pro where "
            "the names match and from their values otherwise",
            lists_fields=False,
        )
    return Benchmark(
        schema,
        tuple(schema.objects),
        f"the benchmark's {org_type} schema ({len(schema.objects)} objects, field descriptions)",
        lists_fields=True,
    )


def read_tables(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str]]]:
    """Table name -> [(column, declared type)] in file order."""
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
        )
    ]
    return {
        name: [(r[1], r[2] or "") for r in conn.execute(f"PRAGMA table_info({quote_ident(name)})")]
        for name in names
    }


def full_text_tables(conn: sqlite3.Connection) -> dict[str, str]:
    """The snapshot's virtual tables (an FTS5 or FTS4 index, an R-tree, ...) and the shadow
    tables SQLite keeps for them, each with why it is no object: they are left out."""
    virtual = {
        row[0]: str(row[1] or "")
        for row in conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
            " AND sql LIKE 'CREATE VIRTUAL TABLE%'"
        )
    }
    found: dict[str, str] = {}
    for name, sql in virtual.items():
        module = sql.upper().split(" USING ", 1)[-1].split("(", 1)[0].strip() or "virtual"
        found[name] = f"{module} virtual table: an index, not an object"
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for name in names:
        owner = next((v for v in virtual if name.startswith(f"{v}_")), None)
        if owner is not None and name not in virtual:
            found[name] = f"the storage of the virtual table {owner}"
    return found


def plan_import(
    conn: sqlite3.Connection, org_type: str, report: ImportReport
) -> tuple[list[TablePlan], Benchmark]:
    """Match the snapshot's tables to the benchmark's objects and decide every field."""
    bench = benchmark_for(org_type)
    tables = read_tables(conn)
    indexes = full_text_tables(conn)
    by_lower: dict[str, str] = {}
    for name in tables:
        if name in indexes:
            report.skipped_tables.append(f"{name} ({indexes[name]})")
        elif name.lower().startswith(("sqlite_", "_sf_", "_snapshot_")):
            report.skipped_tables.append(f"{name} (SQLite's or this project's own metadata)")
        else:
            by_lower[name.lower()] = name
    plans: list[TablePlan] = []
    for name in bench.objects:
        table = by_lower.pop(name.lower(), None)
        if table is None:
            report.missing_objects.append(name)
            continue
        known = bench.schema.objects[name]
        obj = ObjectDef(name, known.key_prefix, known.label, known.description)
        plans.append(TablePlan(ObjectReport(name, table, in_schema=True), obj))
    if not plans:
        shown = ", ".join(list(tables)[:12]) or "none"
        raise SnapshotError(
            f"{report.source} has none of the benchmark's objects ({', '.join(bench.objects[:6])}"
            f", ...); its tables: {shown}"
        )
    for table in by_lower.values():
        cols = [c for c, _ in tables[table]]
        id_col = next((c for c in cols if c.lower() == "id"), None)
        prefix = key_prefix_of(_sample(conn, table, id_col)) if id_col else ""
        obj = ObjectDef(table, prefix, table, f"{NOT_IN_SCHEMA} (a table the schema does not know)")
        plans.append(TablePlan(ObjectReport(table, table, in_schema=False), obj))
    objects = [p.obj for p in plans]
    for plan in plans:
        _plan_fields(conn, plan, tables[plan.report.table], bench, objects)
    return plans, bench


def _plan_fields(
    conn: sqlite3.Connection,
    plan: TablePlan,
    columns: list[tuple[str, str]],
    bench: Benchmark,
    objects: list[ObjectDef],
) -> None:
    rep, table = plan.report, plan.report.table
    left = {c.lower(): (c, decl) for c, decl in columns}
    known = bench.schema.objects.get(rep.name) if rep.in_schema else None
    for f in known.fields if known else []:
        hit = left.pop(f.name.lower(), None)
        made = composed_name(rep.name, [c for c, _ in columns]) if f.name == "Name" else None
        if hit is None and made is not None:
            plan.obj.fields.append(f)
            plan.columns.append(made)
            rep.composed[f.name] = f"from {' and '.join(made.sources)} ({COMPOSED_HOW})"
            continue
        if hit is None:
            if bench.lists_fields:
                rep.missing_fields.append(f.name)
            continue
        plan.obj.fields.append(f)
        plan.columns.append(hit[0])
        rep.mapped[hit[0]] = f.name
    for col, decl in left.values():
        values = _sample(conn, table, col)
        standard = standard_column(rep.name, col, values) if rep.in_schema else None
        f = standard or infer_field(col, decl, values, objects)
        plan.obj.fields.append(f)
        plan.columns.append(col)
        rep.extra_columns[col] = f.type
    if plan.obj.field("Id") is None:
        plan.obj.fields.insert(0, FieldDef("Id", "id", f"Unique identifier of the {rep.name} row"))
        plan.columns.insert(0, None)
        rep.notes.append("no Id column: each row's Id is made from its row number")
    dated = [
        (f.name, f.type, col)
        for f, col in zip(plan.obj.fields, plan.columns, strict=True)
        if isinstance(col, str)
    ]
    plan.readings = date_readings(conn, table, dated)
    for name, reading in plan.readings.items():
        how = {"dmy": "read day first", "mdy": "read month first"}.get(reading.order)
        shape = f"{reading.values:,} distinct values of the form {reading.form}"
        rep.readings[name] = f"{shape}, {how or 'left as stored'}: {reading.reason}"


def import_snapshot(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    org_type: str | None = None,
    today: date | None = None,
    origin: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import the snapshot at `source` into a new org file at `out` (replaced when it exists)."""
    source, out = Path(source).expanduser(), Path(out).expanduser()
    check_snapshot_file(source)
    if out.exists() and out.resolve() == source.resolve():
        raise SnapshotError(
            "--out names the snapshot itself: import never writes to the snapshot; choose "
            "another file"
        )
    org_type = org_type or guess_org_type(source)
    if org_type is None:
        raise SnapshotError(
            f"cannot tell the org type from the file name {source.name!r}: pass --org-type "
            "b2b, b2c or original"
        )
    check_org_type(org_type)
    started = time.perf_counter()
    report = ImportReport(
        source=origin or str(source), out=str(out), org_type=org_type, schema_source=""
    )
    report.source_bytes = source.stat().st_size
    report.source_sha256 = _sha256(source)
    try:
        src = open_readonly(source)
        try:
            plans, bench = plan_import(src, org_type, report)
            report.schema_source = bench.source
            out.parent.mkdir(parents=True, exist_ok=True)
            report.notes.extend(remove_stale_temporaries(out))
            tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
            tmp.unlink(missing_ok=True)
            try:
                _write(src, tmp, plans, report, today, progress)
                report.seconds = time.perf_counter() - started
                _write_report(tmp, report)
                os.replace(tmp, out)
            finally:
                tmp.unlink(missing_ok=True)
        finally:
            src.close()
    except sqlite3.DatabaseError as exc:
        fault = storage_fault(exc)
        if fault in ("the disk is full", "the database is read-only"):  # the output, not the input
            raise SnapshotError(
                f"cannot write {out}: {fault} ({exc}); the snapshot was not changed"
            ) from None
        raise SnapshotError(f"{source} cannot be read as an SQLite database: {exc}") from None
    report.objects = [p.report for p in plans]
    return report


def remove_stale_temporaries(out: Path) -> list[str]:
    """Remove what an interrupted import into `out` left (`.<out>.<pid>.tmp` of a process no
    longer running); a line naming each one removed."""
    removed = []
    for leftover in out.parent.glob(f".{out.name}.*.tmp"):
        pid = leftover.name[len(out.name) + 2 : -len(".tmp")]
        if not pid.isdigit() or int(pid) == os.getpid() or _running(int(pid)):
            continue
        size = leftover.stat().st_size
        leftover.unlink(missing_ok=True)
        removed.append(
            f"removed {leftover.name} ({size:,} bytes), left by an interrupted import "
            f"(process {pid})"
        )
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: not ours to judge
    return True


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write(
    src: sqlite3.Connection,
    path: Path,
    plans: list[TablePlan],
    report: ImportReport,
    today: date | None,
    progress: Progress | None,
) -> None:
    from crmarena_tui.orgs.snapshot_copy import copy_table

    totals = {
        p.report.table: src.execute(
            f"SELECT COUNT(*) FROM {quote_ident(p.report.table)}"
        ).fetchone()[0]
        for p in plans
    }
    grand = max(1, sum(totals.values()))
    done = 0
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        with conn:
            write_schema(conn, Schema({p.obj.name: p.obj for p in plans}))
            for plan in plans:
                if progress:
                    progress(done / grand, f"{plan.obj.name} ({totals[plan.report.table]:,} rows)")
                copy_table(src, conn, plan, to_18)
                done += totals[plan.report.table]
            for plan in plans:
                wanted = DATE_INDEXES.get(plan.obj.name, ()) if plan.report.in_schema else ()
                for name in wanted:
                    if plan.obj.field(name) is not None:
                        conn.execute(
                            "CREATE INDEX IF NOT EXISTS "
                            f"{quote_ident(f'ix_{plan.obj.name}_{name}')} "
                            f"ON {quote_ident(plan.obj.name)} ({quote_ident(name)})"
                        )
            meta = {
                "org_type": report.org_type,
                "kind": "upstream-snapshot",
                "source": report.source,
                "source_bytes": str(report.source_bytes),
                "source_sha256": report.source_sha256,
                "imported_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "importer_version": IMPORTER_VERSION,
                "counts": json.dumps({p.obj.name: p.report.rows_kept for p in plans}),
            }
            if today is not None:
                meta["today"] = today.isoformat()
            write_meta(conn, meta)
        if progress:
            progress(0.99, "indexes and statistics")
        conn.execute("ANALYZE")
    finally:
        conn.close()
    report.objects = [p.report for p in plans]
    if progress:
        progress(1.0, "done")


def _write_report(path: Path, report: ImportReport) -> None:
    conn = sqlite3.connect(path)
    try:
        with conn:
            write_meta(conn, {"import_report": json.dumps(report.to_dict())})
    finally:
        conn.close()


__all__ = [
    "FieldProblem",
    "ImportReport",
    "SnapshotError",
    "check_snapshot_file",
    "import_snapshot",
    "lfs_pointer_message",
]
