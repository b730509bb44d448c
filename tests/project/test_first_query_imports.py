"""A human's first query in the workspace loads no model client: the Episode builds what the
participant is shown from the org's result alone (`orgs/observation_text.py`), whatever the
protocol. The probe runs the workspace's own path in a fresh interpreter: the app's
`SessionService` starts the session (`start_episode`), then `Episode.execute` runs the query as
the workspace's query part does (`screens/workspace_query.py`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIRST_QUERY = """
import json, sys
from pathlib import Path
from crmarena_tui.session.org_resolve import open_org
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.tasks.loaders import load_tasks

task = next(t for t in load_tasks(sys.argv[1]) if not t.interactive)
settings = load_settings(protocol=sys.argv[3])
service = SessionService(settings)
store = Store(Path(sys.argv[2]))
org = open_org("demo:" + task.org_type)
spec = service.spec(task, org, store.participant("human", "probe"))
episode = service.start(store, spec)
before = sorted(sys.modules)
result = episode.execute("```sql\\nSELECT Id, Name FROM Account LIMIT 2\\n```")
shown = [e.payload for e in episode.events if e.kind == "observation"]
print(json.dumps({"ok": result.ok, "shown": shown, "before": before, "after": sorted(sys.modules)}))
"""
MODEL_CLIENT = ("litellm", "crmarena_tui.llm.client", "crmarena_tui.agents.upstream")


@pytest.mark.parametrize("protocol", ["workbench", "upstream"])
def test_a_humans_first_query_loads_no_model_client(
    protocol: str, tmp_path: Path, sample_rows_path: Path
) -> None:
    from crmarena_tui.demo.generator import ensure_demo_org

    ensure_demo_org("b2b")  # built once per test run, outside the probe
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            FIRST_QUERY,
            str(sample_rows_path),
            str(tmp_path / "s.db"),
            protocol,
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    probe = json.loads(run.stdout.strip().splitlines()[-1])
    assert probe["ok"] and len(probe["shown"]) == 1  # the query ran and its records were logged
    assert probe["shown"][0]["observation"].startswith("[{")  # a human sees the JSON records
    assert [m for m in MODEL_CLIENT if m in probe["after"]] == []
