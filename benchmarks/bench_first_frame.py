"""Process wall time to the first frame: `crmarena-tui play` against a bare Textual app.

Both run in a pseudo-terminal (120x40) from a fresh interpreter; the clock stops when the first
frame's marker text reaches the terminal (the app's title bar, the bare app's one label). Runs
alternate between the two so machine load hits both alike. Target: ratio <= 1.5.

    python benchmarks/bench_first_frame.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent

BARE_APP = textwrap.dedent("""
    from textual.app import App
    from textual.widgets import Footer, Label

    class Bare(App):
        def compose(self):
            yield Label("BARE-FIRST-FRAME")
            yield Footer()

    Bare().run()
""")


def first_frame(argv: list[str], marker: str, env: dict[str, str]) -> float:
    """Seconds from spawning `argv` until `marker` appears in its terminal output."""
    start = time.perf_counter()
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        env=env,
        dimensions=(40, 120),
        encoding="utf-8",
        codec_errors="replace",
        cwd=str(ROOT),
    )
    try:
        child.expect_exact(marker, timeout=60)
        elapsed = time.perf_counter() - start
    finally:
        child.sendcontrol("q")
        child.terminate(force=True)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "PYTHONPATH": str(ROOT),
            "XDG_DATA_HOME": f"{tmp}/data",
            "XDG_CONFIG_HOME": f"{tmp}/config",
            "HF_HUB_OFFLINE": "1",
        }
        bare_script = Path(tmp) / "bare.py"
        bare_script.write_text(BARE_APP)
        bare_cmd = [sys.executable, str(bare_script)]
        app_cmd = [
            sys.executable,
            "-m",
            "crmarena_tui",
            "play",
            "--as",
            "bench",
            "--db",
            f"{tmp}/sessions.db",
        ]
        # warm the OS file cache and build the demo orgs once, outside the measurement
        first_frame(app_cmd, "CRMArena-Pro", env)
        first_frame(bare_cmd, "BARE-FIRST-FRAME", env)
        bare, app = [], []
        for _ in range(args.runs):
            bare.append(first_frame(bare_cmd, "BARE-FIRST-FRAME", env))
            app.append(first_frame(app_cmd, "CRMArena-Pro", env))
    b, a = statistics.median(bare), statistics.median(app)
    print(f"runs per app:          {args.runs}")
    print(f"bare Textual app:      median {b * 1000:7.1f} ms  (min {min(bare) * 1000:.1f})")
    print(f"crmarena-tui play:     median {a * 1000:7.1f} ms  (min {min(app) * 1000:.1f})")
    print(f"ratio (median):        {a / b:.2f}x  (target <= 1.50)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
