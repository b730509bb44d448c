"""`SessionHold`: one app process's hold on the attempt its participant works (issue 38), so that
no two processes work one session at once.

A participant's attempt resumes wherever they open the task again. Two processes on one sessions
database would then both write to the same session: a `serve` killed with `kill -9` and started
again, whose old connection process still runs (it ends within seconds of its server,
`commands/_parent_watch.py`, but may be stuck), or the same name opened in two terminals. So the
app takes the attempt's lease (`storage/leases.py`, the mechanism `run` and `mcp` share) before
it opens the session: a live lease of another process refuses the opening with one line naming
that process (`SessionHeld`), and the participant opens the task again once it has ended. A lease
of a process gone from this machine is taken over at once; one of another machine lapses
`lease_timeout` seconds after its last renewal. A daemon thread renews this process's lease every
third of that, for as long as the process lives; a participant works one task at a time, so
opening another releases the one before.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from crmarena_tui.errors import UserError
from crmarena_tui.storage.leases import DEFAULT_TIMEOUT, LeaseBook, attempt_key

if TYPE_CHECKING:
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.storage.models import SessionSpec
    from crmarena_tui.storage.store import Store


class SessionHeld(UserError, RuntimeError):
    """The attempt is worked by another live process; the message names it."""


class SessionHold:
    """The lease this process holds on the attempt its participant works (one at a time)."""

    def __init__(
        self,
        store: Store,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.book = LeaseBook(store, pool=f"play:{os.getpid()}", timeout=timeout, clock=clock)
        self.holder = f"play:{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.attempt: str | None = None
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def start(self, spec: SessionSpec, key: str, open_session: Callable[[], Episode]) -> Episode:
        """Take the lease of `spec`'s attempt (resume key `key`), then `open_session()` and
        record its session in the lease. Raises `SessionHeld` when another live process holds
        it (nothing is opened)."""
        attempt = attempt_key(spec.participant.id, spec.task.source, spec.task.idx, key)
        if self.attempt is not None and self.attempt != attempt:
            self.book.release(self.attempt, self.holder)
            self.attempt = None
        if not self.book.take(attempt, self.holder):
            raise SessionHeld(self._refusal(attempt))
        self.attempt = attempt
        try:
            episode = open_session()
        except BaseException:
            self.book.release(attempt, self.holder)
            self.attempt = None
            raise
        self.book.attach(attempt, self.holder, episode.session.id)
        self._beat_on()
        return episode

    def close(self, wait: float = 2.0) -> None:
        """Stop renewing (the app ends): the heartbeat releases the lease as it stops, within
        `wait` seconds (so an app opened next in this process finds the attempt free)."""
        self._stop.set()
        if self._beat is not None:
            self._beat.join(wait)

    def _refusal(self, attempt: str) -> str:
        held = self.book.process_of(attempt)
        if held is None:  # released between the two reads: opening again takes it
            return "This task's session was just being opened elsewhere; open it again."
        host, pid, taken_at, session_id = held
        since = time.strftime("%H:%M:%S UTC", time.gmtime(taken_at))
        session = f"session #{session_id}" if session_id is not None else "session"
        where = f"pid {pid}" + ("" if host == self.book.host else f" on {host}")
        return (
            f"This task's {session} is open in another crmarena-tui process ({where}, since "
            f"{since}): close it there, or wait until that process ends (after a server restart "
            f"its old processes end within seconds), then open the task again."
        )

    def _beat_on(self) -> None:
        if self._beat is None:
            self._beat = threading.Thread(target=self._renew, name="session-hold", daemon=True)
            self._beat.start()

    def _renew(self) -> None:
        while not self._stop.wait(self.book.timeout / 3):
            attempt = self.attempt
            if attempt is not None:
                try:
                    self.book.renew(attempt, self.holder)
                except Exception:  # noqa: BLE001 - a busy or closed database: the next beat renews
                    continue
        attempt = self.attempt
        if attempt is not None:
            try:
                self.book.release(attempt, self.holder)
            except Exception:  # noqa: BLE001 - the store closed first: the lease lapses
                return
