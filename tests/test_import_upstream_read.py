"""Reading result files for an import in worker processes: the same sessions, events and refusals
as reading them in a thread, in order; processes only where forking is safe and pays."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest
from upstream_results import write, write_many

from crmarena_tui.storage import Store, upstream_read
from crmarena_tui.storage.upstream import UpstreamImporter, find_result_files
from crmarena_tui.storage.upstream_file import UpstreamFile, UpstreamFormatError


def _folder(tmp_path: Path) -> list[Path]:
    results = write_many(tmp_path / "results", 60, steps=3)  # 20 files of 3 items
    broken = write(results, "b2b/react_openai/results_o1-mini_react_broken.json", [])
    broken.write_text('[{"task_id": 1, "task_type": "handle_time", "reward": 1, "traj": [', "utf-8")
    return find_result_files([results])


def _read(files: list[Path], processes: bool) -> list[UpstreamFile | UpstreamFormatError]:
    return list(upstream_read.read_in_order(files, processes=processes))


def test_processes_read_what_a_thread_reads_in_the_same_order(tmp_path: Path) -> None:
    files = _folder(tmp_path)
    in_thread, in_processes = _read(files, False), _read(files, True)
    assert len(in_processes) == len(files) == 21
    for a, b in zip(in_thread, in_processes, strict=True):
        assert type(a) is type(b)
        if isinstance(a, UpstreamFormatError):
            assert isinstance(b, UpstreamFormatError)
            assert (str(b), b.path, b.where) == (str(a), a.path, a.where)
            assert "truncated" in str(b)
            continue
        assert isinstance(b, UpstreamFile)
        assert b.path == a.path
        assert [i.digest for i in b.items] == [i.digest for i in a.items]
        assert [i.encoded for i in b.items] == [i.encoded for i in a.items]
        assert all(i.encoded and i.encoded[0][1] == "system" for i in b.items)


def _rows(path: Path) -> list[tuple]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(
            "SELECT s.task_source, s.task_idx, s.settings, e.seq, e.actor, e.kind, e.payload"
            " FROM sessions s JOIN events e ON e.session_id = s.id ORDER BY s.id, e.seq"
        ).fetchall()


def test_an_import_read_in_processes_writes_the_same_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _folder(tmp_path)
    summaries = []
    for name, processes in (("thread.db", False), ("processes.db", True)):
        monkeypatch.setattr(upstream_read, "_worth_processes", lambda _files, p=processes: p)
        with Store(tmp_path / name) as store:
            summaries.append(UpstreamImporter(store).import_paths(files))
    assert [(s.imported, s.files, len(s.refused)) for s in summaries] == [(60, 21, 1)] * 2
    rows = _rows(tmp_path / "thread.db")
    assert len(rows) > 60 * 8 and rows == _rows(tmp_path / "processes.db")


def test_processes_only_for_a_large_folder_and_never_beside_other_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _folder(tmp_path)
    real_count = threading.active_count
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(upstream_read, "PROCESS_BYTES", 1)
    assert upstream_read._worth_processes(files)
    assert not upstream_read._worth_processes(files[:1])  # one file: nothing to overlap
    monkeypatch.setattr(upstream_read, "PROCESS_BYTES", 10**9)
    assert not upstream_read._worth_processes(files)  # too little to pay for the processes
    monkeypatch.setattr(upstream_read, "PROCESS_BYTES", 1)
    monkeypatch.setattr(threading, "active_count", real_count)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not upstream_read._worth_processes(files)  # never fork beside another thread
    finally:
        stop.set()
        other.join()
