"""The demo's helpers that only tests use: an Id's checksum check, the demo tasks written out as
dataset rows."""

from __future__ import annotations

import json
import os
from pathlib import Path

from crmarena_tui.demo.ids import BASE62
from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.orgs.salesforce_ids import checksum


def is_valid_id(value: str) -> bool:
    """True for a well-formed 18-character Id whose suffix matches its first 15 characters."""
    return (
        isinstance(value, str)
        and len(value) == 18
        and all(c in BASE62 for c in value[:15])
        and checksum(value[:15]) == value[15:]
    )


def write_demo_tasks(
    path: str | os.PathLike[str], org_type: str | None = None, size: str = "full"
) -> Path:
    """Write the demo tasks as dataset rows (.json list, or .jsonl) with org_type, interactive and
    `"source": "demo"` (so they run on the demo org when loaded back)."""
    path = Path(path).expanduser()
    rows = [task.row() for task in demo_tasks(org_type, size)]  # "source": "demo" marks them
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".jsonl":
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    else:
        path.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    return path
