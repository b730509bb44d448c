"""The threads model calls run in (`LLMClient._within_deadline`), reused from call to call.

A call runs in a thread of its own so that its caller can give it up at the call's deadline (a
reply dripped a byte at a time); the abandoned call ends on its own. Starting a thread for each
call cost a scan about as much CPU as reading the session's events (issue 41), so a thread that
finished its call waits (`IDLE_SECONDS`) for the next one instead of ending: at most `KEEP` wait.
A call that finds none waiting starts a new thread, so an abandoned call never holds up another.

A thread is named `llm-call` while it runs a call and `llm-call-idle` while it waits.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

KEEP = 16  # idle threads kept at most
IDLE_SECONDS = 30.0  # an idle thread ends after this long without a call
BUSY, IDLE = "llm-call", "llm-call-idle"

_lock = threading.Lock()
_idle: list[_Worker] = []


class _Worker:
    """One reusable thread: runs the calls put on its queue, one at a time."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name=BUSY, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            try:
                job = self.jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with _lock:
                    if self in _idle:  # (else a caller just took it: its job is coming)
                        _idle.remove(self)
                        return
                continue
            self.thread.name = BUSY
            job()
            self.thread.name = IDLE
            with _lock:
                if len(_idle) >= KEEP:
                    return
                _idle.append(self)


def start(job: Callable[[], None]) -> None:
    """Run `job` in a waiting call thread, or in a new one when none waits."""
    with _lock:
        worker = _idle.pop() if _idle else None
    if worker is None:
        worker = _Worker()
    worker.jobs.put(job)
