"""Demo org build time and file size at scale 1.0 and 5.0 (and the ratio of 5.0 to 1.0).

Run: python benchmarks/bench_org_build.py [--org-type b2b|b2c] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crmarena_tui.demo.generator import build_org  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--org-type", choices=("b2b", "b2c"), default="b2b")
    parser.add_argument(
        "--repeat", type=int, default=2, help="builds per scale; the best time counts"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {s: measure(Path(tmp), args.org_type, s, args.repeat) for s in (1.0, 5.0)}
    for scale, (seconds, size) in results.items():
        print(f"{args.org_type} scale {scale:>3}: {seconds:6.2f} s  {size / 1e6:7.1f} MB")
    (t1, s1), (t5, s5) = results[1.0], results[5.0]
    print(f"ratio 5.0/1.0: time x{t5 / t1:.2f}, size x{s5 / s1:.2f}")


if __name__ == "__main__":
    main()
