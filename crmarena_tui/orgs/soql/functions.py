"""SOQL functions: aggregates, date functions and pass-through wrappers, as SQLite expressions."""

from __future__ import annotations

AGGREGATES = frozenset({"COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX"})
# Wrappers that change only how Salesforce formats a value; locally they are the value itself.
PASSTHROUGH = frozenset({"TOLABEL", "FORMAT", "CONVERTCURRENCY", "CONVERTTIMEZONE"})

_YEAR = "CAST(substr({x}, 1, 4) AS INTEGER)"
_MONTH = "CAST(substr({x}, 6, 2) AS INTEGER)"
_DAY = "CAST(substr({x}, 9, 2) AS INTEGER)"
_DOY = "CAST(strftime('%j', substr({x}, 1, 10)) AS INTEGER)"

# name -> (SQL template over the argument {x}, result type, argument must be a datetime)
DATE_FUNCTIONS: dict[str, tuple[str, str, bool]] = {
    "CALENDAR_YEAR": (_YEAR, "int", False),
    "CALENDAR_MONTH": (_MONTH, "int", False),
    "CALENDAR_QUARTER": (f"(({_MONTH} + 2) / 3)", "int", False),
    "DAY_IN_MONTH": (_DAY, "int", False),
    "DAY_IN_WEEK": ("(CAST(strftime('%w', substr({x}, 1, 10)) AS INTEGER) + 1)", "int", False),
    "DAY_IN_YEAR": (_DOY, "int", False),
    "WEEK_IN_YEAR": (f"(({_DOY} - 1) / 7 + 1)", "int", False),
    "WEEK_IN_MONTH": (f"(({_DAY} - 1) / 7 + 1)", "int", False),
    "HOUR_IN_DAY": ("CAST(substr({x}, 12, 2) AS INTEGER)", "int", True),
    "DAY_ONLY": ("substr({x}, 1, 10)", "date", True),
}
for _cal, _fiscal in (
    ("CALENDAR_YEAR", "FISCAL_YEAR"),
    ("CALENDAR_MONTH", "FISCAL_MONTH"),
    ("CALENDAR_QUARTER", "FISCAL_QUARTER"),
):
    DATE_FUNCTIONS[_fiscal] = DATE_FUNCTIONS[_cal]

# SQLite functions the emitted SQL may call; the org's authorizer refuses every other function.
SQL_FUNCTIONS = frozenset(
    {
        "count",
        "sum",
        "avg",
        "min",
        "max",
        "substr",
        "strftime",
        "like",
        "sosl_match",
    }
)
