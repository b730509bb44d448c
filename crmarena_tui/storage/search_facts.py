"""The sessions a session fact of a search keeps (`type:`, `trial:`, `reward:`, `participant:`,
`ended:`, `label:`, `source:`, `split:`; storage/search.py combines them with the steps), and
each session's configuration as the report names it, which `participant:` matches.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage import search_sessions
from crmarena_tui.storage.convert import loads
from crmarena_tui.storage.search_query import SearchSyntaxError, reward_values

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store


def configurations(store: Store) -> dict[int, tuple[str, str]]:
    """{session id: (its configuration, its participant's name)}, each configuration made once
    per distinct participant and settings (not once per session)."""
    from crmarena_tui.storage.configuration import session_configuration

    people = {
        pid: SimpleNamespace(kind=kind, name=name, settings=loads(settings) or {})
        for pid, kind, name, settings in store.read(
            "SELECT id, kind, name, settings FROM participants"
        )
    }
    found: dict[int, tuple[str, str]] = {}
    made: dict[tuple[Any, ...], tuple[str, str]] = {}
    rows = store.read(
        "SELECT id, participant_id, aided, settings ->> '$.strategy',"
        " settings ->> '$.privacy_aware', CASE WHEN interactive THEN user_simulator END"
        " FROM sessions"
    )
    for sid, pid, aided, strategy, private, user in rows:
        key = (pid, aided, strategy, private, user)
        named = made.get(key)
        if named is None:
            person = people[pid]
            settings = {"strategy": strategy, "privacy_aware": bool(private) or None}
            session = SimpleNamespace(
                settings=settings, aided=bool(aided), interactive=bool(user), user_simulator=user
            )
            configuration = session_configuration(person, session)  # type: ignore[arg-type]
            named = made[key] = (configuration, person.name)
        found[sid] = named
    return found


def check_participants(store: Store, wanted: Iterable[str]) -> None:
    """Refuse (`UnknownParticipant`, the closest names listed) a `participant:` value that
    names no configuration here: before any indexing, so a typo is told at once."""
    from crmarena_tui.storage.participant_names import check_named

    if wanted := list(wanted):
        check_named(wanted, configurations(store).values(), "participant:")


def _participant_sessions(store: Store, wanted: tuple[str, ...]) -> set[int]:
    from crmarena_tui.storage.participant_names import check_named
    from crmarena_tui.storage.participant_names import names_configuration as names_participant

    named = configurations(store)
    check_named(wanted, named.values(), "participant:")
    verdicts = {
        pair: any(names_participant(w, *pair) for w in wanted) for pair in set(named.values())
    }
    return {sid for sid, pair in named.items() if verdicts[pair]}


_LATEST_REWARD = (  # (graded sessions only: one pass over grades' index, not a lookup a session)
    "SELECT session_id, reward FROM grades"
    " WHERE id IN (SELECT MAX(id) FROM grades GROUP BY session_id)"
)


def fact_sessions(store: Store, key: str, values: tuple[str, ...]) -> set[int]:
    """The sessions one session fact (`type:`, `reward:`, `ended:`...) keeps."""
    marks = ", ".join("?" * len(values))
    if key == "type":
        return {
            r[0]
            for r in store.read(f"SELECT id FROM sessions WHERE task_type IN ({marks})", values)
        }
    if key == "trial":
        trials = tuple(int(v) for v in values)
        return {
            r[0] for r in store.read(f"SELECT id FROM sessions WHERE trial IN ({marks})", trials)
        }
    if key == "reward":
        wanted = reward_values(values)
        rewards = dict(store.read(_LATEST_REWARD))
        ids = {sid for sid, reward in rewards.items() if reward in wanted}
        if None in wanted:  # (`reward:none`: sessions never graded as well)
            ids.update(r[0] for r in store.read("SELECT id FROM sessions") if r[0] not in rewards)
        return ids
    if key == "participant":
        return _participant_sessions(store, values)
    if key == "ended":
        return search_sessions.ended_sessions(store, values)
    if key == "label":
        return search_sessions.label_sessions(store, values)
    if key == "source":
        return search_sessions.source_sessions(store, values)
    if key == "split":
        return search_sessions.split_sessions(store, values)
    raise SearchSyntaxError(f"{key}: is not a session fact")
