"""`SalesforceOrg`: a real Salesforce org behind the same `Org` protocol as the local org.

Calls go through simple-salesforce's REST client. `SELECT COUNT()` keeps the server's `totalSize`
(so the count is not lost the way `query_all` loses it): pages are followed through
`nextRecordsUrl` here. Every failure comes back as `CODE: message` (in the `QueryResult` for
`query`/`search`, as a `SalesforceApiError` from `describe`/`get`/`related`); no credential ever
appears in a message or a repr. See `salesforce_auth` for the environment variables.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.salesforce_auth import (
    DEFAULT_TIMEOUT,
    SalesforceApiError,
    SalesforceConnection,
    error_offset,
)
from crmarena_tui.orgs.salesforce_schema import (
    build_schema,
    cache_path,
    fetch_describes,
    load_cache,
    object_names,
    save_cache,
)
from crmarena_tui.orgs.schema import ChildRelationship, Schema

__all__ = ["SalesforceApiError", "SalesforceOrg"]

log = logging.getLogger(__name__)

_COUNT_ONLY = re.compile(r"^\s*SELECT\s+COUNT\s*\(\s*\)\s+FROM\s", re.IGNORECASE)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,79}$")
_RECORD_ID = re.compile(r"^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$")
_NOT_FOUND_CODES = {"NOT_FOUND", "MALFORMED_ID", "INVALID_ID_FIELD", "INVALID_TYPE"}


def is_count_only(soql: str) -> bool:
    """True for `SELECT COUNT() FROM ...`, whose answer is `totalSize` and no records."""
    return bool(_COUNT_ONLY.match(soql))


class SalesforceOrg:
    """A Salesforce org of `org_type` b2b, b2c or original; logs in on first use."""

    RELATED_LIMIT = 200  # records per child relationship in `related` (as LocalOrg)
    SUBQUERIES_PER_CALL = 10  # child subqueries per SOQL statement in `related`
    MAX_RECORDS = 50_000  # pages stop here (the result then says done=False)

    def __init__(
        self,
        org_type: str = "b2b",
        *,
        today: date | None = None,
        schema_rows: Iterable[Mapping[str, Any]] | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        use_cache: bool = True,
    ) -> None:
        self._conn = SalesforceConnection(org_type, env=env, timeout=timeout)
        self.kind = "salesforce"
        self.org_type = org_type
        self.ref = f"salesforce:{org_type}"
        self.today = today or date.today()  # parity with LocalOrg; the server uses its own clock
        self._rows = [dict(r) for r in schema_rows] if schema_rows is not None else None
        self._use_cache = use_cache
        self._schema: Schema | None = None

    def __repr__(self) -> str:
        return f"SalesforceOrg(org_type={self.org_type!r}, connected={self._conn.connected})"

    __str__ = __repr__

    @property
    def connection(self) -> SalesforceConnection:
        return self._conn

    def close(self) -> None:
        """Forget the session (the next call logs in again)."""
        self._conn.disconnect()

    # --- queries -------------------------------------------------------------------------

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        """`today` is ignored: relative dates are the server's."""
        text = soql  # (a code fence is `orgs.base.route`'s)
        started = time.perf_counter()
        try:
            records, total, done = self._query_all_pages(text)
        except SalesforceApiError as exc:
            return QueryResult(
                error=str(exc),
                error_offset=error_offset(exc.message, text),
                elapsed_ms=_ms(started),
            )
        count_only = is_count_only(text)
        return QueryResult(
            records=[] if count_only else records,
            total_size=total,
            done=done,
            count_only=count_only,
            elapsed_ms=_ms(started),
        )

    def search(self, sosl: str, *, today: date | None = None) -> QueryResult:
        """`today` is ignored: relative dates are the server's."""
        text = sosl
        started = time.perf_counter()
        try:
            answer = self._conn.call(lambda sf: sf.restful("search/", params={"q": text}))
        except SalesforceApiError as exc:
            return QueryResult(
                error=str(exc),
                error_offset=error_offset(exc.message, text),
                kind="search",
                elapsed_ms=_ms(started),
            )
        if isinstance(answer, dict):
            records = list(answer.get("searchRecords") or [])
        else:  # very old API versions answered with a bare list
            records = list(answer or [])
        return QueryResult(
            records=records, total_size=len(records), kind="search", elapsed_ms=_ms(started)
        )

    def _query_all_pages(self, text: str) -> tuple[list[dict[str, Any]], int, bool]:
        page = self._conn.call(lambda sf: sf.query(text))
        records: list[dict[str, Any]] = list(page.get("records") or [])
        total = int(page.get("totalSize", len(records)))
        while not page.get("done", True) and page.get("nextRecordsUrl"):
            if len(records) >= self.MAX_RECORDS:
                log.warning("stopped after %d records of %d", len(records), total)
                return records, total, False
            url: str = page["nextRecordsUrl"]

            def more(sf: Any, url: str = url) -> dict[str, Any]:
                return sf.query_more(url, identifier_is_url=True)

            page = self._conn.call(more)
            records.extend(page.get("records") or [])
        return records, total, bool(page.get("done", True))

    # --- schema and records --------------------------------------------------------------

    def describe(self, refresh: bool = False) -> Schema:
        """The org's schema (cached in memory and on disk; `refresh=True` asks the server again)."""
        if self._schema is not None and not refresh:
            return self._schema
        path = cache_path(self.org_type, self._conn.credentials().cache_key())
        data = load_cache(path) if self._use_cache and not refresh else None
        if data is None:
            data = fetch_describes(self._conn, object_names(self._rows))
            if self._use_cache:
                try:
                    save_cache(path, data)
                except OSError as exc:
                    log.warning("could not cache the schema at %s: %s", path, exc)
        self._schema = build_schema(data, self._rows)
        return self._schema

    def get(self, object_name: str, record_id: str) -> dict[str, Any] | None:
        """The record with all its fields, or None when there is no such record."""
        if not (_NAME.match(object_name) and _RECORD_ID.match(record_id)):
            return None
        try:
            record = self._conn.call(lambda sf: sf.restful(f"sobjects/{object_name}/{record_id}"))
        except SalesforceApiError as exc:
            if exc.code in _NOT_FOUND_CODES:
                return None
            raise
        return record if isinstance(record, dict) else None

    def related(self, object_name: str, record_id: str) -> dict[str, list[dict[str, Any]]]:
        """Child relationship name -> its records (at most RELATED_LIMIT each) for one record."""
        schema = self.describe()
        obj = schema.object(object_name)
        if obj is None or not _RECORD_ID.match(record_id):
            return {}
        rels: list[ChildRelationship] = []
        for rel in schema.child_relationships(obj.name):
            if rel.name not in {r.name for r in rels}:
                rels.append(rel)
        out: dict[str, list[dict[str, Any]]] = {r.name: [] for r in rels}
        for start in range(0, len(rels), self.SUBQUERIES_PER_CALL):
            chunk = rels[start : start + self.SUBQUERIES_PER_CALL]
            subqueries = []
            for rel in chunk:
                child = schema.object(rel.child_object)
                names = child.field_names if child else ["Id"]
                fields = ["Id"] + [n for n in names if n != "Id"]
                subqueries.append(
                    f"(SELECT {', '.join(fields)} FROM {rel.name} LIMIT {self.RELATED_LIMIT})"
                )
            soql = f"SELECT Id, {', '.join(subqueries)} FROM {obj.name} WHERE Id = '{record_id}'"
            records, _, _ = self._query_all_pages(soql)
            if not records:
                return {}
            for rel in chunk:
                nested = records[0].get(rel.name)
                out[rel.name] = list(nested.get("records") or []) if nested else []
        return out


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
