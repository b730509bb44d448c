"""The sessions database for browsing (issue 29): the `session_overview` and `current_grades`
views, the stored annotation level and ISO study times, and Datasette serving them over loopback
with one row per session and its current reward."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from contextlib import closing
from pathlib import Path

from crmarena_tui.storage import Store
from tests.support.study_support import cli, grade, work, write_tasks


def _database(tmp_path: Path) -> tuple[Path, dict[int, float]]:
    """Four sessions: one graded twice (the second grade counts), one ungraded, labels and notes
    at both levels, and a study."""
    tasks = write_tasks(tmp_path / "tasks.json", per_type=2)
    path = tmp_path / "sessions.db"
    code, _out, err = cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "1",
        "--participants", "ana,bo", "--db", str(path),
    )  # fmt: skip
    assert code == 0, err
    with Store(path) as store:
        a = work(store, "ana", tasks[0], study_id=None, reward=0.0)
        store.add_grade(a.id, grade(1.0))  # re-graded: this one counts
        b = work(store, "bo", tasks[1], study_id=None, reward=0.0)
        c = work(store, "agent-x", tasks[2], study_id=None, reward=1.0, kind="agent", model="m")
        d = work(store, "ana", tasks[3], study_id=None)  # in progress, no grade
        store.annotations.add(a.id, "gave up", annotator="ann")
        store.annotations.add(a.id, "wrong field", annotator="ann", event_seq=1)
        store.annotations.add(b.id, "", "looked, fine", annotator="ann", kind="note")
    return path, {a.id: 1.0, b.id: 0.0, c.id: 1.0, d.id: None}  # type: ignore[dict-item]


def test_the_views_give_one_row_per_session_with_its_current_grade(tmp_path: Path) -> None:
    path, rewards = _database(tmp_path)
    with closing(sqlite3.connect(path)) as db:
        db.row_factory = sqlite3.Row
        rows = {r["session_id"]: r for r in db.execute("SELECT * FROM session_overview")}
        assert {k: rows[k]["reward"] for k in rows} == rewards
        first = min(rewards)
        assert (rows[first]["labels"], rows[first]["participant"]) == (2, "ana")
        assert "task_json" not in rows[first].keys()  # noqa: SIM118 - a Row: `in` reads values
        current = db.execute("SELECT session_id, reward FROM current_grades").fetchall()
        assert sorted(tuple(r) for r in current) == sorted(
            (k, v) for k, v in rewards.items() if v is not None
        )
        levels = db.execute("SELECT label, level FROM annotations ORDER BY id").fetchall()
        assert [tuple(r) for r in levels] == [
            ("gave up", "session"), ("wrong field", "step"), ("", "session"),
        ]  # fmt: skip
        (created,) = db.execute("SELECT created_at FROM studies").fetchone()
        assert isinstance(created, str) and created.endswith("Z") and "T" in created


def test_a_database_from_before_gets_the_views_level_and_iso_times(
    tmp_path: Path, monkeypatch
) -> None:
    from crmarena_tui.storage import schema as schema_mod

    with monkeypatch.context() as old:  # a database as schema 9 made it
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:9])
        old.setattr(schema_mod, "SCHEMA_VERSION", 9)
        path, _ = _database(tmp_path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE studies SET created_at = 1764620000.5")  # Unix seconds, as then
        db.commit()
        assert db.execute("PRAGMA user_version").fetchone() == (9,)
        assert "level" not in [r[1] for r in db.execute("PRAGMA table_info(annotations)")]
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION
        [study] = store.read("SELECT created_at FROM studies")
        assert study[0].startswith("2025-12-01T")
        assert [r[0] for r in store.read("SELECT level FROM annotations ORDER BY id")] == [
            "session", "step", "session",
        ]  # fmt: skip
        assert len(store.read("SELECT * FROM session_overview")) == 4
    code, out, _ = cli("study", "list", "--db", str(path))
    assert code == 0 and "2025-12-01" in out  # the CLI reads the ISO time back


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_datasette_serves_the_overview_with_one_row_per_session(tmp_path: Path) -> None:
    path, rewards = _database(tmp_path)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "datasette", "serve", str(path), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/sessions/session_overview.json?_shape=array&_size=max"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as reply:
                    rows = json.loads(reply.read())
                break
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "datasette did not start"
                time.sleep(0.2)
        assert len(rows) == len(rewards)
        assert {r["session_id"]: r["reward"] for r in rows} == rewards
    finally:
        server.terminate()
        server.wait(10)
