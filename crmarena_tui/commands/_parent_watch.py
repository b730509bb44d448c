"""A `play` process started by `serve` ends when the server does (issue 38).

`serve` names itself in `CRMARENA_TUI_SERVE_PID` (`_serve_guard.with_serve_pid`). Should the
server be killed (`kill -9` included), the connection's process must not stay behind holding its
participant's session open while a restarted server resumes it in another process. So `watch`
asks Linux to send this process `SIGTERM` when its parent dies (`prctl(PR_SET_PDEATHSIG)`, when
the server is the parent), and a daemon thread checks every `POLL_SECONDS` that the server is
still alive: once it is gone (a zombie too: a server killed whose parent has not reaped it yet),
the process is sent `SIGTERM` and, if still running `GRACE_SECONDS` later, ends at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

SERVE_PID_ENV = "CRMARENA_TUI_SERVE_PID"
POLL_SECONDS = 0.5
GRACE_SECONDS = 3.0
PR_SET_PDEATHSIG = 1


def alive(pid: int) -> bool:
    """Whether process `pid` runs: a zombie (killed, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not zombie(pid)


def zombie(pid: int) -> bool:
    """Whether process `pid` has ended and waits to be reaped (Linux's /proc; False elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in (b"Z", b"X")


def watch(environ: dict[str, str] | None = None) -> threading.Thread | None:
    """Start watching the server named in the environment (None: not started by `serve`)."""
    value = (environ if environ is not None else os.environ).get(SERVE_PID_ENV, "")
    if not value.isdigit():
        return None
    server = int(value)
    if sys.platform.startswith("linux") and os.getppid() == server:
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    thread = threading.Thread(target=_wait_for, args=(server,), name="serve-watch", daemon=True)
    thread.start()
    return thread


def _wait_for(server: int) -> None:
    parent = os.getppid()
    while alive(server) and os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE_SECONDS)
    os._exit(1)
