"""The task as the unit of a success figure (issue 35): per report row, the tasks with their trials
(every graded attempt of the task in the row) and wins, and what a paper reports of them.

- The success of a row is the mean over tasks of each task's mean (`task_mean`); with one trial
  per task it is the plain share of wins. Its standard error is taken across the task means
  (they hold the trial noise already): sd / sqrt(T) over T tasks, the sample sd (T - 1).
- Clustered (`--cluster`), when tasks share a source: with the residuals x_i - mean summed per
  cluster, SE^2 = C / (C - 1) * sum_c (sum_{i in c} (x_i - mean))^2 / T^2 over C clusters (with
  every task its own cluster this is the plain SE). One cluster gives none.
- The interval (`reports.intervals`): with one trial per task and no clustering, the proportion
  interval `--interval` names (Wilson by default, Clopper-Pearson, or the Beta posterior) on
  wins / tasks; otherwise the task mean +- t * SE with T - 1 degrees of freedom (C - 1 when
  clustered). Each row names the method it used.
- pass@k = 1 - C(n - c, k) / C(n, k) (at least one of k trials drawn from a task's n succeeds) and
  pass^k = C(c, k) / C(n, k) (all k do: tau-bench's reliability), averaged over tasks. A task
  with fewer than k trials is left out of that k's figures and counted (`left_out`), never
  silently: k is not lowered, so a pass^k column means one k on every row.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from crmarena_tui.reports.intervals import METHOD_NAMES, mean_interval, proportion_interval

# `--cluster` values: the name the report states -> the task's column
CLUSTERS = {"type": "task_type", "task_type": "task_type", "task_source": "task_source",
            "org_ref": "org_ref"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Options:
    """How the report's rows are summarised: the one-trial interval, the cluster column (None:
    not clustered) and the k of pass@k / pass^k (none: no such figures)."""

    interval: str = "wilson"
    cluster: str | None = None
    ks: tuple[int, ...] = ()

    def row(self) -> dict[str, Any]:
        return {"interval": self.interval, "cluster": self.cluster, "k": list(self.ks)}


DEFAULT = Options()


@dataclass(frozen=True, slots=True)
class Tally:
    """One task in one row: its graded trials, their wins, and the cluster it belongs to."""

    trials: int
    wins: int
    cluster: Hashable = None


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k trials drawn (without replacement) from n succeeds."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that all of k trials drawn (without replacement) from n succeed."""
    return math.comb(c, k) / math.comb(n, k)


def standard_error(
    values: Sequence[float], clusters: Sequence[Hashable] | None = None
) -> float | None:
    """The standard error of the mean of `values` (None under two values, or one cluster)."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    if clusters is None:
        return math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1) / n)
    sums: dict[Hashable, float] = defaultdict(float)
    for x, cluster in zip(values, clusters, strict=True):
        sums[cluster] += x - mean
    c = len(sums)
    if c < 2:
        return None
    return math.sqrt(c / (c - 1) * sum(s * s for s in sums.values()) / (n * n))


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _pass_k(tallies: Sequence[Tally], k: int) -> dict[str, Any]:
    kept = [t for t in tallies if t.trials >= k]
    n = len(kept)
    at = [pass_at_k(t.trials, t.wins, k) for t in kept]
    hat = [pass_hat_k(t.trials, t.wins, k) for t in kept]
    return {
        "k": k,
        "tasks": n,
        "left_out": len(tallies) - n,
        "pass_at_k": _round(sum(at) / n) if n else None,
        "pass_hat_k": _round(sum(hat) / n) if n else None,
    }


def unit_figures(tallies: Sequence[Tally], options: Options = DEFAULT) -> dict[str, Any]:
    """The row's task figures (module docstring) as its JSON gives them."""
    means = [t.wins / t.trials for t in tallies]
    tasks = len(means)
    mean = sum(means) / tasks
    se = standard_error(means)
    trials = [t.trials for t in tallies]
    found: dict[str, Any] = {
        "tasks": tasks,
        "trials": [min(trials), max(trials)],
        "task_mean": round(mean, 4),
        "se": _round(se),
        "cluster": None,
    }
    interval: tuple[float, float] | None = None
    if options.cluster is not None:
        groups = [t.cluster for t in tallies]
        clustered = standard_error(means, groups)
        count = len(set(groups))
        found["cluster"] = {"by": options.cluster, "clusters": count, "se": _round(clustered)}
        if clustered is None:
            method = f"none: {count} cluster{'s' if count != 1 else ''} of {options.cluster}"
        else:
            interval = mean_interval(mean, clustered, count - 1)
            method = f"t on task means, clustered by {options.cluster} ({count - 1} df)"
    elif max(trials) == 1:
        interval = proportion_interval(options.interval, sum(t.wins for t in tallies), tasks)
        method = METHOD_NAMES[options.interval]
    elif se is None:
        method = "none: one task"
    else:
        interval = mean_interval(mean, se, tasks - 1)
        method = f"t on task means ({tasks - 1} df)"
    found["interval"] = None if interval is None else [round(x, 4) for x in interval]
    found["interval_method"] = method
    if options.ks:
        found["pass_k"] = [_pass_k(tallies, k) for k in options.ks]
    return found


def merged(parts: Iterable[tuple[Hashable, int, int, Hashable]]) -> list[Tally]:
    """Tallies from (task key, trials, wins, cluster) parts, a task's parts added up (a task's
    sessions can fall in several groups: an answer that gave none is a group of its own), in
    the order of their keys (so that sums are added in one order whatever the read's)."""
    found: dict[Any, list[Any]] = {}
    for key, n, c, cluster in parts:
        slot = found.setdefault(key, [0, 0, cluster])
        slot[0] += n
        slot[1] += c
    return [Tally(n, c, cluster) for _, (n, c, cluster) in sorted(found.items())]


def default_ks(smallest_trials: int) -> tuple[int, ...]:
    """The k a report gives without `--k`: none with one trial per task, else 1 and the
    smallest trial count of its tasks (pass^k over every task's trials)."""
    return () if smallest_trials <= 1 else (1, smallest_trials)
