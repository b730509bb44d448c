"""One session's scratch pane: an expression, or SQL over the session's result sets."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from crmarena_tui.scratch.compute_output import ComputeOutput
from crmarena_tui.scratch.expression_evaluator import ExpressionEvaluator
from crmarena_tui.scratch.result_tables import LoggedEvent, ResultSet, ResultTables, result_sets

_SQL_START = re.compile(r"^\s*(?:select|with)\b", re.IGNORECASE)


def is_sql(text: str) -> bool:
    """SQL starts with SELECT or WITH; anything else is an expression."""
    return bool(_SQL_START.match(text))


class Scratch:
    """Evaluates the scratch pane's input against a session's events."""

    def __init__(self, today: date | None = None, timeout: float | None = None) -> None:
        self.evaluator = ExpressionEvaluator(today)
        self.tables = ResultTables() if timeout is None else ResultTables(timeout=timeout)

    def run(self, text: str, events: Sequence[LoggedEvent]) -> ComputeOutput:
        if is_sql(text):
            self.tables.sync(result_sets(events))
            return self.tables.run(text)
        return self.evaluator.evaluate(text)

    def result_sets(self, events: Sequence[LoggedEvent]) -> list[ResultSet]:
        """The session's result sets, their tables loaded (for the pane's list of tables)."""
        self.tables.sync(result_sets(events))
        return self.tables.sets
