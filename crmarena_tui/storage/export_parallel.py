"""A large export in two processes (issue 30: 100,000 sessions on a 2-core machine): the
sessions are split at the middle id; a forked child writes the second half to a part file of
its own (its own connection to the database), the parent the first half, and then the child's
part after it: JSON Lines and CSV append its bytes (text lines in session order: byte for byte
the file one process writes); Parquet's child writes Arrow record batches (an IPC stream), which
the parent's `ParquetWriter` writes after its own (the same table). The child tells the parent the
sessions it has read through a pipe (the progress bar counts both halves) and, at the end, its
row count or its error, which the parent raises as its own.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.errors import StorageError

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

PARALLEL_FROM = 20_000  # sessions: below this, a second process costs more than it saves
Rows = Callable[..., Iterator[dict[str, Any]]]
Writer = Callable[..., int]


def middle_id(store: Store) -> int | None:
    """The id the second half starts after, or None when one process should do it all (a small
    database, one core, no `fork`)."""
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        return None
    total = store.read("SELECT COUNT(*) FROM sessions")[0][0]
    if total < max(PARALLEL_FROM, 2):
        return None
    found = store.read("SELECT id FROM sessions ORDER BY id LIMIT 1 OFFSET ?", (total // 2 - 1,))
    return int(found[0][0])


def export_in_two(
    store: Store,
    rows: Rows,
    writer: Writer,
    out: Path,
    split: int,
    progress: Callable[[int], None] | None,
    *,
    part_writer: Writer | None = None,
    **options: Any,
) -> int:
    """Write `rows(store, ..., through=split)` to `out` here and `rows(..., after=split)` in a
    forked child, then the child's part after it: its bytes appended (text), or, given a
    `part_writer` for the child, taken in by `writer` itself before it closes the file (called
    with `then`, which waits for the child and gives its part). The row count of both."""
    part = out.with_name(out.name + ".2")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(store.path, rows, part_writer or writer, part, split, write_end, options)
    os.close(write_end)
    fcntl.fcntl(read_end, fcntl.F_SETFL, os.O_NONBLOCK)
    pipe = _Pipe(read_end)

    def told(done: int) -> None:
        pipe.poll()
        if progress is not None:
            progress(done + pipe.read)

    def finish() -> Path:
        """Wait for the child (the progress counting on); its part, or its error raised."""
        nonlocal pid
        mine = store.read("SELECT COUNT(*) FROM sessions WHERE id <= ?", (split,))[0][0]
        fcntl.fcntl(read_end, fcntl.F_SETFL, 0)  # now wait for the child's lines
        while pipe.poll(block=True):
            if progress is not None:
                progress(mine + pipe.read)
        _, status = os.waitpid(pid, 0)
        pid = 0
        if pipe.error or os.waitstatus_to_exitcode(status) != 0 or pipe.count is None:
            raise StorageError(pipe.error or "the export's second process stopped")
        return part

    try:
        first = rows(store, through=split, progress=told, **options)
        if part_writer is not None:
            count = writer(first, out, then=finish)
        else:
            count = writer(first, out)
            with out.open("ab") as whole, finish().open("rb") as second:
                shutil.copyfileobj(second, whole, 1 << 20)
        return count + (pipe.count or 0)
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(read_end)
        part.unlink(missing_ok=True)


class _Pipe:
    """The child's lines: `read N` (sessions read so far), then `count N` or `error TEXT`."""

    def __init__(self, fd: int) -> None:
        self.fd, self.rest = fd, b""
        self.read, self.error = 0, ""
        self.count: int | None = None

    def poll(self, *, block: bool = False) -> bool:
        """Take in what the child wrote; False at its end (only when blocking)."""
        try:
            chunk = os.read(self.fd, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        *lines, self.rest = (self.rest + chunk).split(b"\n")
        for line in lines:
            word, _, value = line.decode("utf-8", "replace").partition(" ")
            if word == "read":
                self.read = int(value)
            elif word == "count":
                self.count = int(value)
            elif word == "error":
                self.error = value
        return True


def _child(
    path: Path, rows: Rows, writer: Writer, part: Path, split: int, fd: int, options: Any
) -> None:
    """Write the second half to `part` with a connection of its own, tell the parent, and exit
    (`os._exit`: none of the parent's state is torn down, its connection least of all)."""
    from crmarena_tui.storage.store import Store

    code = 0
    try:

        def told(done: int) -> None:
            os.write(fd, b"read %d\n" % done)

        with Store(path) as own:
            count = writer(rows(own, after=split, progress=told, **options), part, header=False)
        os.write(fd, b"count %d\n" % count)
    except BaseException as exc:  # noqa: BLE001 - any failure goes to the parent, as text
        text = " ".join(str(exc).split()) or type(exc).__name__
        os.write(fd, f"error {text}\n".encode())
        code = 1
    os._exit(code)
