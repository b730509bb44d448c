"""Round trips, schema versioning, refusal of foreign files, and secret scrubbing of the Store."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import NotASessionsDatabase, NotFound, SchemaTooNew, Store
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.convert import is_secret_key, scrub_secrets
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec


@pytest.fixture
def rows(sample_rows_path: Path) -> list[dict]:
    return json.loads(sample_rows_path.read_text())


@pytest.fixture
def task(rows: list[dict]) -> Task:
    return Task(**rows[0], source="hf:b2b")


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "sessions.db") as s:
        yield s


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_participant_is_got_or_created_by_all_its_fields(store: Store) -> None:
    a = store.participant("agent", "react", "openai/gpt-4o", {"temperature": 0})
    again = store.participant("agent", "react", "openai/gpt-4o", {"temperature": 0})
    other = store.participant("agent", "react", "openai/gpt-4o", {"temperature": 1})
    human = store.participant("human", "ana")
    assert again.id == a.id
    assert len({a.id, other.id, human.id}) == 3
    assert human.model is None and human.settings == {}
    assert store.participant("human", "ana").id == human.id
    assert [p.name for p in store.participants("human")] == ["ana"]
    with pytest.raises(ValueError):
        store.participant("robot", "x")


def test_session_round_trip_keeps_the_task_snapshot(store: Store, task: Task) -> None:
    p = store.participant("human", "ana")
    s = store.create_session(
        session_spec(
            p, task, "local", "/tmp/org.db", aided=True, blind=False, settings={"mode": "x"}
        ),
        started_at=1_700_000_000.25,
    )
    got = store.session(s.id)
    assert got.task() == task  # ground truth included, for grading
    assert got.task_source == "hf:b2b" and got.task_idx == task.idx and got.task_type == task.task
    assert (got.aided, got.blind, got.interactive, got.status) == (
        True,
        False,
        False,
        "in_progress",
    )
    assert got.started_at.timestamp() == pytest.approx(1_700_000_000.25)
    assert got.started_at.utcoffset().total_seconds() == 0
    with closing(sqlite3.connect(store.path)) as other:
        raw = other.execute("SELECT started_at FROM sessions WHERE id = ?", [s.id]).fetchone()[0]
    assert raw == "2023-11-14T22:13:20.250000Z"
    done = store.set_status(s.id, "submitted", ended_at=1_700_000_100.0, active_seconds=42.5)
    assert done.status == "submitted" and done.active_seconds == 42.5
    assert done.ended_at.timestamp() == pytest.approx(1_700_000_100.0)
    with pytest.raises(ValueError):
        store.set_status(s.id, "done")
    with pytest.raises(NotFound):
        store.session(999)


def test_find_session_returns_the_latest_matching_one(store: Store, rows: list[dict]) -> None:
    p = store.participant("human", "ana")
    q = store.participant("human", "bo")
    t0, t1 = Task(**rows[0], source="hf:b2b"), Task(**rows[1], source="hf:b2b")
    first = store.create_session(session_spec(p, t0, "local", "o"), settings_key="k")
    second = store.create_session(session_spec(p, t0, "local", "o"), settings_key="k")
    store.create_session(session_spec(p, t0, "local", "o"), settings_key="other")
    store.create_session(session_spec(q, t0, "local", "o"), settings_key="k")
    store.create_session(session_spec(p, t1, "local", "o"), settings_key="k")
    assert store.find_session(p.id, "hf:b2b", t0.idx, "k").id == second.id
    store.set_status(second.id, "abandoned")
    assert store.find_session(p.id, "hf:b2b", t0.idx, "k", status="in_progress").id == first.id
    assert store.find_session(p.id, "demo", t0.idx, "k") is None
    assert len(store.sessions(participant_id=p.id)) == 4
    assert [s.id for s in store.sessions(task_idx=t0.idx, status="abandoned")] == [second.id]
    assert len(store.sessions(task_source="hf:b2b")) == 5


def test_events_round_trip_in_order(store: Store, task: Task) -> None:
    p = store.participant("agent", "a", "m")
    s = store.create_session(session_spec(p, task, "local", "o"))
    payloads = [
        {"text": "SELECT Id FROM Case"},
        {"observation": "[]", "total_size": 0},
        {"text": "Ünïcode ✓ «quotes»", "nested": {"list": [1, None, "x"]}},
    ]
    kinds = ["query", "observation", "message"]
    for i, (kind, payload) in enumerate(zip(kinds, payloads, strict=True)):
        ev = store.append_event(
            s.id,
            "agent" if kind != "observation" else "system",
            kind,
            payload,
            duration_ms=12.5 if i == 1 else None,
            ts=1000.0 + i,
        )
        assert ev.seq == i + 1
    events = store.events(s.id)
    assert [e.seq for e in events] == [1, 2, 3]
    assert [e.kind for e in events] == kinds
    assert [e.payload for e in events] == payloads
    assert events[1].duration_ms == 12.5 and events[1].actor == "system"
    assert events[2].ts.timestamp() == pytest.approx(1002.0)
    assert [e.seq for e in store.events(s.id, after_seq=2)] == [3]
    with pytest.raises(ValueError):
        store.append_event(s.id, "robot", "query", {})
    with pytest.raises(ValueError):
        store.append_event(s.id, "agent", "teleport", {})
    with pytest.raises(NotFound):
        store.append_event(12345, "agent", "note", {"text": "x"})


def test_grades_round_trip_and_latest_wins(store: Store, task: Task) -> None:
    p = store.participant("human", "ana")
    s = store.create_session(session_spec(p, task, "local", "o"))
    assert store.grade(s.id) is None
    first = Grade(
        answer="00TWt000002z48wMAA",
        parsed_answer=["00TWt000002z48wMAA"],
        reward=0.0,
        grader="exact_match",
        extraction="deterministic",
        metrics={"f1": 0.5},
    )
    second = Grade(
        answer="x",
        parsed_answer=None,
        reward=1.0,
        grader="privacy_rejection",
        extraction="llm",
        judge_model="judge-1",
        judge_raw="YES",
    )
    store.add_grade(s.id, first)
    store.add_grade(s.id, second)
    latest = store.grade(s.id)
    assert (latest.reward, latest.grader, latest.judge_model, latest.judge_raw) == (
        1.0,
        "privacy_rejection",
        "judge-1",
        "YES",
    )
    assert latest.parsed_answer is None and latest.extraction == "llm" and not latest.imported
    old = store.grades(s.id)[0]
    assert old.parsed_answer == ["00TWt000002z48wMAA"] and old.metrics == {"f1": 0.5}
    assert old.grader_version == first.grader_version
    with pytest.raises(NotFound):
        store.add_grade(999, first)


def test_annotations_on_sessions_and_events(store: Store, task: Task) -> None:
    p = store.participant("human", "ana")
    s = store.create_session(session_spec(p, task, "local", "o"))
    store.append_event(s.id, "human", "query", {"text": "SELECT Id FROM Lead"})
    a1 = store.annotations.add(
        s.id, "wrong object", "should read Opportunity", "rater1", event_seq=1
    )
    a2 = store.annotations.add(s.id, "gave up", "", "rater2")
    assert (a1.event_seq, a1.note, a1.annotator) == (1, "should read Opportunity", "rater1")
    assert a2.event_seq is None
    assert [a.label for a in store.annotations.find(s.id)] == ["wrong object", "gave up"]
    assert [a.id for a in store.annotations.find(annotator="rater2")] == [a2.id]
    with pytest.raises(NotFound):
        store.annotations.add(s.id, "x", "", "rater1", event_seq=7)  # no such event
    store.annotations.remove(a1.id)
    assert [a.id for a in store.annotations.find()] == [a2.id]


def test_secrets_never_reach_the_file(tmp_path: Path, task: Task) -> None:
    secret = "sk-THIS-MUST-NOT-BE-STORED-123"
    path = tmp_path / "s.db"
    with Store(path) as store:
        p = store.participant(
            "agent",
            "react",
            "gpt",
            {
                "api_key": secret,
                "OPENAI_API_KEY": secret,
                "nested": {"password": secret, "securityToken": secret, "client_secret": secret},
                "temperature": 0.2,
                "max_tokens": 100,
            },
        )
        s = store.create_session(
            session_spec(
                p,
                task,
                "salesforce",
                "salesforce:b2b",
                settings={"apiKey": secret, "auth": {"access_token": secret}},
            )
        )
        store.append_event(
            s.id,
            "agent",
            "usage",
            {"prompt_tokens": 10, "token": secret, "headers": {"Authorization": secret}},
        )
        assert p.settings == {"nested": {}, "temperature": 0.2, "max_tokens": 100}
        assert store.events(s.id)[0].payload == {"prompt_tokens": 10, "headers": {}}
        assert store.session(s.id).settings == {"auth": {}}
    stored = b"".join(f.read_bytes() for f in tmp_path.iterdir())
    assert secret.encode() not in stored


def test_secret_key_rules() -> None:
    for key in (
        "api_key",
        "apiKey",
        "OPENAI_API_KEY",
        "password",
        "security_token",
        "secret",
        "client_secret",
        "Authorization",
        "private_key",
        "x-api-key",
        "APIKey",
    ):
        assert is_secret_key(key), key
    for key in (
        "prompt_tokens",
        "max_tokens",
        "total_tokens",
        "model",
        "temperature",
        "keyword",
        "settings_key",
        "monkey",
    ):
        assert not is_secret_key(key), key
    from pydantic import SecretStr

    assert scrub_secrets({"base": "u", "k": SecretStr("x"), "l": [SecretStr("y"), 1]}) == {
        "base": "u",
        "l": [1],
    }


def test_open_creates_parent_dirs_and_uses_the_default_path(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "deep" / "er" / "sessions.db"
    monkeypatch.setenv("CRMARENA_TUI_DB", str(target))
    assert not target.parent.exists()  # importing the package created nothing
    with Store() as store:
        assert store.path == target
        assert store.schema_version == schema_mod.SCHEMA_VERSION
    assert target.exists()
    conn = sqlite3.connect(target)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")} >= set(
        schema_mod.TABLES
    )


def test_newer_schema_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = digest(path)
    with pytest.raises(SchemaTooNew) as info:
        Store(path)
    message = str(info.value)
    assert "99" in message and f"up to {schema_mod.SCHEMA_VERSION}" in message
    assert digest(path) == before


@pytest.mark.parametrize(
    "content",
    [
        b"this is a text file, not a database\n" * 20,
        b"SQLite format 3\x00" + b"\xff" * 4000,  # a header followed by garbage
    ],
)
def test_corrupt_or_foreign_file_is_refused_and_not_overwritten(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(content)
    with pytest.raises(NotASessionsDatabase) as info:
        Store(path)
    assert str(path) in str(info.value) and "untouched" in str(info.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]


def test_someone_elses_sqlite_db_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "org.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE Account (Id TEXT, Name TEXT)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(NotASessionsDatabase, match="not a crmarena-tui sessions database"):
        Store(path)
    assert digest(path) == before


def test_migrations_run_in_order_and_atomically(tmp_path: Path, monkeypatch, task: Task) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        p = store.participant("human", "ana")
        store.create_session(session_spec(p, task, "local", "o"))

    def broken(db) -> None:
        db.execute("ALTER TABLE sessions ADD COLUMN half_done TEXT")
        raise RuntimeError("migration bug")

    def add_column(db) -> None:
        db.execute("ALTER TABLE sessions ADD COLUMN tags TEXT NOT NULL DEFAULT ''")

    shipped = schema_mod.SCHEMA_VERSION
    monkeypatch.setattr(schema_mod, "MIGRATIONS", [*schema_mod.MIGRATIONS, broken])
    monkeypatch.setattr(schema_mod, "SCHEMA_VERSION", shipped + 1)
    with pytest.raises(RuntimeError, match="migration bug"):
        Store(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == shipped
    assert "half_done" not in {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
    conn.close()

    monkeypatch.setattr(schema_mod, "MIGRATIONS", [*schema_mod.MIGRATIONS[:shipped], add_column])
    with Store(path) as store:
        assert store.schema_version == shipped + 1
        assert len(store.sessions()) == 1
        with closing(sqlite3.connect(path)) as other:
            cols = {r[1] for r in other.execute("PRAGMA table_info(sessions)").fetchall()}
        assert "tags" in cols


def test_importing_storage_and_episode_stays_light() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, crmarena_tui.storage, crmarena_tui.session.episode; "
        "print(sorted(m for m in ('sqlite_utils', 'pandas', 'textual', 'litellm') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
