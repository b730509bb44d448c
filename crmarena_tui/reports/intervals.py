"""Quantiles and intervals for a success rate, in plain Python (issue 35: no scipy at run time;
tests/reports/test_report_intervals.py checks every function against scipy and statsmodels).

- `normal_ppf`: the standard normal's quantile (Acklam's rational approximation, then one
  Halley step on `math.erfc`: good to about 1e-15).
- `betainc`: the regularised incomplete beta function I_x(a, b), by its continued fraction
  (modified Lentz), on the side of x where the fraction converges fast.
- `beta_ppf`: its inverse in x, by Newton's method on I_x (its derivative is the Beta density)
  inside a bracket that is halved whenever a step would leave it (I_x is increasing in x).
- `t_ppf`: Student's t quantile through the identity P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2).
- The intervals of a proportion c/n: Wilson's score interval (the default with one trial per
  task), Clopper-Pearson's exact interval (the Beta quantiles that invert the binomial test:
  conservative, for small groups) and the central interval of the posterior Beta(c+1, n-c+1) under
  a uniform prior ("beta"). The normal (Wald) interval p +- z*se is not offered: it is wrong under
  a few hundred items and near 0 or 1.
- `mean_interval`: a mean +- t*se, with the t quantile of its degrees of freedom (the tasks, or the
  clusters, less one), kept inside [0, 1] (a rate) or [-1, 1] (a paired difference): the interval
  of task means when tasks have several trials, and of a paired difference.
"""

from __future__ import annotations

import functools
import math

LEVEL = 0.95
Z95 = 1.959963984540054  # the standard normal's 97.5th percentile
METHODS = ("wilson", "clopper-pearson", "beta")
METHOD_NAMES = {
    "wilson": "Wilson score",
    "clopper-pearson": "Clopper-Pearson exact",
    "beta": "Beta posterior, uniform prior",
}

# Acklam's coefficients for the normal quantile
_A = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
      -30.66479806614716, 2.506628277459239)  # fmt: skip
_B = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
      -13.28068155288572)  # fmt: skip
_C = (-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
      4.374664141464968, 2.938163982698783)  # fmt: skip
_D = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
_LOW = 0.02425


def _poly(coefficients: tuple[float, ...], x: float) -> float:
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


def normal_ppf(p: float) -> float:
    """The x with P(Z <= x) = p for a standard normal Z."""
    if not 0.0 < p < 1.0:
        if p in (0.0, 1.0):
            return math.copysign(math.inf, p - 0.5)
        raise ValueError(f"a probability is between 0 and 1, not {p}")
    if p > 0.5:  # the upper half by symmetry: 1 - p is exact there, erfc keeps its digits
        return -normal_ppf(1.0 - p)
    if p < _LOW:
        q = math.sqrt(-2 * math.log(p))
        x = _poly(_C, q) / (_poly(_D, q) * q + 1)
    else:
        q = p - 0.5
        r = q * q
        x = _poly(_A, r) * q / (_poly(_B, r) * r + 1)
    e = 0.5 * math.erfc(-x / math.sqrt(2)) - p  # one Halley step
    u = e * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
    return x - u / (1 + x * u / 2)


def _fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        for step in (
            m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)),
        ):
            d = 1.0 + step * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + step / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), a, b > 0 and 0 <= x <= 1."""
    if a <= 0 or b <= 0:
        raise ValueError("the beta function's parameters are positive")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
        + a * math.log(x) + b * math.log1p(-x)
    )  # fmt: skip
    front = math.exp(log_front)
    if x < (a + 1) / (a + b + 2):
        return front * _fraction(a, b, x) / a
    return 1.0 - front * _fraction(b, a, 1.0 - x) / b


def beta_ppf(q: float, a: float, b: float) -> float:
    """The x with I_x(a, b) = q: the q-quantile of the Beta(a, b) distribution (Newton's steps
    on I_x, kept inside a bracket that halves whenever a step would leave it)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a probability is between 0 and 1, not {q}")
    if q in (0.0, 1.0):
        return q
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    low, high = 0.0, 1.0
    x = a / (a + b)
    for _ in range(300):
        f = betainc(a, b, x) - q
        if f == 0.0:
            return x
        if f < 0:
            low = x
        else:
            high = x
        density = math.exp(log_norm + (a - 1) * math.log(x) + (b - 1) * math.log1p(-x))
        step = x - f / density if density > 0 else math.nan
        nxt = step if low < step < high else (low + high) / 2
        if abs(nxt - x) <= 4e-16 * max(x, 1e-300) or nxt in (low, high):
            return nxt
        x = nxt
    return x


@functools.lru_cache(maxsize=512)
def t_ppf(p: float, df: float) -> float:
    """The x with P(T <= x) = p for Student's t with `df` degrees of freedom."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability is between 0 and 1, not {p}")
    if p == 0.5:
        return 0.0
    tail = 2 * min(p, 1 - p)  # P(|T| > x) = I_{df / (df + x^2)}(df / 2, 1 / 2)
    y = beta_ppf(tail, df / 2, 0.5)
    x = math.sqrt(df * (1 - y) / y) if y > 0 else math.inf
    return x if p > 0.5 else -x


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


def clopper_pearson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact interval: Beta(c, n - c + 1)'s alpha/2 quantile and Beta(c + 1, n - c)'s
    1 - alpha/2 quantile (0 at c = 0, 1 at c = n)."""
    _check(successes, n)
    alpha = 1 - level
    low = beta_ppf(alpha / 2, successes, n - successes + 1) if successes > 0 else 0.0
    high = beta_ppf(1 - alpha / 2, successes + 1, n - successes) if successes < n else 1.0
    return low, high


def beta_posterior(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The central interval of Beta(c + 1, n - c + 1), the posterior of a rate under a uniform
    Beta(1, 1) prior after c successes in n."""
    _check(successes, n)
    alpha = 1 - level
    a, b = successes + 1, n - successes + 1
    return beta_ppf(alpha / 2, a, b), beta_ppf(1 - alpha / 2, a, b)


def proportion_interval(method: str, successes: int, n: int) -> tuple[float, float]:
    """The 95% interval `method` (one of `METHODS`) gives for successes / n."""
    if method == "wilson":
        return wilson(successes, n)
    if method == "clopper-pearson":
        return clopper_pearson(successes, n)
    if method == "beta":
        return beta_posterior(successes, n)
    raise ValueError(f"unknown interval {method!r} (one of {', '.join(METHODS)})")


def mean_interval(
    mean: float, se: float, df: int, level: float = LEVEL, bounds: tuple[float, float] = (0, 1)
) -> tuple[float, float]:
    """mean +- t(df) * se, kept inside `bounds` ([0, 1] for a rate, [-1, 1] for a difference of
    two)."""
    half = t_ppf((1 + level) / 2, df) * se
    return max(bounds[0], mean - half), min(bounds[1], mean + half)


def _check(successes: int, n: int) -> None:
    if n <= 0:
        raise ValueError("an interval needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n ({successes} of {n})")
