"""A large query result comes back as a scratch table after the app is killed (issue 36): a
5,377-row result (about 1.5 MB of JSON, over the stored text cap) was cut when stored, and its
table `r1` was lost on resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.scratch.scratch import Scratch
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.model import Task
from tests.session.test_episode import TinyOrg

ROOT = Path(__file__).resolve().parents[2]
ROWS = 5_377


def many_accounts(n: int = ROWS) -> list[dict]:
    """`n` Account records of about 300 characters each."""
    return [
        {
            "attributes": {"type": "Account", "url": f"/a/{i}"},
            "Id": f"001{i:015d}",
            "Name": f"Account number {i} " + "x" * 200,
            "Industry": "Manufacturing",
            "AnnualRevenue": i * 1000,
        }
        for i in range(n)
    ]


class BigOrg(TinyOrg):
    """Answers every query with `ROWS` accounts."""

    def query(self, soql: str, *, today=None) -> QueryResult:  # type: ignore[override]
        return QueryResult(records=many_accounts(), total_size=ROWS, elapsed_ms=5.0)


CHILD = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[3])
    from tests.scratch.test_scratch_large_result import BigOrg
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.models import SessionSpec
    from crmarena_tui.tasks.model import Task
    store = Store(sys.argv[1])
    task = Task(**json.loads(sys.argv[2]))
    ep = Episode.start(store, SessionSpec(task, BigOrg(), store.participant("human", "ana")))
    ep.execute("SELECT Id, Name FROM Account")
    print(ep.session_id, flush=True)
    time.sleep(60)
""")


def test_a_5377_row_result_is_a_scratch_table_after_kill_9(
    tmp_path: Path, sample_rows_path: Path
) -> None:
    path = tmp_path / "s.db"
    task = Task(**json.loads(sample_rows_path.read_text())[0], source="hf:b2b")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CHILD,
            str(path),
            task.model_dump_json(),
            str(Path(__file__).parents[2]),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    line = proc.stdout.readline()
    assert line.strip(), proc.stderr.read()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with Store(path) as store:
        assert store.text_limit < len(json.dumps(many_accounts()))  # the result is over the cap
        ep = Episode.start(store, SessionSpec(task, BigOrg(), store.participant("human", "ana")))
        assert ep.session_id == int(line)
        scratch = Scratch()
        [r1] = scratch.result_sets(ep.events)
        assert r1.error is None and r1.records is not None and len(r1.records) == ROWS
        out = scratch.run("SELECT COUNT(*), MAX(AnnualRevenue) FROM r1", ep.events)
        assert out.error is None and out.rows == [(ROWS, (ROWS - 1) * 1000)]
