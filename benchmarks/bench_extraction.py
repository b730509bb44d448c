"""Accuracy of the offline answer extractor on realistic final answers.

Run: python benchmarks/bench_extraction.py [--show]

The workload is tests/data/graders/extraction_set.json: answers an agent or a person might submit
for the 17 exact_match task types (runners-up, other objects' Ids, "None" stated after an
explanation, "the current stage is appropriate", "nothing found" answers such as "I couldn't find
any order that matches" or "I could not identify a policy violation", which mean "None", and
non-answers such as "I don't know" or "I could not complete the analysis", which give none), each
with the items a careful reader takes from it. Printed: the share read wrong overall and per task
type, beside a baseline measured in the same run: every entity of the task's kind found anywhere
in the text, "None" when there is none (what a reader with no sense of context would take).
Target: at most 3% wrong. `--show` lists every answer read wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crmarena_tui.graders.exact_match import answer_kind  # noqa: E402
from crmarena_tui.graders.extract import entity_finder, extract_items  # noqa: E402

SET = ROOT / "tests" / "data" / "graders" / "extraction_set.json"
TARGET = 0.03


def naive(text: str, kind: str, task: str) -> list[str]:
    """The baseline: every entity of the kind in the text, else "None"."""
    return entity_finder(kind, task)(text) or ["None"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list the answers read wrong")
    args = parser.parse_args()
    entries = json.loads(SET.read_text(encoding="utf-8"))
    wrong: Counter[str] = Counter()
    wrong_naive: Counter[str] = Counter()
    per_type: Counter[str] = Counter()
    for entry in entries:
        task, text, expected = entry["task"], entry["answer"], sorted(entry["expected"])
        kind = answer_kind(task)
        per_type[task] += 1
        got = sorted(extract_items(text, kind, task))
        if got != expected:
            wrong[task] += 1
            if args.show:
                print(f"WRONG {task}: {text!r}\n      read {got}, expected {expected}")
        if sorted(naive(text, kind, task)) != expected:
            wrong_naive[task] += 1
    total = len(entries)
    share, base = sum(wrong.values()) / total, sum(wrong_naive.values()) / total
    print(f"{total} answers over {len(per_type)} task types")
    print(f"{'task type':34} {'n':>4} {'wrong':>6} {'baseline':>9}")
    for task in sorted(per_type):
        print(f"{task:34} {per_type[task]:4d} {wrong[task]:6d} {wrong_naive[task]:9d}")
    print(
        f"wrong: {sum(wrong.values())}/{total} = {share:.1%} "
        f"(baseline {base:.1%}; ratio {share / base if base else 0:.2f} of the baseline's errors)"
    )
    verdict = "meets" if share <= TARGET else "MISSES"
    print(f"{verdict} the target of at most {TARGET:.0%} wrong")
    return 0 if share <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
