"""Build the demo orgs: deterministic SQLite org files with the reference schema.

`build_org(path, org_type=..., seed=..., scale=...)` writes one org file: the schema tables and
one table per object (`Id TEXT PRIMARY KEY`, dates `YYYY-MM-DD`, datetimes
`YYYY-MM-DDTHH:MM:SS.000+0000`, booleans 0/1), indexes on reference and date fields, and `_sf_meta`
(org_type, seed, scale, generator_version, built_at, today, counts). The same seed, scale and
org type always give the same rows. The file is written to a temporary name and renamed into
place, so readers never see half an org.

`ensure_demo_org(org_type)` returns the cached default org (seed 0, scale 1.0) at
`locations.demo_org_path(org_type)`, building it on first use or when `GENERATOR_VERSION` changed;
a lock file keeps two processes from building it at once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from crmarena_tui.orgs.meta import read_meta  # not the schema module: the app reads org_meta early
from crmarena_tui.settings.sqlite_readonly import open_readonly

if TYPE_CHECKING:  # the builders load when an org is built, not when one is only checked
    from crmarena_tui.demo.orggen.context import BuildContext

# 3: field properties (filterable, sortable, ...) in _sf_fields; 4: richer text (multi-speaker
# transcripts, email threads, longer case descriptions, sectioned articles), more wrong-stage,
# activity-priority and configuration-breaking records, more monthly case bursts; 5: the standard
# fields a live org has beyond the benchmark's (`orgs/schema_standard.py`), every other value kept
GENERATOR_VERSION = "5"
Progress = Callable[[float, str], None]


def _steps() -> list[tuple[str, Callable[[BuildContext], None]]]:
    from crmarena_tui.demo.orggen.activities import build_activities
    from crmarena_tui.demo.orggen.catalog import build_catalog
    from crmarena_tui.demo.orggen.leads import build_leads
    from crmarena_tui.demo.orggen.people import build_people
    from crmarena_tui.demo.orggen.sales import build_sales
    from crmarena_tui.demo.orggen.service import build_cases
    from crmarena_tui.demo.orggen.standard import build_standard_fields
    from crmarena_tui.demo.orggen.web import build_web_orders

    return [
        ("catalogue and knowledge", build_catalog),
        ("users, territories, accounts, contacts", build_people),
        ("leads and lead calls", build_leads),
        ("opportunities, quotes, contracts, orders", build_sales),
        ("tasks, events, calls, sales emails", build_activities),
        ("web orders", build_web_orders),
        ("cases, history, emails, chats", build_cases),
        ("standard fields", build_standard_fields),  # last: its own draws move no other value
    ]


def generate(
    org_type: str = "b2b", *, seed: int = 0, scale: float = 1.0, progress: Progress | None = None
) -> BuildContext:
    """All rows of an org, in memory (`ctx.rows[object]` lists of field dicts)."""
    from crmarena_tui.demo.orggen.context import BuildContext

    if scale <= 0:
        raise ValueError("scale must be positive")
    ctx = BuildContext(org_type=org_type, seed=seed, scale=scale)
    steps = _steps()
    for n, (label, step) in enumerate(steps):
        if progress:
            progress(n / (len(steps) + 1), label)
        step(ctx)
    return ctx


def build_org(
    path: str | os.PathLike[str],
    *,
    org_type: str = "b2b",
    seed: int = 0,
    scale: float = 1.0,
    progress: Progress | None = None,
) -> Path:
    """Write a demo org file at `path` (replacing any file there) and return the path."""
    path = Path(path).expanduser()
    ctx = generate(org_type, seed=seed, scale=scale, progress=progress)
    if progress:
        progress(0.9, "writing the org file")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        _write(tmp, ctx)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    if progress:
        progress(1.0, "done")
    return path


def _write(path: Path, ctx: BuildContext) -> None:
    from crmarena_tui.demo.orggen.context import ORG_TODAY
    from crmarena_tui.orgs.meta import write_meta
    from crmarena_tui.orgs.schema import DATE_INDEXES, write_schema
    from crmarena_tui.orgs.schema_standard import org_schema

    schema = org_schema()
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        with conn:
            write_schema(conn, schema)
            for name, obj in schema.objects.items():
                cols = obj.field_names
                marks = ", ".join("?" for _ in cols)
                col_sql = ", ".join(f'"{c}"' for c in cols)
                conn.executemany(
                    f'INSERT INTO "{name}" ({col_sql}) VALUES ({marks})',
                    ([row.get(c) for c in cols] for row in ctx.rows[name]),
                )
            for name, fields in DATE_INDEXES.items():
                for f in fields:
                    conn.execute(f'CREATE INDEX IF NOT EXISTS "ix_{name}_{f}" ON "{name}" ("{f}")')
            counts = {name: len(rows) for name, rows in ctx.rows.items()}
            write_meta(
                conn,
                {
                    "org_type": ctx.org_type,
                    "seed": str(ctx.seed),
                    "scale": repr(ctx.scale),
                    "generator_version": GENERATOR_VERSION,
                    "built_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "today": ORG_TODAY.isoformat(),
                    "company": ctx.theme.company,
                    "counts": json.dumps(counts, sort_keys=True),
                },
            )
        conn.execute("ANALYZE")
    finally:
        conn.close()


def org_meta(path: str | os.PathLike[str]) -> dict[str, str]:
    """The `_sf_meta` of an org file ({} when the file is missing or not an org)."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        conn = open_readonly(path)
        try:
            return read_meta(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return {}


def _is_current(path: Path) -> bool:
    return org_meta(path).get("generator_version") == GENERATOR_VERSION


def ensure_demo_org(org_type: str = "b2b", progress: Progress | None = None) -> Path:
    """The default demo org of `org_type` (seed 0, scale 1.0), built on first use and cached."""
    from crmarena_tui.settings import locations

    path = locations.demo_org_path(org_type)
    if _is_current(path):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    with FileLock(lock):
        if not _is_current(path):  # another process may have built it while we waited
            build_org(path, org_type=org_type, seed=0, scale=1.0, progress=progress)
    return path


class FileLock:
    """An exclusive lock on a file (fcntl where available, else an O_EXCL marker file)."""

    def __init__(self, path: Path, timeout: float = 300.0) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on POSIX
            fcntl = None  # type: ignore[assignment]
        if fcntl is not None:
            self._fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            return self
        deadline = time.monotonic() + self.timeout  # pragma: no cover
        while True:  # pragma: no cover
            try:
                self._fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
                return self
            except FileExistsError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"timed out waiting for {self.path}") from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            try:
                import fcntl

                fcntl.flock(self._fd, fcntl.LOCK_UN)
            except ImportError:  # pragma: no cover
                os.unlink(self.path)
            os.close(self._fd)
            self._fd = None
