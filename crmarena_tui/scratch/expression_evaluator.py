"""Arithmetic and date expressions, evaluated by simpleeval (never Python's `eval`).

Numbers, `+ - * / // % **`, comparisons, lists, and these functions: `date("2024-03-05")` and
`datetime(...)` (any Salesforce date or datetime text), `days_between(a, b)`,
`hours_between(a, b)`, `seconds_between(a, b)`, `mean`, `median`, `stdev`, `sum`, `min`, `max`,
`abs`, `round`, `sqrt`, `len`, `int`, `float`. `today` is the task's date. Subtracting two dates
gives a span, shown in days.
"""

from __future__ import annotations

import math
import statistics
import time
from datetime import date, datetime, timedelta
from typing import Any

from crmarena_tui.scratch import sf_dates
from crmarena_tui.scratch.compute_output import ComputeOutput


def _date(value: object) -> datetime:
    parsed = sf_dates.parse(value)
    if parsed is None:
        raise ValueError(f"not a date or datetime: {value!r}")
    return parsed


def _values(*args: Any) -> list[Any]:
    """`mean([1, 2])` and `mean(1, 2)` alike."""
    if len(args) == 1 and isinstance(args[0], list | tuple):
        return list(args[0])
    return list(args)


FUNCTIONS: dict[str, Any] = {
    "date": _date,
    "datetime": _date,
    "days_between": sf_dates.days_between,
    "hours_between": sf_dates.hours_between,
    "seconds_between": sf_dates.seconds_between,
    "mean": lambda *a: statistics.fmean(_values(*a)),
    "avg": lambda *a: statistics.fmean(_values(*a)),
    "median": lambda *a: statistics.median(_values(*a)),
    "stdev": lambda *a: statistics.stdev(_values(*a)),
    "sum": lambda *a: math.fsum(_values(*a)),
    "min": lambda *a: min(_values(*a)),
    "max": lambda *a: max(_values(*a)),
    "abs": abs,
    "round": round,
    "sqrt": math.sqrt,
    "len": len,
    "int": int,
    "float": float,
}


def format_value(value: object) -> str:
    """A result as a person reads it: spans in days, floats without noise, dates in ISO."""
    if isinstance(value, timedelta):
        days = value.total_seconds() / 86400.0
        return f"{format_value(days)} days"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        text = f"{value:.6f}".rstrip("0").rstrip(".")
        return text if text not in ("", "-0") else "0"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


class ExpressionEvaluator:
    """Evaluates one expression at a time; `today` is the task's date (or None)."""

    def __init__(self, today: date | None = None) -> None:
        self.today = today

    def evaluate(self, text: str) -> ComputeOutput:
        from simpleeval import EvalWithCompoundTypes

        names: dict[str, Any] = {"True": True, "False": False, "None": None, "pi": math.pi}
        if self.today is not None:
            names["today"] = _date(self.today)
        evaluator = EvalWithCompoundTypes(functions=dict(FUNCTIONS), names=names)
        started = time.perf_counter()
        try:
            value = evaluator.eval(text.strip())
        except Exception as exc:  # simpleeval's own errors, and the functions' ValueErrors
            return ComputeOutput(
                "expression",
                text,
                error=f"{type(exc).__name__}: {exc}",
                elapsed_ms=(time.perf_counter() - started) * 1000.0,
            )
        return ComputeOutput(
            "expression",
            text,
            value=format_value(value),
            elapsed_ms=(time.perf_counter() - started) * 1000.0,
        )
