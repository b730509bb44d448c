"""The few statistics a study report needs, in plain Python (no numpy or scipy at start-up):
Wilson's score interval for a share, a percentile bootstrap interval for a mean. Cohen's and
Fleiss' kappa are `reports.agreement`'s (`fleiss_kappa` is re-exported here)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from crmarena_tui.reports.agreement import fleiss_kappa

__all__ = ["bootstrap_mean", "fleiss_kappa", "wilson"]

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 17


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for the share successes / n (95% by default).

    centre = (p + z^2 / 2n) / (1 + z^2 / n), half-width = z / (1 + z^2 / n) * sqrt(p(1 - p) / n +
    z^2 / 4n^2). Unlike p +/- z * se it stays inside [0, 1] and is not empty at 0/n or n/n."""
    if n <= 0:
        raise ValueError("a Wilson interval needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n ({successes} of {n})")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


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
