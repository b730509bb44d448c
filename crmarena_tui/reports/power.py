"""Power of a planned comparison: the smallest difference in success rate (the minimum detectable
effect, MDE) that T tasks can detect against an agent's rate, at power 1 - beta and two-sided
level alpha (80% and 0.05 unless told), so a team can size a human baseline before paying for it.

Two designs, both normal approximations (no scipy: the quantiles are `reports/intervals.py`'s):

- **Paired**: the humans (K experts per task) and the agent on the same T tasks; the task is the
  unit, its difference d = (mean of its K experts' wins) - (the agent's win). The test is on the
  mean of d over T tasks, so MDE = (z_{1-alpha/2} + z_{1-beta}) * sqrt(Var(d) / T), with
  Var(d) = p_h q_h / K + p_a q_a - 2 Cov(h, a), p_h = p_a + MDE, q = 1 - p.
  Cov comes from the discordance psi, the share of (expert, task) pairs where expert and agent
  disagree: P(both win) = (p_h + p_a - psi) / 2, Cov = P(both win) - p_h p_a. Without a psi the
  expert and the agent are taken as independent on a task (Cov = 0, psi = p_h q_a + p_a q_h);
  an agent and experts who find the same tasks hard disagree less, and the true MDE is smaller.
  The K experts of a task are taken as independent of one another (their mean has variance
  p_h q_h / K); when tasks differ in difficulty the experts agree more, and K helps less.
  With K = 1 and a given psi: Var(d) = psi - MDE^2, so MDE = c * sqrt(psi / (T + c^2)),
  c = z_{1-alpha/2} + z_{1-beta}.
- **Independent**: the humans' T x K attempts against the agent's N attempts on other tasks (a
  published rate, another sample): the two-proportion z-test with the pooled rate under the
  null, MDE = z_{1-alpha/2} sqrt(p q (1/n_h + 1/n_a)) + z_{1-beta} sqrt(p_h q_h / n_h +
  p_a q_a / n_a), p the pooled rate (statsmodels' `power_proportions_2indep` computes its power
  the same way).

Each design has two figures: how far above the agent the humans must be (`up`), and how far
below (`down`); they differ because a rate's variance depends on where it is. None when no
difference within [0, 1] is detectable in that direction.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from crmarena_tui.reports.intervals import normal_ppf

ALPHA, POWER = 0.05, 0.80


def normal_quantile(p: float) -> float:
    """The standard normal's p-quantile (Phi^-1(p)) for 0 < p < 1: the report's own
    (`reports.intervals.normal_ppf`), which a power calculation never asks for at 0 or 1."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a normal quantile needs 0 < p < 1 (got {p})")
    return normal_ppf(p)


def _critical(alpha: float, power: float) -> tuple[float, float]:
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError("alpha and power are between 0 and 1")
    return normal_quantile(1 - alpha / 2), normal_quantile(power)


def _check(rate: float, *counts: int) -> None:
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"the agent's rate is a share between 0 and 1 (got {rate})")
    if any(n < 1 for n in counts):
        raise ValueError("a power calculation needs at least one task and one expert")


def _solve(excess: Callable[[float], float], room: float) -> float | None:
    """The difference delta in (0, room] where excess(delta) = delta - (what T tasks detect at
    delta) turns from negative to positive (it is convex and negative near 0: one crossing),
    by bisection; None when it stays negative up to `room`."""
    if room <= 0 or excess(room) < 0:
        return None
    low, high = 0.0, room
    for _ in range(100):
        mid = (low + high) / 2
        if excess(mid) < 0:
            low = mid
        else:
            high = mid
    return high


@dataclass(frozen=True, slots=True)
class Mde:
    """The smallest detectable difference above (`up`) and below (`down`) the agent's rate."""

    up: float | None
    down: float | None


def paired_variance(
    human_rate: float, agent_rate: float, experts: int, discordance: float | None
) -> float:
    """Var(d) of one task's difference (module docstring); discordance None: independence."""
    p_h, p_a = human_rate, agent_rate
    if discordance is None:
        covariance = 0.0
    else:
        both = (p_h + p_a - discordance) / 2
        covariance = both - p_h * p_a
    return p_h * (1 - p_h) / experts + p_a * (1 - p_a) - 2 * covariance


def paired_mde(
    tasks: int,
    agent_rate: float,
    *,
    experts: int = 1,
    discordance: float | None = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> Mde:
    """The paired design's MDE (module docstring)."""
    _check(agent_rate, tasks, experts)
    z_alpha, z_power = _critical(alpha, power)
    c = z_alpha + z_power
    room_up, room_down = 1 - agent_rate, agent_rate
    if discordance is not None:
        most = 2 * min(agent_rate, 1 - agent_rate)
        if not 0.0 <= discordance <= most:
            raise ValueError(
                f"a discordance of {discordance:g} is impossible against an agent rate of "
                f"{agent_rate:g}: it is between 0 and {most:g}"
            )
        # the difference is at most the discordance, and P(both win) stays a probability
        room_up = min(room_up, discordance, 2 - discordance - 2 * agent_rate)
        room_down = min(room_down, discordance, 2 * agent_rate - discordance)

    def excess(sign: int) -> Callable[[float], float]:
        def of(delta: float) -> float:
            p_h = agent_rate + sign * delta
            variance = paired_variance(p_h, agent_rate, experts, discordance)
            return delta - c * math.sqrt(max(variance, 0.0) / tasks)

        return of

    return Mde(_solve(excess(1), room_up), _solve(excess(-1), room_down))


def independent_mde(
    tasks: int,
    agent_rate: float,
    *,
    experts: int = 1,
    agent_tasks: int | None = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> Mde:
    """The independent design's MDE: n_h = tasks x experts human attempts against n_a =
    `agent_tasks` (default: `tasks`) agent attempts (module docstring)."""
    n_a = tasks if agent_tasks is None else agent_tasks
    _check(agent_rate, tasks, experts, n_a)
    n_h = tasks * experts
    z_alpha, z_power = _critical(alpha, power)

    def excess(sign: int) -> Callable[[float], float]:
        def of(delta: float) -> float:
            p_h = agent_rate + sign * delta
            pooled = (n_h * p_h + n_a * agent_rate) / (n_h + n_a)
            null = pooled * (1 - pooled) * (1 / n_h + 1 / n_a)
            alternative = p_h * (1 - p_h) / n_h + agent_rate * (1 - agent_rate) / n_a
            return delta - z_alpha * math.sqrt(null) - z_power * math.sqrt(alternative)

        return of

    return Mde(_solve(excess(1), 1 - agent_rate), _solve(excess(-1), agent_rate))
