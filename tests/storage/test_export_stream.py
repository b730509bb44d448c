"""Streaming export (issue 30): rows read a chunk of sessions at a time give the very bytes the
one-session-at-a-time export gave; `--where` keeps what the sessions list's filter keeps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders.base import Grade
from crmarena_tui.reports.session_rows import load_index
from crmarena_tui.storage import Store, export_schema, exporter
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"


def one_at_a_time(store: Store, *_args: Any, **_kwargs: Any) -> Iterator[dict[str, Any]]:
    """The export's rows as they were read before issue 30: every session, then per session its
    events, latest grade and annotations."""
    people = {p.id: p for p in store.participants()}
    studies = dict(store.read("SELECT id, name FROM studies"))
    for session in store.sessions():
        yield export_schema.session_row(
            session,
            people[session.participant_id],
            store.events(session.id),
            store.grade(session.id),
            store.annotations.find(session_id=session.id, kind=None),
            studies.get(session.study_id) if session.study_id is not None else None,
        )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Imported upstream runs, and human sessions: regraded, ungraded, annotated, a fork."""
    path = tmp_path / "s.db"
    with Store(path) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
        ana = store.participant("human", "ana")
        for k in range(5):
            task = Task(
                idx=900 + k, task="handle_time", query=f"Who is fastest {k}?",
                answer=["005Wt000003NIvNIAW"], reward_metric="exact_match", source="hf:b2b",
            )  # fmt: skip
            sid = store.create_session(session_spec(ana, task, "demo", "demo:b2b"), started_at=1_700_000_000.0 + k * 3600).id  # fmt: skip
            store.append_event(sid, "human", "query", {"text": f"SELECT Id FROM Case -- {k}"})
            if k % 2 == 0:
                store.set_status(sid, "submitted", ended_at=1_700_000_090.0 + k, active_seconds=7)
                for reward in (0.0, 1.0)[: k // 2 + 1]:  # one grade, or a regrade
                    store.add_grade(
                        sid,
                        Grade(
                            answer="x",
                            parsed_answer=["x"],
                            reward=reward,
                            grader="exact_match",
                            extraction="strip",
                        ),
                    )
            if k != 1:
                store.annotations.add(
                    sid, "wrong_filter", note=f"n{k}", annotator="bo", event_seq=1
                )
        store.create_session(session_spec(ana, task, "demo", "demo:b2b", parent_id=1, fork_seq=2, kind="fork"), started_at=1_700_100_000.0)  # fmt: skip
        store.copy_events(1, store.read("SELECT MAX(id) FROM sessions")[0][0], 2)
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_chunked_export_writes_the_same_file_as_one_session_at_a_time(
    db: Path, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    new, old = tmp_path / f"new.{fmt}", tmp_path / f"old.{fmt}"
    monkeypatch.setattr(export_schema, "CHUNK", 2)  # many chunks over the few sessions
    with Store(db) as store:
        assert store.read("SELECT COUNT(*) FROM sessions")[0][0] > 6
        written = exporter.export_sessions(store, fmt, new)
        monkeypatch.setattr(exporter, "session_rows", one_at_a_time)
        assert exporter.export_sessions(store, fmt, old) == written
    if fmt == "parquet":
        import pyarrow.parquet as pq

        assert pq.read_table(new).equals(pq.read_table(old))
        assert pq.read_table(new).num_rows == written
    else:
        assert new.read_bytes() == old.read_bytes()


def test_progress_is_told_the_sessions_read(db: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(export_schema, "CHUNK", 3)
    seen: list[int] = []
    with Store(db) as store:
        total = store.read("SELECT COUNT(*) FROM sessions")[0][0]
        exporter.export_sessions(store, "jsonl", tmp_path / "p.jsonl", progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == total and len(seen) == -(-total // 3)


@pytest.mark.parametrize("where", ["ana", "b2b", "human submitted", "#3", "knowledge", "nobody"])
def test_where_keeps_what_the_sessions_list_filter_keeps(
    db: Path, tmp_path: Path, where: str, capsys
) -> None:
    with Store(db) as store:
        index = load_index(store)
        listed = sorted(index.rows[i].id for i in index.filter(where))
    out = tmp_path / "w.jsonl"
    assert main(["export", "--db", str(db), "--out", str(out), "--where", where]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["session_id"] for r in rows] == listed
    assert f"wrote {len(listed)} session(s)" in capsys.readouterr().out
    if where == "ana":
        assert listed and all(r["participant_name"] == "ana" for r in rows)
