"""Which model a participant's calls went to, as its `usage` events name it (issue 37, item 7).

A participant's own `model` says it for the project's model agents; an outside agent (MCP, a
Python agent) has none of its own, and its model is the one its usage names: the model proxy's
usage events (`source: proxy`) name the model each call went to, a `report_usage` the one the
client gave. `participant_models` reads them per participant (the `events_usage` index), and
`model_of` is the one rule the report applies: the participant's own model, else the models its
usage names (comma-separated, sorted), else None."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Participant
    from crmarena_tui.storage.store import Store

_SQL = (
    "SELECT s.participant_id, json_extract(e.payload, '$.model') AS model"
    " FROM events e JOIN sessions s ON s.id = e.session_id"
    " WHERE e.kind = 'usage' AND model IS NOT NULL AND model != ''"
    " GROUP BY s.participant_id, model"
)


def participant_models(store: Store) -> dict[int, set[str]]:
    """Participant id -> the models its sessions' usage events name."""
    found: dict[int, set[str]] = defaultdict(set)
    for participant_id, model in store.read(_SQL):
        found[int(participant_id)].add(str(model))
    return dict(found)


def model_of(people: Iterable[Participant], named: dict[int, set[str]]) -> str | None:
    """The model of a configuration made of `people` (participant rows): their own, else what
    their usage names."""
    people = list(people)
    own = sorted({p.model for p in people if p.model})
    if own:
        return ", ".join(own)
    used = sorted({m for p in people for m in named.get(p.id, ())})
    return ", ".join(used) if used else None
