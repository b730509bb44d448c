"""The result sets of a session as SQLite tables `r1`, `r2`, ... (numbered as the session's
queries and searches, in order), queried with plain SQLite SQL in an in-memory database.

A result set's records are read back from the session's `observation` events, so a resumed or
forked session has the same tables. Parent fields flatten with `_` (`Owner.Name` becomes
`Owner_Name`); child lists and other nested values are stored as JSON text. A query that failed
has no table.

SQL helpers for Salesforce dates and datetimes (text such as `2024-03-05T14:30:00.000+0000`):
`days_between(a, b)`, `hours_between(a, b)`, `seconds_between(a, b)` (b - a, fractional; NULL
when either is not a date), `sf_date(x)` (`YYYY-MM-DD`), `sf_datetime(x)` (`YYYY-MM-DD HH:MM:SS`
UTC, which SQLite's own date functions read), `sf_month(x)` (`YYYY-MM`), and the aggregate
`median(x)`. Only reading statements run (an authorizer refuses the rest), for at most
`timeout` seconds.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from crmarena_tui.orgs.observations import observation_records
from crmarena_tui.scratch import sf_dates
from crmarena_tui.scratch.compute_output import ComputeOutput

MAX_ROWS = 10_000
TIMEOUT_S = 5.0
_READING = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    getattr(sqlite3, "SQLITE_RECURSIVE", 33),
}


@dataclass(slots=True)
class ResultSet:
    """Query number `number` of the session: its text and records (None: no records, an error)."""

    number: int
    query: str
    records: list[dict[str, Any]] | None = None
    error: str | None = None

    @property
    def name(self) -> str:
        return f"r{self.number}"

    def info(self) -> TableInfo:
        """What the scratch pane lists about this result set."""
        columns: dict[str, str] = {}
        for record in self.records or []:
            for key in flatten(record):
                columns.setdefault(key.lower(), key)
        rows = None if self.records is None else len(self.records)
        return TableInfo(self.name, self.query, tuple(columns.values()), rows, self.error)


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A result set as the scratch pane lists it: `rows` None when the query failed."""

    name: str
    query: str
    columns: tuple[str, ...]
    rows: int | None
    error: str | None = None


class LoggedEvent(Protocol):
    """What the scratch pane (and the submit dialog's choices) read of a session's logged event:
    `storage/models.py`'s `Event` is one, named here so that nothing below the store imports it."""

    @property
    def kind(self) -> str: ...
    @property
    def actor(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def payload(self) -> dict[str, Any]: ...


def result_sets(events: Iterable[LoggedEvent]) -> list[ResultSet]:
    """Every query and search of the log, numbered from 1, with the records its observation
    holds."""
    sets: list[ResultSet] = []
    for ev in events:
        if ev.kind in ("query", "search") and ev.actor != "system":
            sets.append(ResultSet(len(sets) + 1, ev.text))
            continue
        if not sets or sets[-1].records is not None or sets[-1].error is not None:
            continue
        if ev.kind == "observation":
            records = observation_records(ev.text)
            if records is None:
                sets[-1].error = "the observation holds no records"
                continue
            sets[-1].records = records
        elif ev.kind == "error" and ev.actor == "system":
            sets[-1].error = ev.text
    return sets


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Parent fields as `Parent_Field`; lists and other nested values as JSON text."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{name}_"))
        elif isinstance(value, list):
            out[name] = json.dumps(value, ensure_ascii=False, default=str)
        elif isinstance(value, bool):
            out[name] = int(value)
        else:
            out[name] = value
    return out


class _Median:
    def __init__(self) -> None:
        self.values: list[float] = []

    def step(self, value: object) -> None:
        if isinstance(value, int | float):
            self.values.append(float(value))

    def finalize(self) -> float | None:
        return statistics.median(self.values) if self.values else None


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class ResultTables:
    """An in-memory database holding the result sets loaded so far."""

    def __init__(self, timeout: float = TIMEOUT_S, max_rows: int = MAX_ROWS) -> None:
        self.timeout = timeout
        self.max_rows = max_rows
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        for name, fn in (
            ("days_between", sf_dates.days_between),
            ("hours_between", sf_dates.hours_between),
            ("seconds_between", sf_dates.seconds_between),
        ):
            self.db.create_function(name, 2, fn, deterministic=True)
        for name, one in (
            ("sf_date", sf_dates.sf_date),
            ("sf_datetime", sf_dates.sf_datetime),
            ("sf_month", sf_dates.sf_month),
        ):
            self.db.create_function(name, 1, one, deterministic=True)
        self.db.create_aggregate("median", 1, _Median)  # type: ignore[arg-type]
        self.tables: dict[str, list[str]] = {}  # name -> columns
        self.sets: list[ResultSet] = []

    def sync(self, sets: list[ResultSet]) -> None:
        """Create the tables of `sets` not loaded yet."""
        self.sets = sets
        for result in sets:
            if result.records is not None and result.name not in self.tables:
                self._load(result.name, result.records)

    def _load(self, name: str, records: list[dict[str, Any]]) -> None:
        rows = [flatten(r) for r in records]
        columns: dict[str, str] = {}  # lower-cased name -> name (SQLite names ignore case)
        for row in rows:
            for key in row:
                columns.setdefault(key.lower(), key)
        names = list(columns.values()) or ["empty"]
        self.db.execute(f"CREATE TABLE {name} ({', '.join(_quote(c) for c in names)})")
        marks = ", ".join("?" for _ in names)
        self.db.executemany(
            f"INSERT INTO {name} VALUES ({marks})",
            [tuple(_cell(row.get(c)) for c in names) for row in rows],
        )
        self.db.commit()
        self.tables[name] = names

    def run(self, sql: str) -> ComputeOutput:
        """Run one reading statement; at most `max_rows` rows are fetched."""
        started = time.perf_counter()
        deadline = time.monotonic() + self.timeout

        def elapsed() -> float:
            return (time.perf_counter() - started) * 1000.0

        self.db.set_authorizer(lambda action, *_: 0 if action in _READING else 1)
        self.db.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
        try:
            cursor = self.db.execute(sql)
            fetched = cursor.fetchmany(self.max_rows + 1)
            columns = [d[0] for d in cursor.description or []]
        except sqlite3.Error as exc:
            return ComputeOutput("sql", sql, error=self._explain(exc), elapsed_ms=elapsed())
        finally:
            self.db.set_authorizer(None)
            self.db.set_progress_handler(None, 0)
        truncated = len(fetched) > self.max_rows
        return ComputeOutput(
            "sql",
            sql,
            columns=columns,
            rows=[tuple(r) for r in fetched[: self.max_rows]],
            truncated=truncated,
            elapsed_ms=elapsed(),
        )

    def _explain(self, exc: sqlite3.Error) -> str:
        message = str(exc)
        if message == "interrupted":
            return f"TIMEOUT: the statement ran longer than {self.timeout:g} s and was stopped"
        if message == "not authorized":
            return "NOT_ALLOWED: only reading statements (SELECT, WITH) run in the scratch pane"
        if message.startswith("no such table"):
            failed = [s.name for s in self.sets if s.records is None]
            have = ", ".join(self.tables) or "none yet: run a query first"
            note = f"; {', '.join(failed)} failed and have no table" if failed else ""
            return f"SQL error: {message} (tables: {have}{note})"
        return f"SQL error: {message}"

    def close(self) -> None:
        self.db.close()


def _cell(value: object) -> object:
    if value is None or isinstance(value, int | float | str):
        return value
    return json.dumps(value, default=str)
