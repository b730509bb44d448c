"""Reading a folder of upstream result files for an import, ahead of the writer.

The importer writes while the files are read. Reading a file (`upstream_file`) gives the file
(its run, mode and privacy rules), then its items in chunks, each item validated, keyed and its
rows made and encoded as the database stores them (`upstream_rows.py`), so the writer only adds
ids and binds. Items whose import keys are already in the database are not read further.
A file that turns out malformed part-way raises `UpstreamFormatError` from its chunks; the
importer then rolls back what it wrote of that file (a file is imported whole or not at all).

Where reading happens depends on the work:

- a large import (several files, megabytes of JSON) on Linux, from a process running no other
  thread (the `import` command), is read by two worker processes forked from this one, each
  taking every other file and sending its items back in chunks as they are made: parsing runs on
  the other core while SQLite writes on this one (a thread would share this process's
  interpreter lock with the writer), and the writer starts on the first chunk rather than the
  first whole file. Forked, a worker starts in milliseconds with every module already imported;
  a process running threads is never forked (a lock another thread held would stay held in the
  copy). Each worker's queue holds a few chunks at most, so memory holds a few chunks per worker,
  never the folder. A worker dies with the importer, however it ends (even `kill -9`): on Linux
  the kernel kills it when its parent dies (`PR_SET_PDEATHSIG`), and everywhere it watches a pipe
  whose only writer is the importer, and exits when the pipe closes;
- otherwise the files are read whole in one thread, a file ahead.

Either way the files come back in the order given.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import queue
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from crmarena_tui.storage.upstream_file import (
    UpstreamFile,
    UpstreamFormatError,
    UpstreamItem,
    open_upstream_file,
)
from crmarena_tui.storage.upstream_rows import file_source, file_stamp, item_rows

PROCESS_BYTES = 8_000_000  # at least this much JSON, in two files or more: worker processes
WORKERS = 2
CHUNK = 200  # items sent back at a time
QUEUED = 4  # chunks a worker may have waiting for the writer


class ReaderStopped(RuntimeError):
    """A reading process died (killed, out of memory) or failed on something other than a
    malformed file; the message names the file and says what was imported."""


Where = tuple[str | None, str | None]  # the import's org type and task source overrides


@dataclass(frozen=True, slots=True)
class _Job:
    known: frozenset[str]  # import keys already in the database: those items are not read
    where: Where


@dataclass(slots=True)
class FileRead:
    """A file as the importer receives it: the file (its items not included), or why it was
    refused; then its items, a chunk at a time (`UpstreamFormatError` from a malformed item)."""

    file: UpstreamFile | UpstreamFormatError
    chunks: Iterator[list[UpstreamItem]]


@dataclass(frozen=True, slots=True)
class _FileRows:
    """What every item of one file writes alike, found once per file (not once per item: the
    stamp is a `stat` and a date format): its (task source, org type) and its sessions' stamp."""

    parsed: UpstreamFile
    source: tuple[str, str]
    stamp: str

    @classmethod
    def of(cls, parsed: UpstreamFile, where: Where) -> _FileRows:
        return cls(parsed, file_source(parsed, *where), file_stamp(parsed))

    def prepare(self, item: UpstreamItem) -> UpstreamItem:
        """The item with every row it writes made (`upstream_rows.item_rows`), and what the
        rows hold let go: the writer reads only the rows, the import key, the prompt's flags and
        the infrastructure error (`UpstreamImporter.import_file`), and a worker pickles the item
        to it (the parsed fields, `agent_info` first, would double the pickling and unpickling).
        An item imported before (`known`) is left as it is."""
        if item.known is None:
            item.rows = item_rows(self.parsed, item, self.source, self.stamp)
            item.steps, item.gold, item.metrics, item.agent_info = [], [], {}, {}
            item.query = item.answer = ""
            item.parsed_answer, item.metadata = None, ("", "")
        return item


def read_in_order(
    files: Sequence[Path],
    known: frozenset[str] = frozenset(),
    where: Where = (None, None),
    *,
    processes: bool | None = None,
) -> Iterator[FileRead]:
    """The files read (see the module notes), in order, each item with its rows made for the
    import's `where` (org type and task source overrides); items whose import keys are `known`
    come unread (`upstream_file.known_item`). `processes` forces the choice between worker
    processes and a thread (None: by the rule above)."""
    if not files:
        return
    if processes is None:
        processes = _worth_processes(files)
    job = _Job(known, where)
    yield from (_in_processes(files, job) if processes else _in_thread(files, job))


def _worth_processes(files: Sequence[Path]) -> bool:
    return (
        sys.platform == "linux"
        and threading.active_count() == 1
        and (os.cpu_count() or 1) >= 2
        and len(files) >= 2
        and _size(files) >= PROCESS_BYTES
    )


def _size(files: Sequence[Path]) -> int:
    total = 0
    for path in files:
        with suppress(OSError):  # (reading it says what is wrong with it)
            total += path.stat().st_size
    return total


# ---------------------------------------------------------------- in a thread


def read_whole(path: Path, job: _Job) -> UpstreamFile | UpstreamFormatError:
    """A file read and every item's rows made, or what is wrong with it."""
    try:
        parsed, items = open_upstream_file(path, job.known)
        prepare = _FileRows.of(parsed, job.where).prepare
        parsed.items = [prepare(item) for item in items]
    except UpstreamFormatError as exc:
        return exc
    return parsed


def _in_thread(files: Sequence[Path], job: _Job) -> Iterator[FileRead]:
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-read") as pool:
        ahead: Future[UpstreamFile | UpstreamFormatError] = pool.submit(read_whole, files[0], job)
        for k in range(len(files)):
            parsed = ahead.result()
            if k + 1 < len(files):
                ahead = pool.submit(read_whole, files[k + 1], job)
            if isinstance(parsed, UpstreamFormatError):
                yield FileRead(parsed, iter(()))
            else:
                items, parsed.items = parsed.items, []
                yield FileRead(parsed, iter([items]))


# ---------------------------------------------------------------- in worker processes


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies


def _die_with_parent(parent: int, watched: int, writer: int) -> None:
    """In a worker, first thing: end this process when the importer (`parent`) ends, even by
    SIGKILL, which runs no clean-up of the importer's own. On Linux the kernel sends SIGKILL
    when the parent dies; anywhere, a daemon thread reads the pipe `watched`, whose write end
    only the importer keeps open (this copy of it, `writer`, is closed here), and sees it close
    when the importer ends. A parent that died before this ran is noticed by its pid."""
    if sys.platform == "linux":
        with suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.close(writer)
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        with suppress(OSError):
            while os.read(watched, 1):
                pass
        os._exit(1)

    threading.Thread(target=watch, name="import-read-watch", daemon=True).start()


def _work(
    paths: Sequence[Path], out: Any, job: _Job, lifeline: tuple[int, int, int] | None = None
) -> None:
    """A worker's loop: its files in order, each as ("file", file), ("items", chunk)..., then
    ("end", None) or ("refused", error); ("crash", text) if the reader itself failed.
    `lifeline`: (the importer's pid, the pipe's read and write ends), see `_die_with_parent`."""
    if lifeline is not None:
        _die_with_parent(*lifeline)
    for path in paths:
        try:
            parsed, items = open_upstream_file(path, job.known)
            out.put(("file", parsed))
            prepare = _FileRows.of(parsed, job.where).prepare
            while chunk := [prepare(item) for item in islice(items, CHUNK)]:
                out.put(("items", chunk))
            out.put(("end", None))
        except UpstreamFormatError as exc:
            out.put(("refused", exc))
        except BaseException:
            out.put(("crash", f"{path}: {traceback.format_exc()}"))
            return


def _in_processes(files: Sequence[Path], job: _Job) -> Iterator[FileRead]:
    context = multiprocessing.get_context("fork")
    shares = [list(files[w::WORKERS]) for w in range(WORKERS)]
    outs = [context.Queue(maxsize=QUEUED) for _ in shares]
    watched, writer = os.pipe()  # the workers' lifeline: it closes when this process ends
    lifeline = (os.getpid(), watched, writer)
    workers = [
        context.Process(
            target=_work, args=(share, out, job, lifeline), daemon=True, name="import-read"
        )
        for share, out in zip(shares, outs, strict=True)
    ]
    try:
        try:
            for worker in workers:
                worker.start()
        finally:
            os.close(watched)
        for k in range(len(files)):
            worker, out = workers[k % WORKERS], outs[k % WORKERS]
            kind, value = _receive(worker, out, files[k])
            if kind == "file":
                yield FileRead(value, _chunks(worker, out, files[k]))
            else:
                yield FileRead(value, iter(()))
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()  # (an import that stopped early: no one reads the rest)
            if worker.pid is not None:  # (one that never started has nothing to wait for)
                worker.join()
        os.close(writer)
        for out in outs:
            out.close()


def _chunks(worker: Any, out: Any, path: Path) -> Iterator[list[UpstreamItem]]:
    """The file's item chunks as its worker sends them, until its end or refusal. Always read to
    the end by the importer, so the next message on the queue is the next file's."""
    while True:
        kind, value = _receive(worker, out, path)
        if kind == "items":
            yield value
        elif kind == "refused":
            raise value
        else:
            return


def _receive(worker: Any, out: Any, path: Path) -> tuple[str, Any]:
    while True:
        try:
            kind, value = out.get(timeout=1)
        except queue.Empty:
            if not worker.is_alive():
                raise ReaderStopped(
                    f"a process reading the result files stopped (exit code {worker.exitcode})"
                    f" while {path} was awaited: the files before it were imported, nothing"
                    " of it or after it"
                ) from None
            continue
        if kind == "crash":
            raise ReaderStopped(f"reading failed (the files before it were imported): {value}")
        return kind, value
