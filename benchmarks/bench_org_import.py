"""`org import` speed on a snapshot of about 60 MB (upstream's B2C file is 57.4 MB), against the
time to copy the same file; and the query engine's cost on an imported org against the demo org it
came from (the same data, so the ratio should be 1 within noise).

The snapshot is generated: a demo org built at the scale that makes its upstream-shaped dump about
--target-mb, dumped the way a naive exporter would (booleans as words, numbers as text, empty
strings for nulls). Target: the import takes at most 30 s on a 2-core machine.

Run: python benchmarks/bench_org_import.py [--org-type b2b|b2c] [--target-mb 60] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crmarena_tui.demo.generator import build_org
from crmarena_tui.orgs.base import execute
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.snapshot_import import import_snapshot
from crmarena_tui.orgs.verify_corpus import builtin_corpus
from tests.support.snapshot_dump_support import DumpStyle, dump_snapshot

STYLE = DumpStyle(booleans="words", numbers="text", nulls="empty")
TARGET_SECONDS = 30.0


def snapshot_at(folder: Path, org_type: str, scale: float) -> Path:
    org = build_org(folder / f"demo-{scale:g}.db", org_type=org_type, seed=0, scale=scale)
    snap = dump_snapshot(org, folder / f"crmarenapro_{org_type}_data-{scale:g}.db", STYLE)
    org.unlink()
    return snap


def best_of(repeat: int, work) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def engine_seconds(path: Path, texts: list[str], repeat: int) -> float:
    """Best total time of the corpus on the org at `path` (plans not cached between runs)."""
    org = LocalOrg(path)
    org.cache_plans = False
    try:
        return best_of(repeat, lambda: [execute(org, t) for t in texts])
    finally:
        org.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--org-type", choices=("b2b", "b2c"), default="b2c")
    parser.add_argument("--target-mb", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing; the best counts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small = snapshot_at(folder, args.org_type, 1.0)
        scale = round(args.target_mb * 1e6 / small.stat().st_size, 1)
        big = snapshot_at(folder, args.org_type, scale)
        size_mb = big.stat().st_size / 1e6
        copy = best_of(args.repeat, lambda: shutil.copyfile(big, folder / "copy.db"))
        imported = folder / "imported.db"
        load = best_of(args.repeat, lambda: import_snapshot(big, imported, org_type=args.org_type))
        print(f"snapshot: {args.org_type} demo data at scale {scale:g}, {size_mb:.1f} MB")
        print(f"copy the file:   {copy:7.2f} s")
        print(f"org import:      {load:7.2f} s  (x{load / copy:.0f} the copy)")
        verdict = "met" if load <= TARGET_SECONDS else "NOT met"
        print(f"target <= {TARGET_SECONDS:.0f} s: {verdict}")

        demo = build_org(folder / "demo-1.db", org_type=args.org_type, seed=0, scale=1.0)
        round_trip = folder / "round-trip.db"
        import_snapshot(small, round_trip, org_type=args.org_type)
        with LocalOrg(demo) as org:
            texts = [
                q.text
                for q in builtin_corpus(
                    org.describe(),
                    lambda soql: [str(r.get("Name")) for r in org.query(soql).records],
                )
            ]
        on_demo = engine_seconds(demo, texts, args.repeat)
        on_import = engine_seconds(round_trip, texts, args.repeat)
        print(f"engine, {len(texts)} queries (the verify corpus) at scale 1:")
        print(f"  demo org:      {on_demo:7.3f} s")
        print(f"  imported org:  {on_import:7.3f} s  (x{on_import / on_demo:.2f} the demo org)")


if __name__ == "__main__":
    main()
