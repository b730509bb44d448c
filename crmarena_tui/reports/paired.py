"""Two sides on the same tasks, with the tests a paper reports (`report --versus A B`).

A side is one participant or a group: a configuration (`gpt-4o/react`), a participant's name, a
leading part of a configuration (`gpt-4o`: every strategy of it), or `humans` / `agents`. A side
that is some attempt's configuration is that configuration alone (`gpt-4o/react` against
`gpt-4o/react/aided` pairs the two, not both against the second). On a
task, a side's success is the mean win of its members' latest attempts (1 or 0 with one member;
a group of three experts who split 2-1 scores 2/3), and its F1 the mean reward on fuzzy tasks.
The tasks compared are those both sides attempted.

- McNemar's exact test on wins: the discordant tasks (one side 1, the other 0) against a fair
  coin, two-sided (twice the smaller tail, at most 1); a task where a side is split counts in
  neither tail (`split`).
- A paired bootstrap interval for the difference in success rate (A minus B): the tasks drawn with
  replacement, `resamples` times, from a seeded generator; the 2.5th and 97.5th percentiles of
  the mean difference. The same for mean F1 over the fuzzy tasks.

Both overall and per task type.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from crmarena_tui.reports.intervals import mean_interval
from crmarena_tui.reports.task_units import standard_error
from crmarena_tui.storage.participant_names import names_configuration as names_participant

RESAMPLES = 2000
SEED = 0
GROUPS = {"humans": "human", "agents": "agent"}


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided exact McNemar p-value for `b` and `c` discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_bootstrap(
    diffs: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED, level: float = 0.95
) -> tuple[float, float] | None:
    """The percentile interval of the mean of `diffs` (one per task), tasks resampled with
    replacement; None without any task."""
    if not diffs:
        return None
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
    low = means[int(math.floor((1 - level) / 2 * resamples))]
    high = means[min(resamples - 1, int(math.ceil((1 + level) / 2 * resamples)) - 1)]
    return low, high


def side_has(side: str, kind: str, who: str, name: str, exact: bool = False) -> bool:
    """Whether a participant of `kind` named `name`, as configuration `who`, is on `side`;
    `exact`: the side is a configuration, matched whole."""
    group = GROUPS.get(side)
    if group is not None:
        return kind == group
    if exact:
        return who == side
    return names_participant(side, who, name)


@dataclass(frozen=True, slots=True)
class Member:
    """A configuration on a task, as the paired report reads it: the mean win and reward of its
    latest graded attempt of each trial; `sides`: 1 on side a, 2 on side b, 3 on both."""

    task_key: tuple[str, int]
    task_type: str
    win: float
    reward: float
    fuzzy: bool
    sides: int
    trials: int = 1
    protocol: str = "unknown"
    org_ref: str = ""


def members_of(rows: Iterable[tuple[Any, ...]]) -> list[Member]:
    """Members from rows (configuration key, task key, trial, task type, win, reward, fuzzy,
    sides, grade protocol, org reference), the latest attempt of each trial of a configuration
    on a task, in the order each (configuration, task) first appears; a member's trials are
    averaged in trial order."""
    grouped: dict[Any, list[tuple[Any, ...]]] = {}
    for row in rows:
        grouped.setdefault((row[0], row[1]), []).append(row)
    found = []
    for trials in grouped.values():
        trials.sort(key=lambda r: r[2])
        _, key, _, task_type, _, _, fuzzy, sides, protocol, org_ref = trials[0]
        n = len(trials)
        found.append(
            Member(
                key, task_type, sum(1.0 if r[4] else 0.0 for r in trials) / n,
                sum(r[5] for r in trials) / n, bool(fuzzy), sides, n, protocol, org_ref,
            )
        )  # fmt: skip
    return found


@dataclass(frozen=True, slots=True)
class Outcome:
    """One side on one task: mean win and mean reward of its members (each its trials' mean)."""

    success: float
    reward: float
    fuzzy: bool
    trials: int = 1
    cluster: Any = None


def _outcomes(
    members: Iterable[Member], bit: int, cluster: str | None = None
) -> dict[tuple[str, int], tuple[str, Outcome]]:
    """(task source, idx) -> (task type, the outcome of the side `bit` names)."""
    grouped: dict[tuple[str, int], list[Member]] = defaultdict(list)
    for member in members:
        if member.sides & bit:
            grouped[member.task_key].append(member)
    out = {}
    for key, found in grouped.items():
        wins = [m.win for m in found]
        rewards = [m.reward for m in found]
        first = found[0]
        value = {
            None: None,
            "type": first.task_type,
            "task_type": first.task_type,
            "task_source": key[0],
            "org_ref": first.org_ref,
        }[cluster]
        out[key] = (
            first.task_type,
            Outcome(
                sum(wins) / len(wins), sum(rewards) / len(rewards), first.fuzzy,
                max(m.trials for m in found), value,
            ),
        )  # fmt: skip
    return out


def _correlation(pairs: list[tuple[Outcome, Outcome]]) -> float | None:
    """Pearson's correlation of the two sides' task scores (None when a side is constant)."""
    n = len(pairs)
    if n < 2:
        return None
    xs, ys = [a.success for a, _ in pairs], [b.success for _, b in pairs]
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def _row(
    scope: str, pairs: list[tuple[Outcome, Outcome]], seed: int, cluster: str | None = None
) -> dict[str, Any]:
    a_only = sum(1 for a, b in pairs if a.success == 1.0 and b.success == 0.0)
    b_only = sum(1 for a, b in pairs if a.success == 0.0 and b.success == 1.0)
    both = sum(1 for a, b in pairs if a.success == 1.0 and b.success == 1.0)
    neither = sum(1 for a, b in pairs if a.success == 0.0 and b.success == 0.0)
    n = len(pairs)
    a_rate = sum(a.success for a, _ in pairs) / n
    b_rate = sum(b.success for _, b in pairs) / n
    diffs = [a.success - b.success for a, b in pairs]
    interval = paired_bootstrap(diffs, seed=seed)
    clusters = [a.cluster for a, _ in pairs] if cluster else None
    se = standard_error(diffs, clusters)
    df = (len(set(clusters)) if clusters else n) - 1
    several = max(max(a.trials, b.trials) for a, b in pairs) > 1
    fuzzy = [(a.reward, b.reward) for a, b in pairs if a.fuzzy]
    f1 = None
    if fuzzy:
        f1_interval = paired_bootstrap([x - y for x, y in fuzzy], seed=seed)
        f1 = {
            "tasks": len(fuzzy),
            "a_mean_f1": sum(x for x, _ in fuzzy) / len(fuzzy),
            "b_mean_f1": sum(y for _, y in fuzzy) / len(fuzzy),
            "difference": sum(x - y for x, y in fuzzy) / len(fuzzy),
            "interval": list(f1_interval) if f1_interval else None,
        }
    return {
        "scope": scope,
        "tasks": n,
        "a_success": a_rate,
        "b_success": b_rate,
        "difference": a_rate - b_rate,
        "interval": list(interval) if interval else None,
        "se": se,
        "t_interval": None
        if se is None
        else list(mean_interval(a_rate - b_rate, se, df, bounds=(-1, 1))),
        "correlation": _correlation(pairs),
        "a_only": a_only,
        "b_only": b_only,
        "both": both,
        "neither": neither,
        "split": n - a_only - b_only - both - neither,
        "mcnemar_p": None if several else mcnemar_exact(a_only, b_only),
        "f1": f1,
    }


def paired_of(
    members: Iterable[Member], a: str, b: str, *, seed: int = SEED, cluster: str | None = None
) -> dict[str, Any]:
    """`paired_report` from the members (`members_of`); `cluster` (`task_units.CLUSTERS`)
    clusters the standard error of the differences."""
    found = list(members)
    side_a = _outcomes(found, 1, cluster)
    side_b = _outcomes(found, 2, cluster)
    shared = sorted(set(side_a) & set(side_b))
    by_type: dict[str, list[tuple[Outcome, Outcome]]] = defaultdict(list)
    for key in shared:
        by_type[side_a[key][0]].append((side_a[key][1], side_b[key][1]))
    pairs = [(side_a[k][1], side_b[k][1]) for k in shared]
    protocols = [sorted({m.protocol for m in found if m.sides & bit}) for bit in (1, 2)]
    return {
        "a": a,
        "b": b,
        "a_tasks": len(side_a),
        "b_tasks": len(side_b),
        "shared_tasks": len(shared),
        "a_protocols": protocols[0],
        "b_protocols": protocols[1],
        "cluster": cluster,
        "resamples": RESAMPLES,
        "seed": seed,
        "overall": _row("all task types", pairs, seed, cluster) if pairs else None,
        "by_task_type": [_row(t, by_type[t], seed, cluster) for t in sorted(by_type)],
    }
