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
from collections import Counter, defaultdict
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
    groups = [None] * len(values) if clusters is None else list(clusters)
    return _errors(Counter(zip(values, groups, strict=True)), clusters is not None)[1]


def _errors(
    weights: Counter[tuple[float, Hashable]], clustered: bool
) -> tuple[float, float | None, int]:
    """(mean, standard error, clusters) of values given as {(value, cluster): how many}; the
    error clustered when `clustered`. None under two values or with one cluster."""
    items = sorted(weights.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))
    n = sum(w for _, w in items)
    mean = sum(x * w for (x, _), w in items) / n
    if not clustered:
        if n < 2:
            return mean, None, n
        squares = sum((x - mean) ** 2 * w for (x, _), w in items)
        return mean, math.sqrt(squares / (n - 1) / n), n
    sums: dict[Hashable, float] = defaultdict(float)
    for (x, cluster), w in items:
        sums[cluster] += (x - mean) * w
    c = len(sums)
    if c < 2:
        return mean, None, c
    return mean, math.sqrt(c / (c - 1) * sum(v * v for v in sums.values()) / (n * n)), c


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _pass_k(tallies: Counter[Tally], k: int) -> dict[str, Any]:
    kept = [(t, w) for t, w in sorted(tallies.items(), key=_order) if t.trials >= k]
    n = sum(w for _, w in kept)
    at = sum(pass_at_k(t.trials, t.wins, k) * w for t, w in kept)
    hat = sum(pass_hat_k(t.trials, t.wins, k) * w for t, w in kept)
    return {
        "k": k,
        "tasks": n,
        "left_out": sum(tallies.values()) - n,
        "pass_at_k": _round(at / n) if n else None,
        "pass_hat_k": _round(hat / n) if n else None,
    }


def _order(item: tuple[Tally, int]) -> tuple[int, int, str]:
    return item[0].trials, item[0].wins, str(item[0].cluster)


def unit_figures(tallies: Iterable[Tally], options: Options = DEFAULT) -> dict[str, Any]:
    """The row's task figures (module docstring) as its JSON gives them, from its tasks'
    tallies (a `Counter` of them, as `merged` gives, or one per task)."""
    counts = tallies if isinstance(tallies, Counter) else Counter(tallies)
    means: Counter[tuple[float, Hashable]] = Counter()
    for t, w in counts.items():
        means[(t.wins / t.trials, t.cluster)] += w
    plain: Counter[tuple[float, Hashable]] = Counter()
    for (x, _), w in means.items():
        plain[(x, None)] += w
    mean, se, tasks = _errors(plain, False)
    trials = [t.trials for t in counts]
    found: dict[str, Any] = {
        "tasks": tasks,
        "trials": [min(trials), max(trials)],
        "task_mean": round(mean, 4),
        "se": _round(se),
        "cluster": None,
    }
    interval: tuple[float, float] | None = None
    if options.cluster is not None:
        _, clustered, count = _errors(means, True)
        found["cluster"] = {"by": options.cluster, "clusters": count, "se": _round(clustered)}
        if clustered is None:
            method = f"none: {count} cluster{'s' if count != 1 else ''} of {options.cluster}"
        else:
            interval = mean_interval(mean, clustered, count - 1)
            method = f"t on task means, clustered by {options.cluster} ({count - 1} df)"
    elif max(trials) == 1:
        wins = sum(t.wins * w for t, w in counts.items())
        interval = proportion_interval(options.interval, wins, tasks)
        method = METHOD_NAMES[options.interval]
    elif se is None:
        method = "none: one task"
    elif se == 0 and mean in (0.0, 1.0):  # every trial of every task won (or lost): t is blind
        interval = proportion_interval(options.interval, round(mean * tasks), tasks)
        method = f"{METHOD_NAMES[options.interval]} on tasks (every trial {_all(mean)})"
    else:
        interval = mean_interval(mean, se, tasks - 1)
        method = f"t on task means ({tasks - 1} df)"
    found["interval"] = None if interval is None else [round(x, 4) for x in interval]
    found["interval_method"] = method
    if options.ks:
        found["pass_k"] = [_pass_k(counts, k) for k in options.ks]
    return found


def _all(mean: float) -> str:
    return "won" if mean else "lost"


def merged(parts: Iterable[tuple[Hashable, int, int, Hashable]]) -> Counter[Tally]:
    """Tallies from (task key, trials, wins, cluster) parts, a task's parts added up (a task's
    sessions can fall in several groups: an answer that gave none is a group of its own),
    counted: {tally: how many tasks have it} (the figures depend on no task's name)."""
    found: dict[Any, list[Any]] = {}
    for key, n, c, cluster in parts:
        slot = found.get(key)
        if slot is None:
            found[key] = [n, c, cluster]
        else:
            slot[0] += n
            slot[1] += c
    counts = Counter(map(tuple, found.values()))  # (plain tuples hash faster than a Tally)
    return Counter({Tally(*key): w for key, w in counts.items()})


def default_ks(smallest_trials: int) -> tuple[int, ...]:
    """The k a report gives without `--k`: none with one trial per task, else 1 and the
    smallest trial count of its tasks (pass^k over every task's trials)."""
    return () if smallest_trials <= 1 else (1, smallest_trials)
