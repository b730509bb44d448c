"""`export --events`: one row per event of the selected sessions, in every export format, equal
to the events table joined with its session as docs/research.md ("Exports") documents."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from crmarena_tui.storage.configuration import session_configuration
from crmarena_tui.storage.export_event_table import EVENT_COLUMNS, EVENT_SCHEMA
from crmarena_tui.storage.steps import group_steps
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec


def _task(idx: int) -> Task:
    return Task(
        idx=idx,
        task="handle_time",
        query=f"question {idx}",
        answer=["x"],
        reward_metric="exact_match",
        source="hf:b2b",
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Six sessions of two agents; the odd ones hit INVALID_FIELD on Case and answer anyway."""
    path = tmp_path / "e.db"
    with Store(path) as store:
        people = [
            store.participant("agent", "gpt-4o-2024-08-06", "gpt-4o", {"strategy": "react"}),
            store.participant("agent", "o1-mini", "o1-mini", {"strategy": "act"}),
        ]
        for n in range(6):
            sid = store.create_session(
                session_spec(people[n % 2], _task(100 + n), "demo", "demo:b2b"),
                started_at=1_700_000_000.0 + n,
            ).id
            store.append_event(sid, "agent", "thought", {"text": f"think, {n}"})
            store.append_event(
                sid, "agent", "usage", {"prompt_tokens": 10 + n, "completion_tokens": 3}
            )
            store.append_event(sid, "agent", "query", {"text": "SELECT Id FROM Case LIMIT 1"})
            if n % 2:
                store.append_event(
                    sid, "system", "error", {"error": "INVALID_FIELD: No such column 'Foo'"}
                )
            else:
                store.append_event(sid, "system", "observation", {"observation": '[{"Id": 1}]'})
            store.append_event(sid, "agent", "submit", {"answer": 'x\n"quoted", too'})
            store.set_status(sid, "submitted", ended_at=1_700_000_090.0 + n)
    return path


def _expected(path: Path, sessions: set[int] | None = None) -> list[dict[str, Any]]:
    """The events table joined with its sessions, read through the Store's models."""
    rows = []
    with Store(path) as store:
        people = {p.id: p for p in store.participants()}
        for sid in [r[0] for r in store.read("SELECT id FROM sessions ORDER BY id")]:
            if sessions is not None and sid not in sessions:
                continue
            session = store.session(sid)
            events = store.events(sid)
            step = {
                ev.seq: n for n, (_, group) in enumerate(group_steps(events), 1) for ev in group
            }
            for ev in events:
                tokens = ev.payload if ev.kind == "usage" else {}
                rows.append(
                    {
                        "session_id": sid,
                        "configuration": session_configuration(
                            people[session.participant_id], session
                        ),
                        "task_source": session.task_source,
                        "task_idx": session.task_idx,
                        "task_type": session.task_type,
                        "trial": session.trial,
                        "step": step[ev.seq],
                        "seq": ev.seq,
                        "kind": ev.kind,
                        "actor": ev.actor,
                        "text": ev.text,
                        "error_code": "INVALID_FIELD" if ev.kind == "error" else None,
                        "object": "case" if ev.kind == "query" else None,
                        "ts": ev.ts.isoformat().replace("+00:00", "Z"),
                        "duration_ms": ev.duration_ms,
                        "prompt_tokens": tokens.get("prompt_tokens"),
                        "completion_tokens": tokens.get("completion_tokens"),
                        "total_tokens": tokens.get("total_tokens"),
                    }
                )
    return rows


def _typed(row: dict[str, str]) -> dict[str, Any]:
    """A CSV row read back by the documented types (an empty cell: null, but for `text`, which
    is never null: CSV cannot tell the two apart)."""
    kinds = dict(EVENT_SCHEMA)
    cast = {"int": int, "float": float}
    return {
        name: None if cell == "" and name != "text" else cast.get(kinds[name], str)(cell)
        for name, cell in row.items()
    }


def test_every_format_holds_the_joined_events_table(db: Path, tmp_path: Path, capsys) -> None:
    expected = _expected(db)
    assert len(expected) == 30 and {r["step"] for r in expected} == {1, 2}
    for fmt in ("jsonl", "csv", "parquet"):
        out = tmp_path / f"events.{fmt}"
        assert main(["export", "--events", "--out", str(out), "--db", str(db)]) == 0
        assert f"wrote 30 event(s) to {out}" in capsys.readouterr().out
        if fmt == "jsonl":
            got = [json.loads(line) for line in out.read_text().splitlines()]
        elif fmt == "csv":
            with out.open(newline="") as fh:
                got = [_typed(r) for r in csv.DictReader(fh)]
        else:
            import pyarrow.parquet as pq

            table = pq.read_table(out)
            assert table.column_names == list(EVENT_COLUMNS)
            got = [
                r | {"ts": r["ts"].isoformat().replace("+00:00", "Z")} for r in table.to_pylist()
            ]
        assert got == expected, fmt
        assert list(tmp_path.glob(".events*")) == []  # the part file was renamed into place


def test_the_export_filters_select_the_sessions(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "o1.jsonl"
    assert (
        main(["export", "--events", "--where", "o1-mini", "--out", str(out), "--db", str(db)]) == 0
    )
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert got == _expected(db, {2, 4, 6})
    out = tmp_path / "hit.csv"
    argv = ["export", "--events", "--search", "error:INVALID_FIELD"]
    assert main([*argv, "--out", str(out), "--db", str(db)]) == 0
    with out.open(newline="") as fh:
        got = [_typed(r) for r in csv.DictReader(fh)]
    assert {r["session_id"] for r in got} == {2, 4, 6}
    assert got == _expected(db, {2, 4, 6})
