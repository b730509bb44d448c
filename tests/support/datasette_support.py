"""A generated sessions database for Datasette's tests and benchmark (issue 40): `count` sessions
of three participants, each with a task snapshot of some kilobytes (what makes a row heavy), one
event, and a grade; every third session graded twice (the second grade counts: reward 1.0 when the
session id is odd), every fifth labelled."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.storage import Store
from crmarena_tui.storage.bulk import BulkWriter

CHUNK = 5000
STATUSES = ("submitted", "abandoned", "in_progress")


def overview_db(path: Path, count: int) -> Path:
    """Write `count` generated sessions into a new sessions database at `path`."""
    with Store(path, durability="normal") as store:
        who = [
            store.participant("agent", f"model-{k}/react", model=f"model-{k}").id for k in (1, 2, 3)
        ]
        done = 0
        while done < count:
            with store.transaction() as conn:
                writer = BulkWriter(conn)
                for i in range(done, min(count, done + CHUNK)):
                    sid = writer.session(
                        {
                            "participant_id": who[i % 3],
                            "task_source": "hf:b2b",
                            "task_idx": i % 2000,
                            "task_type": ("handle_time", "knowledge_qa", "policy")[i % 3],
                            "task_json": {"idx": i % 2000, "query": "x" * 3000},
                            "status": STATUSES[i % 3],
                            "started_at": "2025-01-01T00:00:00.000000Z",
                            "settings_key": "k",
                            "settings": {"strategy": "react"},
                        }
                    )
                    writer.events_of(sid, [("agent", "submit", {"answer": "a"})])
                    for n in range(2 if i % 3 == 0 else 1):
                        writer.grade(_grade(sid, float(sid % 2) if n or i % 3 else 0.5))
                writer.flush()
            done = min(count, done + CHUNK)
        with store.transaction() as conn:
            conn.execute(
                "INSERT INTO annotations (session_id, label, annotator, created_at, kind)"
                " SELECT id, 'looked', 'ann', '2025-01-01T00:00:00Z', 'label' FROM sessions"
                " WHERE id % 5 = 0"
            )
    return path


def _grade(sid: int, reward: float) -> dict:
    return {
        "session_id": sid,
        "answer": "a",
        "reward": reward,
        "metrics": {"no_answer": False},
        "grader": "exact_match",
        "grader_version": "1",
        "graded_at": "2025-01-01T00:00:00.000000Z",
        "imported": 1,
        "protocol": "upstream",
    }
