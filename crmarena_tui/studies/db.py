"""The studies' SQL over the sessions database (`storage.Store`): create, find, join, close, and
where each participant is in their queue. Thread-safe as the Store is: reads go through
`Store.read`, writes through one `Store.transaction()`.

A participant's task is `done` when they have a submitted attempt on it in the study,
`in_progress` when an attempt of theirs there is still open, else `left` (an abandoned attempt
leaves the task to do). Participants are matched to sessions by name (human participants).
"""

from __future__ import annotations

import secrets
import time
import uuid as uuidlib
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.convert import iso
from crmarena_tui.studies.model import SHOW_GRADE, Seat, Study, StudyError, TaskKey

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

STUDY_COLUMNS = (
    "id, name, tasks, org, per_task, seed, time_limit_minutes, show_grade, status, created_at, uuid"
)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud or copied by hand
CODE_LENGTH = 6
# A participant's own attempts in a study, by task: (task source, task idx, status).
_THEIR_SESSIONS = (
    "SELECT s.task_source, s.task_idx, s.status FROM sessions s"
    " JOIN participants p ON p.id = s.participant_id"
    " WHERE s.study_id = ? AND p.kind = 'human' AND p.name = ? AND s.kind = 'attempt'"
)


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _epoch(value: Any) -> float:
    """A study's creation time as Unix seconds: ISO text since schema 10, a number before."""
    if isinstance(value, int | float):
        return float(value)
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def _study(row: Sequence[Any]) -> Study:
    return Study(
        id=int(row[0]),
        name=row[1],
        tasks=row[2],
        org=row[3],
        per_task=int(row[4]),
        seed=int(row[5]),
        time_limit_minutes=None if row[6] is None else float(row[6]),
        show_grade=row[7],
        status=row[8],
        created_at=_epoch(row[9]),
        uuid=row[10],
    )


def list_studies(store: Store) -> list[Study]:
    return [_study(r) for r in store.read(f"SELECT {STUDY_COLUMNS} FROM studies ORDER BY id")]


def find_study(store: Store, name: str) -> Study | None:
    rows = store.read(f"SELECT {STUDY_COLUMNS} FROM studies WHERE name = ?", (name,))
    return _study(rows[0]) if rows else None


def check_terms(name: str, show_grade: str, time_limit_minutes: float | None) -> None:
    """Refuse (`StudyError`) a study's name, `--show-grade` or `--time-limit` it cannot take."""
    if not name.strip():
        raise StudyError("a study needs a name")
    if show_grade not in SHOW_GRADE:
        raise StudyError(f"--show-grade must be one of {', '.join(SHOW_GRADE)}, not {show_grade!r}")
    if time_limit_minutes is not None and time_limit_minutes <= 0:
        raise StudyError(f"--time-limit must be more than 0 minutes, not {time_limit_minutes:g}")


def get_study(store: Store, name: str) -> Study:
    found = find_study(store, name)
    if found is not None:
        return found
    known = [s.name for s in list_studies(store)]
    hint = f"known studies: {', '.join(known)}" if known else "this database has no study yet"
    raise StudyError(f"no study named {name!r} in {store.path} ({hint})")


def participants(store: Store, study: Study) -> list[tuple[str, str]]:
    """(name, join code) of every participant, in the order the study lists them."""
    rows = store.read(
        "SELECT name, join_code FROM study_participants WHERE study_id = ? ORDER BY position",
        (study.id,),
    )
    return [(r[0], r[1]) for r in rows]


def assignments(store: Store, study: Study) -> list[tuple[str, int, TaskKey, str]]:
    """(participant, position, task key, task type) of every assignment, queue by queue."""
    rows = store.read(
        "SELECT a.participant, a.position, a.task_source, a.task_idx, a.task_type"
        " FROM study_assignments a JOIN study_participants p"
        " ON p.study_id = a.study_id AND p.name = a.participant"
        " WHERE a.study_id = ? ORDER BY p.position, a.position",
        (study.id,),
    )
    return [(r[0], int(r[1]), (r[2], int(r[3])), r[4]) for r in rows]


def seat(store: Store, name: str, participant: str) -> Seat:
    study = get_study(store, name)
    rows = store.read(
        "SELECT join_code FROM study_participants WHERE study_id = ? AND name = ?",
        (study.id, participant),
    )
    if not rows:  # (no list of the participants: a name is not for anyone to find out)
        raise StudyError(f"{participant!r} is not a participant of study {name!r}")
    queue = store.read(
        "SELECT task_source, task_idx FROM study_assignments"
        " WHERE study_id = ? AND participant = ? ORDER BY position",
        (study.id, participant),
    )
    return Seat(study, participant, rows[0][0], tuple((r[0], int(r[1])) for r in queue))


def join(store: Store, name: str, participant: str, code: str) -> Seat:
    """The participant's seat if `code` is their join code (any case, spaces ignored) and the
    study is open."""
    found = seat(store, name, participant)
    if not found.study.is_open:
        raise StudyError(f"study {name!r} is closed: it takes no more work")
    if code.strip().replace(" ", "").upper() != found.join_code.upper():
        raise StudyError(f"wrong join code for {participant!r} in study {name!r}")
    return found


def queue_status(store: Store, seat: Seat) -> list[tuple[TaskKey, str]]:
    """Each task of the seat's queue, in order, with `done`, `in_progress` or `left`."""
    states: dict[TaskKey, set[str]] = {}
    for source, idx, status in store.read(_THEIR_SESSIONS, (seat.study.id, seat.participant)):
        states.setdefault((source, int(idx)), set()).add(status)

    def state(key: TaskKey) -> str:
        seen = states.get(key, set())
        if "submitted" in seen:
            return "done"
        return "in_progress" if "in_progress" in seen else "left"

    return [(key, state(key)) for key in seat.queue]


def next_task(store: Store, seat: Seat) -> TaskKey | None:
    """The task in progress first, else the first one left, else None (the queue is done)."""
    status = queue_status(store, seat)
    for wanted in ("in_progress", "left"):
        for key, state in status:
            if state == wanted:
                return key
    return None


def create_study(
    store: Store,
    name: str,
    *,
    tasks: str,
    org: str | None,
    per_task: int,
    seed: int,
    queues: Mapping[str, Sequence[TaskKey]],
    task_types: Mapping[TaskKey, str],
    time_limit_minutes: float | None = None,
    show_grade: str = "after-submit",
    codes: Mapping[str, str] | None = None,
    status: str = "open",
    created_at: float | None = None,
    uuid: str | None = None,
) -> Study:
    """Write a study with its participants (in `queues`' order), join codes (new ones unless
    given) and queues, in one transaction. A name already taken is refused."""
    check_terms(name, show_grade, time_limit_minutes)
    codes = codes or {}
    with store.transaction() as conn:
        if find_study(store, name) is not None:
            raise StudyError(
                f"a study named {name!r} already exists in {store.path}; pick another name"
            )
        cursor = conn.execute(
            "INSERT INTO studies (uuid, name, tasks, org, per_task, seed, time_limit_minutes,"
            " show_grade, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                uuid or uuidlib.uuid4().hex,
                name,
                tasks,
                org,
                per_task,
                seed,
                time_limit_minutes,
                show_grade,
                status,
                iso(time.time() if created_at is None else created_at),  # ISO text (schema 10)
            ),
        )
        study_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT INTO study_participants (study_id, name, join_code, position)"
            " VALUES (?, ?, ?, ?)",
            [
                (study_id, who, codes.get(who) or new_join_code(), position)
                for position, who in enumerate(queues)
            ],
        )
        conn.executemany(
            "INSERT INTO study_assignments (study_id, participant, position, task_source,"
            " task_idx, task_type) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (study_id, who, position, key[0], key[1], task_types.get(key, ""))
                for who, queue in queues.items()
                for position, key in enumerate(queue)
            ],
        )
    return get_study(store, name)


def close_study(store: Store, name: str) -> Study:
    """Close the study: nobody can join it any more (the sessions already stored stay)."""
    study = get_study(store, name)
    with store.transaction() as conn:
        conn.execute("UPDATE studies SET status = 'closed' WHERE id = ?", (study.id,))
    return get_study(store, name)
