"""Helpers for the tests of what `serve` lets in and what it leaves behind (issue 38): a
`serve` process on a free loopback port, and the processes it started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.commands.test_serve import ROOT, _free_port, _get


@dataclass
class Server:
    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path


@contextlib.contextmanager
def serving(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """`crmarena-tui serve ARGS` on a free loopback port; killed with everything it started."""
    port = _free_port()
    environ = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        **(env or {}),
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "crmarena_tui", "serve", "--port", str(port), *args],
            cwd=tmp_path,
            env=environ,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    started: set[int] = set()
    try:
        url = f"http://127.0.0.1:{port}"
        try:
            _get(url + "/", time.monotonic() + 20)
        except OSError:
            proc.kill()
            pytest.fail(f"serve did not answer within 20 s: {log.read_text()[-2000:]}")
        yield Server(url, port, proc, log)
    finally:
        started |= descendants(proc.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in started:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, None when gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[1]), fields[0]


def descendants(pid: int) -> set[int]:
    """Every living process below `pid`."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            parents.setdefault(stat[0], []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return {p for p in found if running(p)}


def running(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[1] not in ("Z", "X")


def wait_until_gone(pids: set[int], seconds: float) -> set[int]:
    """Poll until none of `pids` runs, or `seconds` pass; those still running."""
    deadline = time.monotonic() + seconds
    while (alive := {p for p in pids if running(p)}) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive
