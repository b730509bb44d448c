"""An org that is not open: what an Episode that only re-grades a stored answer is given."""

from __future__ import annotations

from datetime import date
from typing import Any

from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.schema import Schema


class DetachedOrg:
    """An org that is not open: enough for an Episode that only re-grades (it never queries);
    a query says so instead of reaching a backend."""

    def __init__(self, kind: str, ref: str, org_type: str) -> None:
        self.kind, self.ref, self.org_type = kind, ref, org_type

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        return QueryResult(error="INVALID_SESSION_ID: the org is not open (re-grading only)")

    def search(self, sosl: str, *, today: date | None = None) -> QueryResult:
        return QueryResult(
            error="INVALID_SESSION_ID: the org is not open (re-grading only)", kind="search"
        )

    def describe(self) -> Schema:
        return Schema()

    def get(self, object_name: str, record_id: str) -> dict[str, Any] | None:
        return None

    def related(self, object_name: str, record_id: str) -> dict[str, list[dict[str, Any]]]:
        return {}

    def close(self) -> None:
        pass
