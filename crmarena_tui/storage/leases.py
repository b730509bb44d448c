"""`LeaseBook`: who works which attempt, decided in the sessions database (schema 16, the
`leases` table), so that N MCP clients on one server, N servers on one database and N `run`
workers (in one process or several) each work a different attempt.

A holder (an MCP session, a stdio server, a `run` worker: any string unique to it) takes the
lease of an attempt (`attempt_key`: participant, task and resume key) atomically, in one
`BEGIN IMMEDIATE` transaction: it gets it when no one holds it, when it holds it already, or when
the holder's lease has lapsed (`timeout` seconds without a renewal: its client vanished). Every
call a holder makes renews its lease (`renew`); a holder whose lease lapsed and was taken by
another is told so (`renew` returns False) and must stop writing to that session. A finished
attempt's lease is released; what is finished is the session's status, not the lease.

A lease also records the machine and process of its holder: a holder whose process is gone from
this machine (a `run` or a stdio server killed) has its attempts taken over at once, without
waiting for the timeout.

A renewal is written at most once in a twentieth of the timeout per holder and attempt
(`RENEW_EVERY`): a lease this book renewed that recently cannot have lapsed or been taken, and a
busy client's every call would otherwise cost a write (an fsync under full durability) that the
queue's other clients wait behind.

`pool` groups the holders of one server or one run: `held_in(pool)` counts its live leases
(`mcp --workers N`). The clock is injectable: tests advance it instead of sleeping.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

DEFAULT_TIMEOUT = 120.0  # seconds a lease lasts without a renewal (the `lease_timeout` setting)
RENEW_EVERY = 1 / 20  # the share of the timeout within which a renewal is not written again


def attempt_key(participant_id: int, source: str, idx: int, resume_key: str) -> str:
    """The attempt a lease is for: the participant's attempt at one task with one resume key
    (settings, org kind, simulated user, trial: `SessionService.resume_key`)."""
    return f"{participant_id}|{source}|{idx}|{resume_key}"


class LeaseBook:
    """The leases in `store`'s database, as seen by holders of `pool`."""

    def __init__(
        self,
        store: Store,
        *,
        pool: str = "",
        timeout: float = DEFAULT_TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.pool = pool
        self.timeout = timeout
        self.clock = clock
        self.host = socket.gethostname()
        self.pid = os.getpid()
        # when this book last wrote each (attempt, holder)'s lease, and each holder's heartbeat
        self._renewed: dict[tuple[str, str], float] = {}
        self._beats: dict[str, float] = {}

    def _fresh(self, when: float | None, now: float) -> bool:
        return when is not None and 0 <= now - when < self.timeout * RENEW_EVERY

    def _holder_fresh(self, holder: str, now: float) -> bool:
        """Every lease this book wrote for `holder` was written within `RENEW_EVERY`."""
        if self._fresh(self._beats.get(holder), now):
            return True
        mine = [when for (_, h), when in self._renewed.items() if h == holder]
        return bool(mine) and all(self._fresh(when, now) for when in mine)

    def gone(self, host: str, pid: int) -> bool:
        """Whether the process `pid` of machine `host` has ended (known only on this machine)."""
        if host != self.host or pid <= 0 or pid == self.pid or os.name != "posix":
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # it exists but is another user's
            return False
        try:  # killed but not yet reaped by its parent (a zombie) is gone too
            with open(f"/proc/{pid}/stat", "rb") as fh:
                return fh.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
        except (OSError, IndexError):
            return False

    def take(self, attempt: str, holder: str) -> bool:
        """Lease `attempt` to `holder` unless another holder's lease on it is live; True when
        `holder` holds it now (a lapsed lease is taken over: its session resumes)."""
        now = self.clock()
        with self.store.db.write() as db:
            row = db.execute(
                "SELECT holder, expires_at, host, pid FROM leases WHERE attempt = ?", (attempt,)
            ).fetchone()
            if (
                row is not None
                and row[0] != holder
                and row[1] > now
                and not self.gone(row[2], row[3])
            ):
                return False
            db.execute(
                "INSERT INTO leases (attempt, holder, pool, host, pid, session_id, taken_at,"
                " expires_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?) ON CONFLICT (attempt) DO UPDATE"
                " SET holder = excluded.holder, pool = excluded.pool, host = excluded.host,"
                " pid = excluded.pid, taken_at = excluded.taken_at,"
                " expires_at = excluded.expires_at,"
                " session_id = CASE WHEN leases.holder = excluded.holder"
                " THEN leases.session_id ELSE NULL END",
                (attempt, holder, self.pool, self.host, self.pid, now, now + self.timeout),
            )
        self._renewed[(attempt, holder)] = now
        return True

    def attach(self, attempt: str, holder: str, session_id: int) -> None:
        """Record the session `holder` works `attempt` in (`session_for` finds it)."""
        with self.store.db.write() as db:
            db.execute(
                "UPDATE leases SET session_id = ? WHERE attempt = ? AND holder = ?",
                (session_id, attempt, holder),
            )

    def renew(self, attempt: str, holder: str) -> bool:
        """Extend `holder`'s lease on `attempt` (a heartbeat); False when it holds it no more
        (it lapsed and another holder took it, or it was released)."""
        now = self.clock()
        if self._fresh(self._renewed.get((attempt, holder)), now):
            return True
        with self.store.db.write() as db:
            row = db.execute("SELECT holder FROM leases WHERE attempt = ?", (attempt,)).fetchone()
            if row is None or row[0] != holder:
                self._renewed.pop((attempt, holder), None)
                return False
            db.execute(
                "UPDATE leases SET expires_at = ? WHERE attempt = ?", (now + self.timeout, attempt)
            )
        self._renewed[(attempt, holder)] = now
        return True

    def renew_holders(self, holders: list[str]) -> None:
        """Renew every lease of `holders` (a process's heartbeat for its live workers)."""
        now = self.clock()
        holders = [h for h in holders if not self._holder_fresh(h, now)]
        if not holders:
            return
        marks = ", ".join("?" for _ in holders)
        with self.store.db.write() as db:
            db.execute(
                f"UPDATE leases SET expires_at = ? WHERE holder IN ({marks})",
                (now + self.timeout, *holders),
            )
        self._beats.update(dict.fromkeys(holders, now))

    def release(self, attempt: str, holder: str) -> None:
        """`holder` is done with `attempt` (finished, or given up): anyone may take it."""
        self._renewed.pop((attempt, holder), None)
        with self.store.db.write() as db:
            db.execute("DELETE FROM leases WHERE attempt = ? AND holder = ?", (attempt, holder))

    def process_of(self, attempt: str) -> tuple[str, int, float, int | None] | None:
        """Where the live lease on `attempt` is held: (machine, process id, when it was taken,
        its session or None), or None (to name the process in a refusal)."""
        rows = self.store.db.tuples(
            "SELECT host, pid, taken_at, session_id FROM leases"
            " WHERE attempt = ? AND expires_at > ?",
            (attempt, self.clock()),
        )
        return (str(rows[0][0]), int(rows[0][1]), float(rows[0][2]), rows[0][3]) if rows else None

    def held_in(self, pool: str | None = None) -> int:
        """How many live leases the holders of `pool` (default: this book's) hold on attempts
        still in progress (a finished task's lease counts no more, though not yet released)."""
        rows = self.store.db.tuples(
            "SELECT COUNT(*) FROM leases l LEFT JOIN sessions s ON s.id = l.session_id"
            " WHERE l.pool = ? AND l.expires_at > ?"
            " AND (l.session_id IS NULL OR s.status = 'in_progress')",
            (self.pool if pool is None else pool, self.clock()),
        )
        return int(rows[0][0])

    def session_for(self, holder: str) -> int | None:
        """The session `holder` is working under a live lease, or None (for the model proxy:
        which session a lease holder's model calls belong to)."""
        rows = self.store.db.tuples(
            "SELECT session_id FROM leases WHERE holder = ? AND expires_at > ?"
            " AND session_id IS NOT NULL ORDER BY taken_at DESC LIMIT 1",
            (holder, self.clock()),
        )
        return int(rows[0][0]) if rows else None

    def holder_for(self, session_id: int) -> str | None:
        """The holder working session `session_id` under a live lease, or None (a model proxy
        keyed by session checks that the session is being worked, and by whom)."""
        rows = self.store.db.tuples(
            "SELECT holder FROM leases WHERE session_id = ? AND expires_at > ?",
            (session_id, self.clock()),
        )
        return str(rows[0][0]) if rows else None


def record_client(store: Store, session_id: int, client: dict[str, Any]) -> None:
    """Record in session `session_id`'s settings who works it (`mcp_client`: the MCP client's
    handshake name and version, `--as`), kept from its first holder. Not part of its resume key
    (that is stored apart), so a session resumes whichever client takes it over."""
    with store.db.write() as db:
        db.execute(
            "UPDATE sessions SET settings = json_set(settings, '$.mcp_client', json(?))"
            " WHERE id = ? AND json_extract(settings, '$.mcp_client') IS NULL",
            (json.dumps(client), session_id),
        )
