"""`TaskMatcher`: the task a trajectory from another harness worked, found in a task source by
its idx, else by its query text (whitespace collapsed, case kept)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.tasks.table import TaskRow, TaskTable

DEFAULT_SOURCE = "hf:b2b"  # (upstream imports' default org, too)


def _load(source: str) -> TaskTable:
    from crmarena_tui.demo.sources import load_task_table

    return load_task_table(source)


class TaskMatcher:
    """Tasks of each source, loaded once. `source`, when given, overrides the trajectories' own
    (the command's `--task-source`); `load` reads a source's table (tests may give their own)."""

    def __init__(
        self, source: str | None = None, *, load: Callable[[str], TaskTable] = _load
    ) -> None:
        self.source = source
        self._load = load
        self._tables: dict[str, tuple[dict[int, TaskRow], dict[str, TaskRow]]] = {}

    def source_for(self, own: str | None) -> str:
        """The source a trajectory recording `own` (or none) is matched in."""
        return self.source or own or DEFAULT_SOURCE

    def match(self, source: str, idx: int | None, query: str | None) -> TaskRow | None:
        """The row of task `idx` of `source`, else the first whose query is `query`; None when
        neither matches. Raises what loading the source raises (`TaskLoadError`, `ValueError`)."""
        by_idx, by_query = self._table(source)
        if idx is not None and idx in by_idx:
            return by_idx[idx]
        if query:
            return by_query.get(_words(query))
        return None

    def _table(self, source: str) -> tuple[dict[int, TaskRow], dict[str, TaskRow]]:
        if source not in self._tables:
            rows = list(self._load(source))
            by_query: dict[str, TaskRow] = {}
            for row in rows:
                by_query.setdefault(_words(row.query), row)
            self._tables[source] = ({row.idx: row for row in rows}, by_query)
        return self._tables[source]


def _words(text: str) -> str:
    return " ".join(text.split())
