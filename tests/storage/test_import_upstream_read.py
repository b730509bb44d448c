"""Reading result files for an import in worker processes: the same sessions, events and refusals
as reading them in a thread, in order; processes only where forking is safe and pays."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing, suppress
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.storage import Store, upstream_file, upstream_read
from crmarena_tui.storage.upstream import UpstreamImporter, find_result_files
from crmarena_tui.storage.upstream_file import UpstreamFile, UpstreamFormatError, UpstreamItem
from tests.support.upstream_results_support import write, write_many


def _folder(tmp_path: Path) -> list[Path]:
    results = write_many(tmp_path / "results", 60, steps=3)  # 20 files of 3 items
    broken = write(results, "b2b/react_openai/results_o1-mini_react_broken.json", [])
    broken.write_text('[{"task_id": 1, "task_type": "handle_time", "reward": 1, "traj": [', "utf-8")
    return find_result_files([results])


def _read(files: list[Path], processes: bool) -> list[UpstreamFile | UpstreamFormatError]:
    """Each file with its items gathered from its chunks, or why it was refused."""
    out: list[UpstreamFile | UpstreamFormatError] = []
    for read in upstream_read.read_in_order(files, processes=processes):
        if isinstance(read.file, UpstreamFile):
            try:
                read.file.items = [item for chunk in read.chunks for item in chunk]
            except UpstreamFormatError as exc:
                out.append(exc)
                continue
        out.append(read.file)
    return out


def test_processes_read_what_a_thread_reads_in_the_same_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _folder(tmp_path)
    late = write_many(tmp_path / "late", 450, steps=1)  # one file of 23 items: chunks of 5
    bad = find_result_files([late])[0]
    items = json.loads(bad.read_text())
    items[21]["traj"] = "not a list"  # a malformed item in the file's fifth chunk
    bad.write_text(json.dumps(items))
    files.insert(3, bad)
    monkeypatch.setattr(upstream_read, "CHUNK", 5)
    in_thread, in_processes = _read(files, False), _read(files, True)
    assert len(in_processes) == len(files) == 22
    for a, b in zip(in_thread, in_processes, strict=True):
        assert type(a) is type(b)
        if isinstance(a, UpstreamFormatError):
            assert isinstance(b, UpstreamFormatError)
            assert (str(b), b.path, b.where) == (str(a), a.path, a.where)
            continue
        assert isinstance(b, UpstreamFile)
        assert (b.path, b.interactive, b.privacy_aware) == (a.path, a.interactive, a.privacy_aware)
        assert [i.digest for i in b.items] == [i.digest for i in a.items]
        rows_a = [i.rows for i in a.items if i.rows is not None]
        rows_b = [i.rows for i in b.items if i.rows is not None]
        assert len(rows_a) == len(rows_b) == len(b.items)  # every item's rows made while read
        assert [r.events for r in rows_b] == [r.events for r in rows_a]
        assert [r.grade for r in rows_b] == [r.grade for r in rows_a]
        assert [r.events[0][1] for r in rows_b] == ["system"] * len(rows_b)
        same = [{**r.session, "uuid": ""} for r in rows_b]
        assert same == [{**r.session, "uuid": ""} for r in rows_a]  # (but each its own uuid)
    refusals = [str(r) for r in in_processes if isinstance(r, UpstreamFormatError)]
    assert len(refusals) == 2
    assert "item 21: field 'traj'" in refusals[0] and "truncated" in refusals[1]


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
    late = write_many(tmp_path / "late", 450, steps=1)
    bad = find_result_files([late])[0]
    items = json.loads(bad.read_text())
    items[-1]["reward"] = "high"  # the last item is malformed: its chunks already written go
    bad.write_text(json.dumps(items))
    files.insert(0, bad)
    monkeypatch.setattr(upstream_read, "CHUNK", 5)
    summaries = []
    for name, processes in (("thread.db", False), ("processes.db", True)):
        monkeypatch.setattr(upstream_read, "_worth_processes", lambda _files, p=processes: p)
        with Store(tmp_path / name) as store:
            summaries.append(UpstreamImporter(store).import_paths(files))
    assert [(s.imported, s.files, len(s.refused)) for s in summaries] == [(60, 22, 2)] * 2
    assert summaries[0].runs == summaries[1].runs
    assert sum(summaries[1].runs.values()) == 60  # the refused file's items are not counted
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


def test_a_reading_process_that_dies_stops_the_import_with_its_file_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _folder(tmp_path)
    real_open = upstream_read.open_upstream_file

    def dies_on_the_fourth(path: Path, known: frozenset[str]):  # (runs in the forked reader)
        if path == files[3]:
            os._exit(3)
        return real_open(path, known)

    monkeypatch.setattr(upstream_read, "open_upstream_file", dies_on_the_fourth)
    monkeypatch.setattr(upstream_read, "_worth_processes", lambda _files: True)
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(RuntimeError, match="stopped .exit code 3. while") as info:
            UpstreamImporter(store).import_paths(files)
        # The file it was reading, or the one before it from the same process (what it had
        # made of that file may have died with it); every file before that one is imported.
        awaited = next(k for k in (1, 3) if str(files[k]) in str(info.value))
        assert len(store.sessions()) == 3 * awaited


def test_a_reader_that_fails_says_where_and_what(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _folder(tmp_path)
    real_open = upstream_read.open_upstream_file

    def fails_on_the_third(path: Path, known: frozenset[str]):  # (runs in the forked reader)
        if path == files[2]:
            raise KeyError("a reader bug")
        return real_open(path, known)

    monkeypatch.setattr(upstream_read, "open_upstream_file", fails_on_the_third)
    monkeypatch.setattr(upstream_read, "_worth_processes", lambda _files: True)
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(upstream_read.ReaderStopped, match="a reader bug") as info:
            UpstreamImporter(store).import_paths(files)
        assert str(files[2]) in str(info.value) and "KeyError" in str(info.value)
        assert len(store.sessions()) == 6  # the two files before it


def test_a_reimport_reads_no_item_already_in_and_another_source_reads_them_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [f for f in _folder(tmp_path) if "broken" not in f.name]
    items_read = []
    real_item = upstream_file._item

    def counted(*args: Any) -> UpstreamItem:
        items_read.append(args[1])
        return real_item(*args)

    monkeypatch.setattr(upstream_file, "_item", counted)
    with Store(tmp_path / "s.db") as store:
        assert UpstreamImporter(store).import_paths(files).imported == 60
        assert len(items_read) == 60
        again = UpstreamImporter(store).import_paths(files)
        assert (again.imported, again.skipped, len(items_read)) == (0, 60, 60)  # none read again
        elsewhere = UpstreamImporter(store, task_source="mine.jsonl").import_paths(files)
        assert (elsewhere.imported, elsewhere.skipped) == (60, 0)  # read whole after all
        sessions = store.sessions()
        by_source = {
            source: [
                [(e.kind, e.payload) for e in store.events(s.id)]
                for s in sessions
                if s.task_source == source
            ]
            for source in {s.task_source for s in sessions}
        }
        assert by_source["mine.jsonl"] == by_source["hf:b2b"] and len(by_source) == 2


# The importer as `crmarena-tui import` runs it, its folder read by the two worker processes
# (forced: the folder is small), each read slowed so the workers are alive and waiting on their
# full queues when the importer is killed.
_SLOW_IMPORT = """
import sys, time
from crmarena_tui.cli import main
from crmarena_tui.storage import upstream_read
upstream_read.PROCESS_BYTES = 1
upstream_read.CHUNK = 1
received = upstream_read._receive
def slow(*args):
    time.sleep(0.5)
    return received(*args)
upstream_read._receive = slow
sys.exit(main(["import", sys.argv[1], "--db", sys.argv[2]]))
"""


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # (a zombie has ended)


@pytest.mark.skipif(sys.platform != "linux", reason="reads the process tree from /proc")
def test_the_reading_processes_die_with_a_killed_importer(tmp_path: Path) -> None:
    results = write_many(tmp_path / "results", 120, steps=2)  # 20 files of 6 items
    importer = subprocess.Popen(
        [sys.executable, "-c", _SLOW_IMPORT, str(results), str(tmp_path / "s.db")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while len(readers := _children(importer.pid)) < 2:
            assert importer.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(1.0)  # the readers past their start, their queues filling
        assert all(_running(pid) for pid in readers)
        importer.kill()
        importer.wait()
        deadline = time.monotonic() + 5
        while any(_running(pid) for pid in readers) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [pid for pid in readers if _running(pid)]
    finally:
        if importer.poll() is None:
            importer.kill()
    for pid in left:  # (the old readers would run forever: end them, then fail)
        with suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"reading processes {left} outlived the killed importer"
