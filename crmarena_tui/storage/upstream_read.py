"""Reading a folder of upstream result files for an import, ahead of the writer.

The importer writes one file while the next ones are read. A file is read by `read_for_import`:
parsed and validated (`upstream_file`), its import keys computed and every step's payload
encoded as the JSON text the events table stores, so the writer only binds rows. Where reading
happens depends on the work:

- a large import (several files, megabytes of JSON) on Linux, from a process running no other
  thread (the `import` command), is read in two worker processes forked from this one, two files
  ahead at most so memory holds a few files, never the folder: parsing runs on the other core
  while SQLite writes on this one, where a thread would share this process's interpreter lock
  with the writer. Forked, a worker starts in milliseconds with every module already imported
  (a fresh interpreter would spend a third of a second importing them); a process running
  threads is never forked (a lock another thread held would stay held in the copy);
- otherwise the files are read in one thread, a file ahead.

Either way the files come back in the order given, and a malformed file comes back as its
`UpstreamFormatError` (refused, the others still imported).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path

from crmarena_tui.storage.convert import scrubbed_json
from crmarena_tui.storage.upstream_file import UpstreamFile, UpstreamFormatError, read_upstream_file

PROCESS_BYTES = 8_000_000  # at least this much JSON, in two files or more: worker processes
AHEAD = 2  # files read ahead of the writer at most


def read_for_import(path: Path) -> UpstreamFile | UpstreamFormatError:
    """A file parsed, its steps' payloads encoded (`scrubbed_json`, the secrets dropped as every
    write does), or what is wrong with it."""
    try:
        parsed = read_upstream_file(path)
    except UpstreamFormatError as exc:
        return exc
    for item in parsed.items:
        item.encoded = [(s.actor, s.kind, scrubbed_json(s.payload)) for s in item.steps]
        item.steps = []  # (not carried back from a worker: the encoded rows say it all)
    return parsed


def read_in_order(
    files: Sequence[Path], *, processes: bool | None = None
) -> Iterator[UpstreamFile | UpstreamFormatError]:
    """The files read (see the module notes), in order, a few ahead of the caller. `processes`
    forces the choice between worker processes and a thread (None: by the rule above)."""
    if not files:
        return
    if processes is None:
        processes = _worth_processes(files)
    with _executor(processes, len(files)) as pool:
        ahead: deque[Future[UpstreamFile | UpstreamFormatError]] = deque()
        waiting = iter(files)
        for path in waiting:
            ahead.append(pool.submit(read_for_import, path))
            if len(ahead) >= AHEAD:
                break
        while ahead:
            done = ahead.popleft().result()
            following = next(waiting, None)
            if following is not None:
                ahead.append(pool.submit(read_for_import, following))
            yield done


def _worth_processes(files: Sequence[Path]) -> bool:
    return (
        sys.platform == "linux"
        and threading.active_count() == 1
        and (os.cpu_count() or 1) >= 2
        and len(files) >= 2
        and _size(files) >= PROCESS_BYTES
    )


def _executor(processes: bool, files: int) -> Executor:
    if not processes:
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-read")
    context = multiprocessing.get_context("fork")
    return ProcessPoolExecutor(max_workers=min(AHEAD, files), mp_context=context)


def _size(files: Sequence[Path]) -> int:
    total = 0
    for path in files:
        with suppress(OSError):  # (read_for_import says what is wrong with it)
            total += path.stat().st_size
    return total
