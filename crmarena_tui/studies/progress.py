"""How far a study has got: per participant, tasks done, in progress and left, and active time.

Active time sums the participant's attempts in the study: a finished session's stored active
seconds, an open one's time so far recomputed from its log (`storage.replay.active_seconds`, up
to its last event, pauses excluded).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crmarena_tui.studies import db
from crmarena_tui.studies.model import Study

if TYPE_CHECKING:
    from crmarena_tui.storage import Store


@dataclass(frozen=True, slots=True)
class Progress:
    participant: str
    done: int
    in_progress: int
    left: int
    active_seconds: float

    @property
    def assigned(self) -> int:
        return self.done + self.in_progress + self.left

    def row(self) -> dict[str, object]:
        return {
            "participant": self.participant,
            "assigned": self.assigned,
            "done": self.done,
            "in_progress": self.in_progress,
            "left": self.left,
            "active_seconds": round(self.active_seconds, 1),
        }


def active_seconds(store: Store, study: Study, participant: str) -> float:
    from crmarena_tui.storage.replay import active_seconds as replayed

    rows = store.read(
        "SELECT s.id, s.active_seconds, s.status FROM sessions s"
        " JOIN participants p ON p.id = s.participant_id"
        " WHERE s.study_id = ? AND p.kind = 'human' AND p.name = ? AND s.kind = 'attempt'",
        (study.id, participant),
    )
    total = 0.0
    for session_id, seconds, status in rows:
        if seconds is not None and status != "in_progress":
            total += float(seconds)
            continue
        session = store.session(int(session_id))
        events = store.events(session.id)
        stamps = [e.ts.timestamp() for e in events if e.ts is not None]
        started = session.started_at.timestamp()
        total += replayed(started, events, max(stamps, default=started))
    return total


def study_progress(store: Store, study: Study) -> list[Progress]:
    rows = []
    for name, _code in db.participants(store, study):
        counts = Counter(
            state for _key, state in db.queue_status(store, db.seat(store, study.name, name))
        )
        rows.append(
            Progress(
                name,
                counts["done"],
                counts["in_progress"],
                counts["left"],
                active_seconds(store, study, name),
            )
        )
    return rows


def completion(rows: list[Progress]) -> float:
    """The share of all assignments done, 0..1 (0 for a study with none)."""
    assigned = sum(r.assigned for r in rows)
    return sum(r.done for r in rows) / assigned if assigned else 0.0


def format_seconds(seconds: float) -> str:
    """`1h 02m`, `12m 04s`, `45s`."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"
