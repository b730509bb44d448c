"""`ScanClaims`: which run of a scan reads which session now, so that two runs of one scan at
once (two `scan` commands with the same name and settings) never read a session twice, and each
can say what the other is doing (issue 41).

A run claims the sessions it is about to read, a few at a time, as leases in the `leases` table
(schema 16, storage/leases.py: one row per claimed session, keyed `scan:SCAN:SESSION`, in the
pool `scan:SCAN`, with the run's machine and process). In one `BEGIN IMMEDIATE` transaction a
claim skips the sessions the scan has read (`ok`: another run read them meanwhile) and those
another live run holds, and takes the rest. A claim lapses after `TIMEOUT` seconds, and at once
when its process is gone from this machine (a killed run's sessions are read by the next run);
a run releases its claims when it ends. No new table: the leases table already says who works
what, and until when.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crmarena_tui.storage.leases import LeaseBook

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

TIMEOUT = 3600.0  # seconds a claim lasts (a reading, with its retries, takes far less)


@dataclass
class Claimed:
    """What one `claim` found among the sessions it looked at (`examined` of them, in order):
    `mine` claimed for this run, `read` read already (by another run), `others` held by another
    live run (session -> who: `pid N`, or `pid N on HOST`)."""

    mine: list[int] = field(default_factory=list)
    read: list[int] = field(default_factory=list)
    others: dict[int, str] = field(default_factory=dict)
    examined: int = 0


class ScanClaims:
    """The claims of one run of scan `scan_id` (a holder of its own), and what others hold."""

    def __init__(self, store: Store, scan_id: int, *, timeout: float = TIMEOUT) -> None:
        self.store = store
        self.scan_id = scan_id
        self.book = LeaseBook(store, pool=f"scan:{scan_id}", timeout=timeout)
        self.holder = f"scan-run:{self.book.host}:{self.book.pid}:{uuid.uuid4().hex[:12]}"

    def _key(self, session_id: int) -> str:
        return f"scan:{self.scan_id}:{session_id}"

    def _who(self, host: str, pid: int) -> str:
        return f"pid {pid}" if host == self.book.host else f"pid {pid} on {host}"

    def claim(self, sessions: Sequence[int], want: int, start: int = 0) -> Claimed:
        """Claim up to `want` of `sessions[start:]`, in order (module docstring); stops after
        the session that makes `want`."""
        found = Claimed()
        now = self.book.clock()
        at = start
        with self.store.db.write() as db:
            while len(found.mine) < want and at < len(sessions):
                window = list(sessions[at : at + 2 * want])
                marks = ",".join("?" * len(window))
                read = {
                    int(r[0])
                    for r in db.execute(
                        "SELECT session_id FROM scan_readings WHERE scan_id = ? AND status = 'ok'"
                        f" AND session_id IN ({marks})",
                        (self.scan_id, *window),
                    )
                }
                held = {
                    str(r[0]): (str(r[1]), float(r[2]), str(r[3]), int(r[4]))
                    for r in db.execute(
                        "SELECT attempt, holder, expires_at, host, pid FROM leases"
                        f" WHERE attempt IN ({marks})",
                        [self._key(s) for s in window],
                    )
                }
                for session_id in window:
                    at += 1
                    lease = held.get(self._key(session_id))
                    if session_id in read:
                        found.read.append(session_id)
                    elif (
                        lease is not None
                        and lease[0] != self.holder
                        and lease[1] > now
                        and not self.book.gone(lease[2], lease[3])
                    ):
                        found.others[session_id] = self._who(lease[2], lease[3])
                    else:
                        found.mine.append(session_id)
                        if len(found.mine) >= want:
                            break
            db.executemany(
                "INSERT INTO leases (attempt, holder, pool, host, pid, session_id, taken_at,"
                " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (attempt) DO UPDATE"
                " SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,"
                " session_id = excluded.session_id, taken_at = excluded.taken_at,"
                " expires_at = excluded.expires_at",
                [
                    (self._key(s), self.holder, self.book.pool, self.book.host, self.book.pid,
                     s, now, now + self.book.timeout)
                    for s in found.mine
                ],
            )  # fmt: skip
        found.examined = at - start
        return found

    def held_by_others(self) -> dict[int, str]:
        """The sessions another live run of the scan holds now: session -> who (changes
        nothing: what a scan's plan says before it starts)."""
        rows = self.store.db.tuples(
            "SELECT session_id, holder, host, pid FROM leases WHERE pool = ? AND expires_at > ?",
            (self.book.pool, self.book.clock()),
        )
        return {
            int(s): self._who(str(host), int(pid))
            for s, holder, host, pid in rows
            if s is not None and holder != self.holder and not self.book.gone(host, pid)
        }

    def release(self) -> None:
        """This run is done: its claims end (what it did not read, anyone may read)."""
        with self.store.db.write() as db:
            db.execute("DELETE FROM leases WHERE holder = ?", (self.holder,))
