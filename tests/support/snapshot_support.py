"""Helpers for the org snapshot tests: upstream-shaped snapshots of the demo orgs, private org folders."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from crmarena_tui.demo.generator import ensure_demo_org
from tests.support.snapshot_dump_support import DumpStyle, dump_snapshot

STYLES = {
    "b2b": DumpStyle(booleans="words", numbers="text", nulls="empty", columns="untyped"),
    "b2c": DumpStyle(
        booleans="ints", numbers="native", nulls="null", columns="text", short_ids=True
    ),
}


def upstream_name(org_type: str) -> str:
    return {"b2b": "crmarenapro_b2b_data.db", "b2c": "crmarenapro_b2c_data.db"}[org_type]


def snapshot_of_demo(folder: Path, org_type: str, style: DumpStyle | None = None) -> Path:
    """An upstream-shaped snapshot of the demo org of `org_type`, named as upstream names it."""
    folder.mkdir(parents=True, exist_ok=True)
    return dump_snapshot(
        ensure_demo_org(org_type), folder / upstream_name(org_type), style or STYLES[org_type]
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def private_org_dir(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Path:
    """Point the orgs folder at `folder` (so fetched orgs stay private to the test), with the
    shared demo orgs linked in (so they are not built again)."""
    shared = Path(os.environ["CRMARENA_TUI_ORG_DIR"])
    for org_type in ("b2b", "b2c"):
        ensure_demo_org(org_type)
    folder.mkdir(parents=True, exist_ok=True)
    for item in shared.iterdir():
        if item.name.startswith("demo-") and not item.name.endswith(".lock"):
            target = folder / item.name
            if not target.exists():
                target.symlink_to(item)
    monkeypatch.setenv("CRMARENA_TUI_ORG_DIR", str(folder))
    return folder
