"""A sessions database with overwritten pages is found damaged before anything more is written
to it: every command stops with one line naming the file and `.recover`, the file untouched,
whether `PRAGMA quick_check` runs at open (a small file) or the damage is met later."""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, connection
from crmarena_tui.tasks.model import Task
from tests.support.soql_fixture_support import build_fixture_org
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream" / "b2b"
SAMPLE = Path(__file__).parents[1] / "data" / "crmarenapro_b2b_sample.json"


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_org(tmp_path_factory.mktemp("org") / "org.db")


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("damaged") / "s.db"
    with Store(path) as store, store.transaction():
        ana = store.participant("human", "ana")
        for i in range(150):
            task = Task(
                idx=i, task="handle_time", query="Who is fastest? " * 5, answer=["005Wt0"],
                reward_metric="exact_match", source="hf:b2b",
            )  # fmt: skip
            sid = store.create_session(
                session_spec(ana, task, "demo", "demo:b2b"), started_at=1.7e9 + i
            ).id
            for k in range(4):
                store.append_event(sid, "human", "query", {"text": f"SELECT Id {k} " + "x " * 60})
            store.set_status(sid, "submitted", ended_at=1.7e9 + i + 9, active_seconds=5.0)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages, size = (conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "page_size"))
    conn.close()
    rng = random.Random(7)
    with open(path, "r+b") as fh:  # 12 pages overwritten, as the attack did
        for page in rng.sample(range(2, pages), 12):
            fh.seek(page * size)
            fh.write(rng.randbytes(size))
    return path


def _commands(db: Path, tmp: Path, org: Path) -> dict[str, list[str]]:
    run = ["run", "--agent", "reference", "--tasks", str(SAMPLE), "--org", str(org), "--limit", "1"]
    return {
        "run": [*run, "--db", str(db)],  # its progress bar is not drawn: the one line alone
        "export": ["export", "--db", str(db), "--out", str(tmp / "x.jsonl")],
        "search": ["search", "--db", str(db), "SELECT"],
        "report": ["report", "--db", str(db)],
        "regrade": ["regrade", "--db", str(db), "1"],
        "merge": ["sessions", "merge", str(db), "--out", str(tmp / "m.db")],
        "import": ["import", "--db", str(db), str(UPSTREAM)],
    }


@pytest.mark.parametrize("large", [False, True], ids=["checked-at-open", "large-file"])
@pytest.mark.parametrize(
    "command", ["export", "search", "report", "regrade", "merge", "import", "run"]
)
def test_a_damaged_database_stops_every_command_in_one_line_untouched(
    damaged: Path,
    org: Path,
    tmp_path: Path,
    command: str,
    large: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if large:  # as a file above the size checked at every open
        monkeypatch.setattr(connection, "QUICK_CHECK_BYTES", 0)
    db = tmp_path / "s.db"
    db.write_bytes(damaged.read_bytes())
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    code = main(_commands(db, tmp_path, org)[command])
    err = capsys.readouterr().err
    assert code == 1, err
    assert len(err.strip().splitlines()) == 1, err
    assert f"{db} is damaged" in err and ".recover" in err and "unexpected error" not in err
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not any(n.endswith("-wal") and os.path.getsize(n) for n in map(str, tmp_path.iterdir()))
