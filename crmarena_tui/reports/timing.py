"""How long humans take per task type: median and spread (quartiles, IQR, min, max) of active time."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Spread:
    group: str
    n: int
    median: float
    q1: float
    q3: float
    minimum: float
    maximum: float

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def row(self) -> dict:
        return {
            "task_type": self.group,
            "n": self.n,
            "median_s": round(self.median, 2),
            "q1_s": round(self.q1, 2),
            "q3_s": round(self.q3, 2),
            "iqr_s": round(self.iqr, 2),
            "min_s": round(self.minimum, 2),
            "max_s": round(self.maximum, 2),
        }


def spread(group: str, values: list[float]) -> Spread:
    """Median and quartiles (inclusive method: the quartiles of 1..5 are 2 and 4)."""
    data = sorted(values)
    if len(data) == 1:
        q1 = q3 = data[0]
    else:
        q1, _, q3 = statistics.quantiles(data, n=4, method="inclusive")
    return Spread(group, len(data), statistics.median(data), q1, q3, data[0], data[-1])


def spread_of(group: str, n: int, at: Callable[[int], float]) -> Spread:
    """`spread` of `n` sorted values read by rank (from 0) through `at`, with the formulas of
    `statistics.median` and `statistics.quantiles(method="inclusive")`: the report in SQL
    (`reports.report_latest`) fetches only the ranks they read."""
    if n == 1:
        q1 = q3 = at(0)
    else:
        quartiles = []
        for i in (1, 3):
            j, delta = divmod(i * (n - 1), 4)
            quartiles.append((at(j) * (4 - delta) + at(j + 1) * delta) / 4)
        q1, q3 = quartiles
    median = at(n // 2) if n % 2 else (at(n // 2 - 1) + at(n // 2)) / 2
    return Spread(group, n, median, q1, q3, at(0), at(n - 1))
