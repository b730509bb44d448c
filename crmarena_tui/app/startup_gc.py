"""The garbage collector during the app's start-up (no textual here).

Start-up allocates a large, long-lived heap (textual's and the app's modules, 8,560 demo task
rows) and almost no garbage, yet each allocation burst sets off collections that walk all of it:
about a tenth of the CPU the app used until its task rows were on screen. `play` pauses the
collector before it imports the app when the rows are read quickly (demo sets, .json/.jsonl
files; not the hub or parquet, which load through `datasets` for as long as the network takes),
and the app settles it once the rows are drawn (or resumes it first when a demo set must be built).
"""

from __future__ import annotations

import gc
from pathlib import Path


def pause(source: str) -> None:
    """Turn the collector off for a start-up on `source`, if its rows are read quickly."""
    if source in ("demo", "demo:small") or (
        not source.startswith("hf:") and Path(source).suffix.lower() in (".json", ".jsonl")
    ):
        gc.disable()


def resume() -> None:
    """The collector on again before long work (a first run's demo orgs and tasks are built)."""
    gc.enable()


def settle() -> None:
    """Once the rows are drawn: one full collection, the heap left after it frozen out of the
    collector's way (else every few screen opens pay a 100 ms full collection over it), and the
    collector on again (it may never have been off: tests and embedders start no `play`)."""
    gc.collect()
    gc.freeze()
    gc.enable()
