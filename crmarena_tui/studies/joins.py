"""Joining a study with a code, safe on a host anyone can reach (`serve --study`, issues 28, 38).

The join screen is open to whoever reaches the server, so a refusal says nothing about the
participants: an unknown name and a wrong code get the same message (`REFUSED`). After
`JoinRules.attempts` wrong codes in a row (default 5) for a name *from one source* (the
browser's address that `serve --study` names each connection by: `source_of`), tries for that
name from that source are refused unread for `JoinRules.lockout_seconds` (default 15 minutes).
The lock is the source's, not the name's: someone who knows a participant's name cannot lock
them out from another address (issue 38); the participant, from their own browser, still joins.
A successful join starts the count again. Every try is logged in `study_join_attempts` (schema
version 8) with its time and connection; the lock is read from that log inside the write
transaction that adds the try, so it holds across connections and processes (each connection
of `serve --study` is its own `play` process), and concurrent guesses cannot slip past it.

The slowing down per connection (a growing delay after each refusal) is the join screen's.
"""

from __future__ import annotations

import hmac
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.convert import iso
from crmarena_tui.studies.model import Study, StudyError

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

REFUSED = "that name and join code do not match"
CONNECTION_ENV = "CRMARENA_TUI_CONNECTION"  # set by `serve --study` for each connection
FAILED = ("wrong_code", "unknown_name")


class JoinLocked(StudyError):
    """The name had too many wrong codes from this source: locked there for a while (any name
    alike)."""


@dataclass(frozen=True)
class JoinRules:
    attempts: int = 5  # wrong codes in a row that lock a name
    lockout_seconds: float = 15 * 60.0

    @classmethod
    def configured(cls) -> JoinRules:
        """From the `join_attempts` and `join_lockout_minutes` settings, read without loading
        the settings, as `load_settings` reads them (a value that is not valid keeps the
        default)."""
        from crmarena_tui.settings.config_file import quick_setting

        minutes = float(quick_setting("join_lockout_minutes"))
        return cls(int(quick_setting("join_attempts")), minutes * 60.0)


def first_refusal_delay(default: float) -> float:
    """Seconds before a connection's first refusal shows (the join screen doubles it for each
    next one): the `join_delay_seconds` setting, else `default`."""
    from crmarena_tui.settings.config_file import quick_setting

    return float(quick_setting("join_delay_seconds", default))


@dataclass(frozen=True)
class JoinAttempt:
    """One row of the log of a study's join screen."""

    participant: str  # the name as typed
    at: float  # unix seconds
    connection: str
    outcome: str  # joined | wrong_code | unknown_name | locked


def this_connection() -> str:
    """How this process's connection is named in the log: what `serve --study` passed (the
    browser's address and the connection's number), else this process's id."""
    return os.environ.get(CONNECTION_ENV) or f"pid {os.getpid()}"


def source_of(connection: str) -> str:
    """Where a connection comes from: its name without the connection's number (`serve --study`
    names a connection `ADDRESS #N`); another name (`pid N`, a local `play`) is its own source."""
    head, sep, number = connection.rpartition(" #")
    return head if sep and number.isdigit() else connection


def joined_connections(store: Store, study: Study, names: Sequence[str]) -> set[str]:
    """Which of the connections `names` have joined `study` (`serve --study` asks)."""
    if not names:
        return set()
    marks = ", ".join("?" * len(names))
    rows = store.read(
        "SELECT DISTINCT connection FROM study_join_attempts WHERE study_id = ?"
        f" AND outcome = 'joined' AND connection IN ({marks})",
        (study.id, *names),
    )
    return {str(r[0]) for r in rows}


def locked_until(tries: Iterable[tuple[float, str]], rules: JoinRules) -> float:
    """When a name's lock ends (0: never locked) from its tries, (time, outcome) in order: each
    `rules.attempts`-th wrong code in a row locks it for `rules.lockout_seconds` from that try;
    tries while locked do not count, and a join starts the count again."""
    wrong, until = 0, 0.0
    for at, outcome in tries:
        if outcome == "joined":
            wrong = 0
        elif outcome in FAILED and at >= until:
            wrong += 1
            if wrong >= rules.attempts:
                wrong, until = 0, at + rules.lockout_seconds
    return until


def check_code(
    store: Store,
    study: Study,
    participant: str,
    code: str,
    *,
    connection: str | None = None,
    rules: JoinRules | None = None,
) -> None:
    """Returns when `code` is `participant`'s join code in `study` (any case, spaces ignored);
    else raises `StudyError` with `REFUSED` (unknown name or wrong code alike), or `JoinLocked`.
    The try is logged either way."""
    rules = rules or JoinRules.configured()
    connection = connection or this_connection()
    given = code.strip().replace(" ", "").upper()
    with store.transaction() as conn:
        now = store.clock()  # (once the write lock is held: the log is in time order)
        tries = conn.execute(
            "SELECT at, outcome, connection FROM study_join_attempts"
            " WHERE study_id = ? AND participant = ? ORDER BY id",
            (study.id, participant),
        ).fetchall()
        source = source_of(connection)
        mine = ((_seconds(at), str(o)) for at, o, c in tries if source_of(str(c)) == source)
        until = locked_until(mine, rules)
        if now < until:
            outcome = "locked"
        else:
            row = conn.execute(
                "SELECT join_code FROM study_participants WHERE study_id = ? AND name = ?",
                (study.id, participant),
            ).fetchone()
            expected = str(row[0]).upper() if row else ""
            if row is None:
                outcome = "unknown_name"
            elif hmac.compare_digest(given.encode(), expected.encode()):
                outcome = "joined"
            else:
                outcome = "wrong_code"
        conn.execute(
            "INSERT INTO study_join_attempts (study_id, participant, at, connection, outcome)"
            " VALUES (?, ?, ?, ?, ?)",
            (study.id, participant, iso(now), connection, outcome),  # ISO text, as every time
        )
    if outcome == "locked":
        minutes = max(1, math.ceil((until - now) / 60))
        raise JoinLocked(
            f"too many wrong join codes for this name: try again in {minutes} min,"
            " or ask the researcher"
        )
    if outcome != "joined":
        raise StudyError(REFUSED)


def join_log(store: Store, study: Study, *, failed_only: bool = False) -> list[JoinAttempt]:
    """The study's join tries in order (only the refused ones with `failed_only`)."""
    sql = "SELECT participant, at, connection, outcome FROM study_join_attempts WHERE study_id = ?"
    params: Sequence[Any] = (study.id,)
    if failed_only:
        sql += " AND outcome != 'joined'"
    rows = store.read(sql + " ORDER BY id", tuple(params))
    return [JoinAttempt(str(r[0]), _seconds(r[1]), str(r[2]), str(r[3])) for r in rows]


def _seconds(value: Any) -> float:
    """A logged try's time as Unix seconds (stored as ISO-8601 UTC text)."""
    if isinstance(value, int | float):
        return float(value)
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def locked_names(tries: Sequence[JoinAttempt], rules: JoinRules, now: float) -> dict[str, float]:
    """`name from source` -> when its lock ends, for every name locked for a source at `now`
    (tries in log order)."""
    by_name: dict[str, list[tuple[float, str]]] = {}
    for t in tries:
        key = f"{t.participant} from {source_of(t.connection)}"
        by_name.setdefault(key, []).append((t.at, t.outcome))
    ends = {name: locked_until(seen, rules) for name, seen in by_name.items()}
    return {name: end for name, end in ends.items() if end > now}


def refusals_line(store: Store, study: Study, rules: JoinRules | None = None) -> str | None:
    """`study status`'s line on the join screen's refusals (None: there were none)."""
    tries = join_log(store, study)
    refused = [t for t in tries if t.outcome != "joined"]
    if not refused:
        return None
    count = {o: sum(t.outcome == o for t in refused) for o in (*FAILED, "locked")}
    line = (
        f"Refused joins: {len(refused)} ({count['wrong_code']} wrong code,"
        f" {count['unknown_name']} unknown name, {count['locked']} while locked;"
        f" the last from {refused[-1].connection})"
    )
    locked = locked_names(tries, rules or JoinRules.configured(), store.clock())
    if locked:
        line += "; locked now: " + ", ".join(sorted(locked))
    return line
