"""The few statistics a study report needs, in plain Python (no numpy or scipy at start-up):
a percentile bootstrap interval for a mean. Cohen's and Fleiss' kappa are `reports.agreement`'s,
Wilson's score interval `reports.intervals`' (both re-exported here)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from crmarena_tui.reports.agreement import fleiss_kappa
from crmarena_tui.reports.intervals import Z95, wilson

__all__ = ["Z95", "bootstrap_mean", "fleiss_kappa", "wilson"]

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 17


def bootstrap_mean(
    values: Sequence[float],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """A percentile bootstrap interval for the mean of `values`: the mean of `resamples` samples
    drawn with replacement (a fixed seed, so the same values give the same interval), and the
    (1 - level) / 2 and (1 + level) / 2 quantiles of those means (nearest rank)."""
    if not values:
        raise ValueError("a bootstrap interval needs at least one value")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    low = means[max(0, math.ceil(tail * resamples) - 1)]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return low, high
