"""The embedded org: an SQLite org file answering SOQL and SOSL like Salesforce, read-only.

The file is opened with `mode=ro` and every connection carries an SQLite authorizer that allows
only reads and the handful of functions the translator emits, so no query text can write, attach,
or change a pragma. Connections come from a small pool, one per call in flight, so queries may run from any
number of worker threads at once.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import date
from pathlib import Path
from typing import Any

from crmarena_tui.errors import UserError
from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.schema import ObjectDef, Schema, read_meta, read_schema
from crmarena_tui.orgs.soql.conditions import to_18
from crmarena_tui.orgs.soql.engine import compile_query, compile_search, run_plan, run_search
from crmarena_tui.orgs.soql.errors import SoqlError
from crmarena_tui.orgs.soql.functions import SQL_FUNCTIONS
from crmarena_tui.orgs.soql.parser import parse_soql, parse_sosl
from crmarena_tui.orgs.soql.schema_index import SchemaIndex, quote_ident
from crmarena_tui.orgs.soql.shape import attributes, converter
from crmarena_tui.orgs.soql.sosl import sosl_match
from crmarena_tui.orgs.unconverted import read_unconverted, warning_for
from crmarena_tui.settings.sqlite_readonly import open_readonly

_ALLOWED_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ})


def _authorizer(
    action: int, arg1: str | None, arg2: str | None, _db: str | None, _source: str | None
) -> int:
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION and arg2 is not None and arg2.lower() in SQL_FUNCTIONS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _error_for(exc: BaseException) -> tuple[str, str]:
    if isinstance(exc, RecursionError):
        return "QUERY_TOO_COMPLICATED", "the query is nested too deeply"
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in str(exc):
        return "INVALID_SESSION_ID", "the local org is closed"
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc)
        if "interrupted" in text:
            return "QUERY_TIMEOUT", "Your query request was running for too long."
        if (
            "too many" in text
            or "too large" in text
            or "stack overflow" in text
            or "too deep" in text
        ):
            return "QUERY_TOO_COMPLICATED", f"the query is too complicated ({text})"
        if "not authorized" in text or "readonly" in text or "read-only" in text:
            return "INSUFFICIENT_ACCESS", "the local org is read-only"
        if "pattern too complex" in text:
            return "MALFORMED_QUERY", "the LIKE pattern is too long"
    if isinstance(exc, OverflowError):  # a number the parser let through (its checks come first)
        return "NUMBER_OUTSIDE_VALID_RANGE", "a number in the query is outside the valid range"
    if isinstance(exc, UnicodeError):
        return "MALFORMED_QUERY", "the query holds a character with no UTF-8 form"
    return "UNKNOWN_EXCEPTION", f"{type(exc).__name__}: {exc}"


class _Handle:
    """A pooled connection and the deadline its progress handler enforces."""

    __slots__ = ("db", "deadline")

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.deadline: float | None = None

    def progress(self) -> int:
        deadline = self.deadline
        return 1 if deadline is not None and time.monotonic() > deadline else 0


class OrgFileError(UserError, ValueError):
    """The file exists but is no org file (not SQLite, or without the schema tables)."""


class LocalOrg:
    """An org stored in an SQLite file (see `crmarena_tui.orgs.schema` for the format)."""

    kind = "local"
    timeout_s: float = 30.0  # a query running longer is interrupted (QUERY_TIMEOUT)
    related_limit: int = 200  # records per related list in `related()`
    cache_plans: bool = True  # reuse the translation of a query text seen before
    _CACHE_SIZE = 256
    MAX_IDLE = 8  # pooled connections kept open between calls

    def __init__(
        self, path: str | Path, *, today: date | None = None, lenient: bool = False
    ) -> None:
        self.path = Path(path)
        self.ref = str(path)
        # Strict (the default) refuses what Salesforce refuses; lenient answers it as SQL would.
        self.lenient = lenient
        if not self.path.is_file():
            raise FileNotFoundError(f"no org file at {self.path}")
        self._lock = threading.Lock()
        self._idle: list[_Handle] = []
        self._closed = False
        self._plans: OrderedDict[tuple[str, str, date, bool], Any] = OrderedDict()
        try:
            conn = open_readonly(self.path, check_same_thread=False)
            try:
                self._schema: Schema = read_schema(conn)
                meta = read_meta(conn)
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise OrgFileError(f"{self.path} is not an org file ({exc})") from exc
        self._index = SchemaIndex(self._schema)
        self.meta = meta
        self.org_type: str = meta.get("org_type", "b2b")
        # fields an import left values in as stored (none for a built org): queries on them warn
        self.unconverted = read_unconverted(meta)
        # The org's own date (its file's, else the real one); a call's `today` overrides it.
        self.today: date = today or self._meta_today(meta) or date.today()

    @staticmethod
    def _meta_today(meta: dict[str, str]) -> date | None:
        try:
            return date.fromisoformat(meta["today"][:10]) if meta.get("today") else None
        except ValueError:
            return None

    def __repr__(self) -> str:
        mode = ", lenient" if self.lenient else ""
        return f"LocalOrg({self.ref!r}, org_type={self.org_type!r}, today={self.today}{mode})"

    def __enter__(self) -> LocalOrg:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- connections
    def _open(self) -> _Handle:
        db = open_readonly(self.path, check_same_thread=False)
        db.execute("PRAGMA query_only = ON")
        db.create_function("sosl_match", -1, sosl_match, deterministic=True)
        db.set_authorizer(_authorizer)
        handle = _Handle(db)
        db.set_progress_handler(handle.progress, 20_000)
        return handle

    @contextmanager
    def _session(self) -> Iterator[sqlite3.Connection]:
        """A connection for one call, used by one thread at a time and returned to a pool after
        (so a worker thread per query does not leave a connection behind per thread)."""
        with self._lock:
            if self._closed:
                raise SoqlError("INVALID_SESSION_ID", "the local org is closed")
            handle = self._idle.pop() if self._idle else None
        if handle is None:
            handle = self._open()
        handle.deadline = time.monotonic() + self.timeout_s
        try:
            yield handle.db
        finally:
            handle.deadline = None
            with self._lock:
                keep = not self._closed and len(self._idle) < self.MAX_IDLE
                if keep:
                    self._idle.append(handle)
            if not keep:
                with suppress(sqlite3.Error):
                    handle.db.close()

    def close(self) -> None:
        """Close the idle connections; one still in use closes when its call ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for handle in idle:
            with suppress(sqlite3.Error):
                handle.db.close()

    # ---- queries
    def _cached(self, kind: str, text: str, today: date, build: Callable[[], Any]) -> Any:
        if not self.cache_plans:
            return build()
        key = (kind, text, today, self.lenient)
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self._plans.move_to_end(key)
                return plan
        plan = build()
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > self._CACHE_SIZE:
                self._plans.popitem(last=False)
        return plan

    def _warning(self, kind: str, text: str, day: date) -> str | None:
        """The warning a statement earns by leaning on fields holding unconverted values."""
        if not self.unconverted:
            return None

        def build() -> str:
            try:
                statement = parse_soql(text) if kind == "q" else parse_sosl(text)
                return warning_for(self._index, self.unconverted, statement)
            except Exception:  # noqa: BLE001 - a warning never turns an answer into an error
                return ""

        return self._cached("w" + kind, text, day, build) or None

    def _run(self, raw: str, kind: str, work: Callable[[str], QueryResult]) -> QueryResult:
        start = time.perf_counter()
        text = raw if isinstance(raw, str) else ""  # (a code fence is `orgs.base.route`'s)
        try:
            result = work(text)
        except SoqlError as exc:
            offset = exc.offset
            error = exc.worded(text)  # as the live org's API words it
            result = QueryResult(error=error, error_offset=offset, kind=kind)  # type: ignore[arg-type]
        except Exception as exc:  # noqa: BLE001 - every failure becomes an error result
            code, message = _error_for(exc)
            result = QueryResult(error=f"{code}: {message}", kind=kind)  # type: ignore[arg-type]
        result.elapsed_ms = (time.perf_counter() - start) * 1000
        return result

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        """Run one SOQL statement; errors come back as `CODE: message`, never raised."""
        day = today or self.today

        def work(text: str) -> QueryResult:
            plan = self._cached(
                "q", text, day, lambda: compile_query(self._index, text, day, lenient=self.lenient)
            )
            with self._session() as conn:
                records, total = run_plan(conn, plan)
            result = QueryResult(records=records, total_size=total, count_only=plan.mode == "count")
            result.warning = self._warning("q", text, day)
            return result

        return self._run(soql, "query", work)

    def search(self, sosl: str, *, today: date | None = None) -> QueryResult:
        """Run one SOSL statement (`FIND {...} ...`); records of every RETURNING object."""
        day = today or self.today

        def work(text: str) -> QueryResult:
            plan = self._cached(
                "s", text, day, lambda: compile_search(self._index, text, day, lenient=self.lenient)
            )
            with self._session() as conn:
                records = run_search(conn, plan)
            result = QueryResult(records=records, total_size=len(records), kind="search")
            result.warning = self._warning("s", text, day)
            return result

        return self._run(sosl, "search", work)

    # ---- browsing
    def describe(self) -> Schema:
        return self._schema

    def _select_all(
        self, obj: ObjectDef, where_field: str, value: Any, limit: int
    ) -> list[dict[str, Any]]:
        cols = ", ".join(quote_ident(f.name) for f in obj.fields)
        sql = (
            f"SELECT {cols} FROM {quote_ident(obj.name)} WHERE {quote_ident(where_field)} = ? "
            "LIMIT ?"
        )
        convs = [converter(f.type) for f in obj.fields]
        names = obj.field_names
        id_pos = names.index("Id") if "Id" in names else 0
        out = []
        with self._session() as conn:
            rows = conn.execute(sql, (value, limit)).fetchall()
        for row in rows:
            rec: dict[str, Any] = {"attributes": attributes(obj.name, row[id_pos])}
            for name, conv, v in zip(names, convs, row, strict=True):
                rec[name] = conv(v) if conv is not None and v is not None else v
            out.append(rec)
        return out

    def get(self, object_name: str, record_id: str) -> dict[str, Any] | None:
        """The record with every field, shaped like Salesforce's, or None."""
        obj = self._index.object(object_name)
        if obj is None or obj.field("Id") is None:
            return None
        rows = self._select_all(obj, "Id", to_18(record_id), 1)
        return rows[0] if rows else None

    def related(self, object_name: str, record_id: str) -> dict[str, list[dict[str, Any]]]:
        """Child relationship name -> the child records (at most `related_limit` per list)."""
        obj = self._index.object(object_name)
        out: dict[str, list[dict[str, Any]]] = {}
        if obj is None:
            return out
        for rel in self._index.children(obj):
            child = self._index.object(rel.child_object)
            if child is None:
                continue
            records = self._select_all(child, rel.field, to_18(record_id), self.related_limit)
            out.setdefault(rel.name, []).extend(records)
        return out
