"""What `org import` did to a snapshot, object by object: the import report.

It is printed as tables (`render`) or returned as JSON (`to_dict`), and stored in the imported org's
`_sf_meta` (key `import_report`) so `org info` can show it again later.
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from typing import Any

EXAMPLES = 3  # example values kept per field that could not be coerced


@dataclass(slots=True)
class FieldProblem:
    """Values of one field that could not be coerced to its type (kept as stored)."""

    field: str
    type: str
    count: int = 0
    examples: list[str] = dataclasses.field(default_factory=list)
    reason: str = ""  # why the field's values were not converted, when one reason holds them all

    def add(self, value: Any) -> None:
        self.count += 1
        text = repr(value) if not isinstance(value, str) else value
        text = text if len(text) <= 60 else text[:57] + "..."
        if len(self.examples) < EXAMPLES and text not in self.examples:
            self.examples.append(text)


@dataclass(slots=True)
class ObjectReport:
    """One table of the snapshot and the object it became."""

    name: str  # the object's API name in the imported org
    table: str  # the table's name in the snapshot
    in_schema: bool  # an object of the benchmark schema
    rows_read: int = 0
    rows_kept: int = 0
    mapped: dict[str, str] = dataclasses.field(default_factory=dict)  # snapshot column -> field
    missing_fields: list[str] = dataclasses.field(default_factory=list)
    extra_columns: dict[str, str] = dataclasses.field(
        default_factory=dict
    )  # column -> inferred type
    rewritten: dict[str, int] = dataclasses.field(
        default_factory=dict
    )  # field -> values put in the org's form
    nulled: dict[str, int] = dataclasses.field(
        default_factory=dict
    )  # field -> text 'None', 'null', 'nan' ... read as null (not in `rewritten`)
    composed: dict[str, str] = dataclasses.field(
        default_factory=dict
    )  # field -> how it was composed (Salesforce computes it; the snapshot has no column)
    readings: dict[str, str] = dataclasses.field(
        default_factory=dict
    )  # date/datetime field -> how its slash values were read
    problems: list[FieldProblem] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def failed_values(self) -> int:
        return sum(p.count for p in self.problems)


@dataclass(slots=True)
class ImportReport:
    source: str
    out: str
    org_type: str
    schema_source: str
    source_bytes: int = 0
    source_sha256: str = ""
    seconds: float = 0.0
    objects: list[ObjectReport] = dataclasses.field(default_factory=list)
    missing_objects: list[str] = dataclasses.field(default_factory=list)
    skipped_tables: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def rows_read(self) -> int:
        return sum(o.rows_read for o in self.objects)

    @property
    def rows_kept(self) -> int:
        return sum(o.rows_kept for o in self.objects)

    @property
    def failed_values(self) -> int:
        return sum(o.failed_values for o in self.objects)

    def object(self, name: str) -> ObjectReport | None:
        return next((o for o in self.objects if o.name.lower() == name.lower()), None)

    def unconverted(self) -> list[tuple[str, FieldProblem]]:
        """(object, problem) for every field holding values left as stored, in report order."""
        return [(o.name, p) for o in self.objects for p in o.problems]

    def composed(self) -> list[str]:
        """`Object.Field` of every field composed as Salesforce composes it."""
        return [f"{o.name}.{f}" for o in self.objects for f in o.composed]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["totals"] = {
            "objects": sum(1 for o in self.objects if o.in_schema),
            "extra_tables": sum(1 for o in self.objects if not o.in_schema),
            "rows_read": self.rows_read,
            "rows_kept": self.rows_kept,
            "values_rewritten": sum(sum(o.rewritten.values()) for o in self.objects),
            "values_not_coerced": self.failed_values,
            "values_nulled": sum(sum(o.nulled.values()) for o in self.objects),
            "fields_composed": len(self.composed()),
        }
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImportReport:
        objects = [
            ObjectReport(
                **{
                    **o,
                    "problems": [FieldProblem(**p) for p in o.get("problems", [])],
                }
            )
            for o in data.get("objects", [])
        ]
        fields = {k: v for k, v in data.items() if k not in ("objects", "totals")}
        return cls(**fields, objects=objects)

    def summary_lines(self) -> list[str]:
        known = [o for o in self.objects if o.in_schema]
        extra = [o for o in self.objects if not o.in_schema]
        lines = [
            f"Imported {self.source} ({self.org_type}) into {self.out} in {self.seconds:.1f} s",
            f"{len(known)} benchmark objects, {len(extra)} other tables; "
            f"{self.rows_kept:,} of {self.rows_read:,} rows kept; "
            f"{self.failed_values:,} values could not be coerced (kept as stored)",
            f"schema: {self.schema_source}",
        ]
        lines += [f"note: {n}" for n in self.notes]
        return lines


def unconverted_lines(report: ImportReport, kept: str = " kept as stored") -> list[str]:
    """One line per field holding values left as stored: count, examples, and why."""
    out = []
    for name, p in report.unconverted():
        shown = ", ".join(repr(e) for e in p.examples)
        why = f"; {p.reason}" if p.reason else ""
        out.append(f"{name}.{p.field} ({p.type}): {p.count:,} value(s){kept}, e.g. {shown}{why}")
    return out


def render(report: ImportReport) -> None:
    """Print the report as tables on stdout."""
    from rich.console import Console
    from rich.table import Table

    console = Console(soft_wrap=True)
    if not console.is_terminal:  # a file or a pipe: wide enough for every column
        console = Console(soft_wrap=True, width=140)
    for line in report.summary_lines():
        console.print(line, markup=False, highlight=False)
    table = Table(title="objects", title_justify="left")
    for col in ("object", "table", "rows read", "kept", "fields", "missing", "extra", "rewritten"):
        table.add_column(col, justify="right" if col not in ("object", "table") else "left")
    table.add_column("not coerced", justify="right")
    for o in report.objects:
        table.add_row(
            o.name if o.in_schema else f"{o.name} (not in schema)",
            o.table,
            f"{o.rows_read:,}",
            f"{o.rows_kept:,}",
            str(len(o.mapped)),
            str(len(o.missing_fields)),
            str(len(o.extra_columns)),
            f"{sum(o.rewritten.values()):,}",
            f"{o.failed_values:,}",
        )
    console.print(table)
    for title, items in _sections(report):
        if items:
            console.print(title, markup=False, highlight=False)
            for item in items:
                console.print(f"  {item}", markup=False, highlight=False)


def _sections(report: ImportReport) -> list[tuple[str, list[str]]]:
    missing = [f"object {name}" for name in report.missing_objects]
    renamed, extra, notes, composed, readings, nulled = [], [], [], [], [], []
    for o in report.objects:
        missing += [f"field {o.name}.{f}" for f in o.missing_fields]
        renamed += [f"{o.table}.{col} -> {o.name}.{f}" for col, f in o.mapped.items() if col != f]
        if not o.in_schema:
            extra.append(f"table {o.table} ({o.rows_kept:,} rows, {len(o.extra_columns)} columns)")
        else:
            extra += [f"column {o.name}.{c} ({t})" for c, t in o.extra_columns.items()]
        composed += [f"{o.name}.{f} {how}" for f, how in o.composed.items()]
        readings += [f"{o.name}.{f}: {how}" for f, how in o.readings.items()]
        nulled += [f"{o.name}.{f}: {n:,}" for f, n in o.nulled.items()]
        notes += [f"{o.name}: {n}" for n in o.notes]
    return [
        ("Missing from the snapshot (not in the imported org):", missing),
        ("Columns matched to a field of another spelling:", renamed),
        ("Not in the benchmark schema (kept and queryable, described as such):", extra),
        ("Composed as Salesforce composes them (the snapshot has no such column):", composed),
        ("Dates written with slashes, read one order per column:", readings),
        ("Text read as null ('None', 'null', 'nan', ...):", nulled),
        (
            "Values that could not be coerced to their field's type (kept as stored):",
            unconverted_lines(report, kept=""),
        ),
        ("Notes:", notes),
        ("Tables skipped:", report.skipped_tables),
    ]
