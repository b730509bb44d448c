"""One session's view of a shared org: every query and search carries the session's date.

An org object is opened once and shared by every session on it (the app keeps one per org type;
a batch worker one per org type). Each task has its own "today" (`Task.today()`), so the date
cannot live on the shared org: the Episode wraps the org in a `DatedOrg` that passes its date
with each call.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from crmarena_tui.orgs.base import Org, QueryResult
from crmarena_tui.orgs.schema import Schema


class DatedOrg:
    """An `Org` whose queries count relative dates from `today` (None: the org's own date)."""

    def __init__(self, org: Org, today: date | None) -> None:
        self.org: Org = org.org if isinstance(org, DatedOrg) else org
        self.kind = self.org.kind
        self.ref = self.org.ref
        self.org_type = self.org.org_type
        own: date | None = getattr(self.org, "today", None)
        self.today: date | None = today or own

    @property
    def lenient(self) -> bool | None:
        """The shared org's mode, strict or lenient, when it has one (orgs/strictness.py)."""
        value = getattr(self.org, "lenient", None)
        return value if isinstance(value, bool) else None

    def __repr__(self) -> str:
        return f"DatedOrg({self.org!r}, today={self.today})"

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        return self.org.query(soql, today=today or self.today)

    def search(self, sosl: str, *, today: date | None = None) -> QueryResult:
        return self.org.search(sosl, today=today or self.today)

    def describe(self) -> Schema:
        return self.org.describe()

    def get(self, object_name: str, record_id: str) -> dict[str, Any] | None:
        return self.org.get(object_name, record_id)

    def related(self, object_name: str, record_id: str) -> dict[str, list[dict[str, Any]]]:
        return self.org.related(object_name, record_id)

    def close(self) -> None:
        """Nothing to close: the shared org belongs to whoever opened it."""
