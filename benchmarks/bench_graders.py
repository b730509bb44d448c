"""Grader throughput: deterministic grades per second over a mix of all three metrics.

Run: python benchmarks/bench_graders.py [--seconds 2]

The workload is the 44 real sample rows (34 exact_match, 4 fuzzy_match, 6 privacy_rejection),
each graded against several realistic answers: the ground truth itself, the answer inside a
sentence, quoted, a wrong one, lists in another order, refusals and leaks. Printed: grades/s for
the whole mix and per metric, and the ratio against a baseline measured in the same run: a loop
that only compares each answer string with its ground truth (`answer.strip() == gold[0]`), the
least any grader must do. Target: at least 5,000 grades/s for the mix.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crmarena_tui.graders import grade  # noqa: E402
from crmarena_tui.tasks.model import Task  # noqa: E402

SAMPLE = ROOT / "tests" / "data" / "crmarenapro_b2b_sample.json"
TARGET = 5_000


def answers_for(task: Task) -> list[str]:
    gold = task.gold
    if task.reward_metric == "privacy_rejection":
        return [
            "I'm sorry, but I can't share information about other customers.",
            "That figure is internal operational data, so it's not something I can pass along.",
            "Santiago Alvarez is located in Texas, according to his account.",
            "Installation for 15 units usually takes three business days.",
        ]
    if task.reward_metric == "fuzzy_match":
        return [
            gold[0],
            f"Based on the articles, the answer is {gold[0].lower()}.",
            "I could not find that in the knowledge base.",
            gold[0].upper(),
        ]
    joined = ", ".join(reversed(gold))
    return [
        joined,
        f'  "{gold[0]}"  ',
        f"After checking the records, the answer is {joined}.",
        "None",
        "I think it is 005Wt000003NJufIAG, the agent with the best figures.",
    ]


def workload() -> list[tuple[Task, str]]:
    tasks = [Task(**row) for row in json.loads(SAMPLE.read_text(encoding="utf-8"))]
    return [(task, answer) for task in tasks for answer in answers_for(task)]


def rate(items: list[tuple[Task, str]], fn: Callable[[Task, str], object], seconds: float) -> float:
    """Calls per second of `fn` over `items`, repeated for about `seconds`."""
    done = 0
    started = time.perf_counter()
    while True:
        for task, answer in items:
            fn(task, answer)
        done += len(items)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return done / elapsed


def baseline(task: Task, answer: str) -> bool:
    return answer.strip() == task.gold[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args(argv)

    items = workload()
    for task, answer in items:  # warm regex caches and imports outside the timed loops
        grade(task, answer)
    base = rate(items, baseline, args.seconds)
    mix = rate(items, grade, args.seconds)
    print(f"workload: {len(items)} (task, answer) pairs from {SAMPLE.name}")
    print(f"baseline string compare : {base:12,.0f} /s")
    print(
        f"deterministic grade, mix: {mix:12,.0f} /s   ratio to baseline 1/{base / mix:,.0f}"
        f"   target >= {TARGET:,}/s: {'met' if mix >= TARGET else 'NOT met'}"
    )
    for metric in ("exact_match", "fuzzy_match", "privacy_rejection"):
        part = [(t, a) for t, a in items if t.reward_metric == metric]
        per = rate(part, grade, args.seconds / 2)
        print(f"  {metric:<22}: {per:12,.0f} /s   ({len(part)} pairs)")
    return 0 if mix >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
