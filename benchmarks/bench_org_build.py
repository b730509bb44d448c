"""Demo org build time and file size at scale 1.0 and 5.0 (and the ratio of 5.0 to 1.0), and the
time to draft the demo tasks from the scale-1.0 org: full size (2,140 drafts as 4,280 tasks per org
type) and small, as a ratio to the org build. Target: org build plus full drafting under 10 s per
org type on a 2-core machine.

Run: python benchmarks/bench_org_build.py [--org-type b2b|b2c|both] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crmarena_tui.demo.generator import build_org  # noqa: E402
from crmarena_tui.demo.tasks import generate_tasks  # noqa: E402

TARGET_SECONDS = 10.0


def measure(folder: Path, org_type: str, scale: float, repeat: int) -> tuple[float, int]:
    best = float("inf")
    size = 0
    for n in range(repeat):
        path = folder / f"{org_type}-{scale}-{n}.db"
        start = time.perf_counter()
        build_org(path, org_type=org_type, seed=0, scale=scale)
        best = min(best, time.perf_counter() - start)
        size = path.stat().st_size
        path.unlink()
    return best, size


def drafting(folder: Path, org_type: str, size: str, repeat: int) -> tuple[float, int]:
    path = folder / f"{org_type}-tasks.db"
    if not path.exists():
        build_org(path, org_type=org_type, seed=0, scale=1.0)
    best, count = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = len(generate_tasks(path, size))
        best = min(best, time.perf_counter() - start)
    return best, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--org-type", choices=("b2b", "b2c", "both"), default="both")
    parser.add_argument(
        "--repeat", type=int, default=2, help="builds per scale; the best time counts"
    )
    args = parser.parse_args()
    types = ("b2b", "b2c") if args.org_type == "both" else (args.org_type,)
    for org_type in types:
        with tempfile.TemporaryDirectory() as tmp:
            results = {s: measure(Path(tmp), org_type, s, args.repeat) for s in (1.0, 5.0)}
            tasks = {z: drafting(Path(tmp), org_type, z, args.repeat) for z in ("full", "small")}
        for scale, (seconds, size) in results.items():
            print(f"{org_type} scale {scale:>3}: {seconds:6.2f} s  {size / 1e6:7.1f} MB")
        (t1, s1), (t5, s5) = results[1.0], results[5.0]
        print(f"ratio 5.0/1.0: time x{t5 / t1:.2f}, size x{s5 / s1:.2f}")
        for size, (seconds, count) in tasks.items():
            print(
                f"{org_type} {size} tasks: {count} in {seconds:6.2f} s "
                f"(x{seconds / t1:.2f} the org build)"
            )
        total = t1 + tasks["full"][0]
        verdict = "within" if total < TARGET_SECONDS else "OVER"
        print(
            f"{org_type} org + full tasks: {total:6.2f} s, {verdict} the {TARGET_SECONDS:.0f} s target\n"
        )


if __name__ == "__main__":
    main()
