"""A large JSON Lines or CSV export runs in two processes (storage/export_parallel.py): the same
bytes as one process, the progress counting both halves, `--where` in both, and a failure in
the second process reported as an error with no file left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import StorageError, Store, export_parallel, exporter
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    with Store(path) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
        ana = store.participant("human", "ana")
        for k in range(4):
            task = Task(
                idx=900 + k, task="handle_time", query=f"Who, is \"fastest\" {k}?", answer=["x"],
                reward_metric="exact_match", source="hf:b2b",
            )  # fmt: skip
            sid = store.create_session(
                session_spec(ana, task, "demo", "demo:b2b"), started_at=1700000000.0 + k
            ).id
            store.append_event(sid, "human", "query", {"text": f"SELECT Id FROM Case -- {k}"})
            store.annotations.add(sid, "wrong_filter", note=f"n{k}", annotator="bo", event_seq=1)
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_two_processes_write_the_bytes_one_process_writes(
    db: Path, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / f"one.{fmt}", tmp_path / f"two.{fmt}"
    seen: list[int] = []
    with Store(db) as store:
        total = store.read("SELECT COUNT(*) FROM sessions")[0][0]
        assert export_parallel.middle_id(store) is None  # small: one process
        assert exporter.export_sessions(store, fmt, one) == total
        monkeypatch.setattr(export_parallel, "PARALLEL_FROM", 2)
        split = export_parallel.middle_id(store)
        assert split is not None and 1 < split < total
        assert exporter.export_sessions(store, fmt, two, progress=seen.append) == total
    assert two.read_bytes() == one.read_bytes()
    assert seen == sorted(seen) and seen[-1] == total
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no part left


def test_where_filters_both_halves(db: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(export_parallel, "PARALLEL_FROM", 2)
    out = tmp_path / "w.jsonl"
    assert main(["export", "--db", str(db), "--out", str(out), "--where", "ana"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and {r["participant_name"] for r in rows} == {"ana"}
    assert [r["session_id"] for r in rows] == sorted(r["session_id"] for r in rows)


def test_a_failure_in_the_second_process_is_an_error_and_leaves_no_file(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setattr(export_parallel, "PARALLEL_FROM", 2)
    rows = exporter.session_rows

    def failing(store, *args, after=0, **kwargs):
        if after:  # the child's half
            raise StorageError("database disk image is malformed")
        yield from rows(store, *args, after=after, **kwargs)

    monkeypatch.setattr(exporter, "session_rows", failing)
    out = tmp_path / "x.jsonl"
    assert main(["export", "--db", str(db), "--out", str(out)]) == 1
    assert "error: database disk image is malformed" in capsys.readouterr().err
    assert list(tmp_path.glob("*x.jsonl*")) == []


def test_a_parquet_export_in_two_processes_holds_the_same_table(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    one, two = tmp_path / "one.parquet", tmp_path / "two.parquet"
    seen: list[int] = []
    with Store(db) as store:
        total = store.read("SELECT COUNT(*) FROM sessions")[0][0]
        assert exporter.export_sessions(store, "parquet", one) == total
        monkeypatch.setattr(export_parallel, "PARALLEL_FROM", 2)
        monkeypatch.setattr(exporter, "_PARQUET_BATCH", 2)  # several batches in each half
        assert exporter.export_sessions(store, "parquet", two, progress=seen.append) == total
    assert pq.read_table(two).equals(pq.read_table(one))
    assert pq.ParquetFile(two).metadata.num_row_groups > 2
    assert seen[-1] == total and list(tmp_path.glob(".*")) == []
