"""The report's quantiles and intervals (`reports.intervals`, issue 35), computed in plain Python:
checked against published tables and against scipy and statsmodels (test-only oracles; the
product must not import them)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

from crmarena_tui.reports import intervals as iv
from crmarena_tui.reports.paired import mcnemar_exact


@pytest.mark.parametrize(
    ("p", "z"),
    # the standard normal table: 90%, 95%, 99% two-sided and the 80% power quantile
    [(0.95, 1.6448536269514722), (0.975, 1.959963984540054), (0.995, 2.5758293035489004),
     (0.8, 0.8416212335729143), (0.5, 0.0)],
)  # fmt: skip
def test_the_normal_quantile_matches_the_table(p: float, z: float) -> None:
    assert iv.normal_ppf(p) == pytest.approx(z, abs=1e-14)
    assert iv.normal_ppf(1 - p) == pytest.approx(-z, abs=1e-14)


@pytest.mark.parametrize(
    "p", [1e-12, 1e-6, 0.001, 0.02, 0.0243, 0.0245, 0.3, 0.7, 0.9999, 1 - 1e-9]
)
def test_the_normal_quantile_is_scipys(p: float) -> None:
    assert iv.normal_ppf(p) == pytest.approx(stats.norm.ppf(p), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    ("a", "b", "x"),
    [(0.5, 0.5, 0.3), (3, 7, 0.2), (30, 70, 0.31), (200, 5, 0.97), (0.01, 3, 0.5),
     (1, 1, 0.4), (50, 50, 0.5), (2, 900, 0.001), (900, 2, 0.999)],
)  # fmt: skip
def test_the_incomplete_beta_is_scipys(a: float, b: float, x: float) -> None:
    assert iv.betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-11, abs=1e-14)


def test_the_incomplete_beta_by_hand() -> None:
    # I_x(1, 1) = x (uniform); I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b; I_0.5(a, a) = 1/2
    assert iv.betainc(1, 1, 0.37) == pytest.approx(0.37, abs=1e-15)
    assert iv.betainc(3, 1, 0.5) == pytest.approx(0.125, abs=1e-15)
    assert iv.betainc(1, 4, 0.5) == pytest.approx(1 - 0.5**4, abs=1e-15)
    assert iv.betainc(7.5, 7.5, 0.5) == pytest.approx(0.5, abs=1e-15)
    assert (iv.betainc(2, 3, 0.0), iv.betainc(2, 3, 1.0)) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("q", "a", "b"),
    [(0.025, 3, 8), (0.975, 1, 1), (0.025, 0.5, 0.5), (0.5, 100, 3), (0.001, 2, 90)],
)
def test_the_beta_quantile_is_scipys(q: float, a: float, b: float) -> None:
    assert iv.beta_ppf(q, a, b) == pytest.approx(stats.beta.ppf(q, a, b), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("df", "t"),
    # Student's t table, 97.5th percentile (two-sided 95%)
    [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042), (120, 1.980)],
)
def test_the_t_quantile_matches_the_table(df: int, t: float) -> None:
    assert iv.t_ppf(0.975, df) == pytest.approx(t, abs=5e-4)
    assert iv.t_ppf(0.975, df) == pytest.approx(stats.t.ppf(0.975, df), rel=1e-12)
    assert iv.t_ppf(0.025, df) == pytest.approx(-stats.t.ppf(0.975, df), rel=1e-12)


CASES = [(0, 10), (1, 10), (3, 10), (10, 10), (47, 93), (0, 1), (1, 1), (80, 100), (1, 87)]


@pytest.mark.parametrize(("c", "n"), CASES)
def test_clopper_pearson_is_statsmodels_beta_method(c: int, n: int) -> None:
    low, high = proportion_confint(c, n, alpha=0.05, method="beta")
    assert iv.clopper_pearson(c, n) == pytest.approx((low, high), abs=1e-12)


def test_clopper_pearson_by_hand() -> None:
    # 0 of n: the upper bound solves (1 - p)^n = 0.025, p = 1 - 0.025^(1/n); n of n mirrors it
    assert iv.clopper_pearson(0, 10) == pytest.approx((0.0, 1 - 0.025 ** (1 / 10)), abs=1e-14)
    assert iv.clopper_pearson(10, 10) == pytest.approx((0.025 ** (1 / 10), 1.0), abs=1e-14)


@pytest.mark.parametrize(("c", "n"), CASES)
def test_wilson_is_statsmodels_wilson(c: int, n: int) -> None:
    low, high = proportion_confint(c, n, alpha=0.05, method="wilson")
    assert iv.wilson(c, n) == pytest.approx((low, high), abs=1e-12)


@pytest.mark.parametrize(("c", "n"), CASES)
def test_the_beta_posterior_interval_is_scipys(c: int, n: int) -> None:
    low, high = stats.beta.interval(0.95, c + 1, n - c + 1)
    assert iv.beta_posterior(c, n) == pytest.approx((low, high), abs=1e-12)


def test_the_beta_posterior_by_hand() -> None:
    # 0 of 1: Beta(1, 2) has cdf 1 - (1 - x)^2, so its q-quantile is 1 - sqrt(1 - q)
    low, high = iv.beta_posterior(0, 1)
    assert (low, high) == pytest.approx((1 - 0.975**0.5, 1 - 0.025**0.5), abs=1e-14)


@pytest.mark.parametrize(("b", "c"), [(0, 6), (1, 9), (8, 2), (13, 17), (40, 25)])
def test_mcnemar_exact_is_scipys_binomial_test(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-12)


def test_a_mean_interval_is_t_times_the_standard_error_within_its_bounds() -> None:
    low, high = iv.mean_interval(0.5, 0.1, 9)
    assert (low, high) == pytest.approx((0.5 - 2.262157 * 0.1, 0.5 + 2.262157 * 0.1), abs=1e-6)
    assert iv.mean_interval(0.9, 0.2, 4) == pytest.approx((0.9 - 2.776445 * 0.2, 1.0), abs=1e-6)
    assert iv.mean_interval(-0.9, 0.2, 4, bounds=(-1, 1))[0] == -1


def test_the_product_never_imports_scipy_or_statsmodels() -> None:
    """The report, with every interval computed, leaves scipy and statsmodels unimported."""
    code = (
        "import sys\n"
        "from crmarena_tui.reports import intervals, summary, paper_table, task_units\n"
        "intervals.clopper_pearson(3, 10); intervals.beta_posterior(3, 10)\n"
        "intervals.t_ppf(0.975, 4)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'statsmodels')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(("c", "n"), [(1, 10), (3, 10), (47, 93), (5, 17)])
def test_clopper_pearson_bounds_are_where_the_binomial_tails_reach_2_5_percent(
    c: int, n: int
) -> None:
    # the exact interval inverts the binomial test: P(X >= c; low) = P(X <= c; high) = 0.025
    low, high = iv.clopper_pearson(c, n)
    assert stats.binom.sf(c - 1, n, low) == pytest.approx(0.025, abs=1e-12)
    assert stats.binom.cdf(c, n, high) == pytest.approx(0.025, abs=1e-12)


def test_three_of_ten_by_hand() -> None:
    # 3 of 10. Wilson: p = .3, z^2 = 3.8415; centre (.3 + .19207) / 1.38415 = .35551; half-width
    # 1.95996 / 1.38415 * sqrt(.021 + .0096037) = .24772: [.1078, .6032]. Exact: the p with
    # P(X >= 3; 10, p) = .025 and P(X <= 3; 10, p) = .025 (checked on the binomial above)
    assert [round(x, 4) for x in iv.clopper_pearson(3, 10)] == [0.0667, 0.6525]
    assert [round(x, 4) for x in iv.wilson(3, 10)] == [0.1078, 0.6032]
