"""How fast tasks load and the command line starts.

Prints: load time of a 2,140-row b2b file (the real split's size, built from the 44 sample rows) in a
fresh process, including the `datasets` import, against a plain `json.load` + pydantic baseline in the
same run; and `crmarena-tui --help` wall time against a bare `python -c pass`.
Run: python benchmarks/bench_task_loading.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "data" / "crmarenapro_b2b_sample.json"


def wall(cmd: list[str], runs: int = 5, env: dict | None = None) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    import os

    rows = json.loads(SAMPLE.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "b2b.json"
        path.write_text(json.dumps([dict(rows[i % 44], idx=i) for i in range(2140)]))
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(Path(tmp) / "hf")}
        load = [
            sys.executable,
            "-c",
            f"from crmarena_tui.tasks.loaders import load_tasks; assert len(load_tasks({str(path)!r})) == 2140",
        ]
        baseline = [
            sys.executable,
            "-c",
            "import json; from crmarena_tui.tasks.model import Task; "
            f"[Task.model_validate(r) for r in json.load(open({str(path)!r}))]",
        ]
        wall(
            load, runs=1, env=env
        )  # warm the datasets cache once, as a second load by a user would
        t_load = wall(load, env=env)
        t_base = wall(baseline, env=env)
        print(
            f"load 2,140 rows via datasets (fresh process): {t_load * 1000:.0f} ms "
            f"(target < 1000 ms)"
        )
        print(
            f"baseline json.load + pydantic (fresh process): {t_base * 1000:.0f} ms; "
            f"ratio {t_load / t_base:.2f}x"
        )
    t_help = wall([sys.executable, "-m", "crmarena_tui", "--help"])
    t_bare = wall([sys.executable, "-c", "pass"])
    print(
        f"crmarena-tui --help: {t_help * 1000:.0f} ms (target < 500 ms); bare python: "
        f"{t_bare * 1000:.0f} ms; ratio {t_help / t_bare:.2f}x"
    )


if __name__ == "__main__":
    main()
