"""The examples under examples/ run as a user runs them (issue 26): the MCP client works a queue
through `crmarena-tui mcp` over stdio with the SDK's own client, and its sessions carry its name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from crmarena_tui.storage import Store

ROOT = Path(__file__).resolve().parents[2]


def test_the_mcp_client_example_works_a_queue(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    db = tmp_path / "s.db"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    args = ["--tasks", "demo:small", "--task", "quote_approval", "--limit", "4",
            "--protocol", "workbench", "--interactive", "--db", str(db)]  # fmt: skip
    ran = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "mcp_client.py"), *args],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count("Task ") == 4 and "The queue is done" in ran.stdout
    with Store(db) as store:
        sessions = store.sessions()
        people = {p.id: p for p in store.participants()}
        assert len(sessions) == 4 and all(s.status == "submitted" for s in sessions)
        assert all(s.interactive for s in sessions)
        [name] = {people[s.participant_id].name for s in sessions}
        assert "example-mcp-client" in name and "0.1" in name
