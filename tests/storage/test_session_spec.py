"""One value for one session: the spec `start` opens is the spec `find_attempt` looks up, by one
resume key, for a human (blind or not) and an agent alike."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from crmarena_tui.orgs.detached_org import DetachedOrg
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.model import Task

TASK = Task(
    idx=7, task="handle_time", query="q", answer=["x"], reward_metric="exact_match", source="t"
)


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "s.db") as s:
        yield s


@pytest.mark.parametrize("kind", ["human", "agent"])
@pytest.mark.parametrize("blind", [True, False])
def test_find_attempt_finds_what_start_opened_and_nothing_else(
    store: Store, kind: str, blind: bool
) -> None:
    service = SessionService(Settings(protocol="workbench"))
    who = store.participant(kind, "ana" if kind == "human" else "bot")  # type: ignore[arg-type]
    spec = service.spec(TASK, DetachedOrg("local", "demo", "b2b"), who, blind=blind)
    assert service.find_attempt(store, spec) is None
    episode = service.start(store, spec)
    found = service.find_attempt(store, spec)
    assert found is not None and found.id == episode.session_id
    assert found.blind == (blind if kind == "human" else None)  # only a human plays blind
    assert service.start(store, spec).session_id == episode.session_id  # resumed
    for other in (
        dataclasses.replace(spec, settings={"layout": "wide"}),
        dataclasses.replace(spec, protocol="upstream"),
        dataclasses.replace(spec, aided=True),
    ):
        assert service.find_attempt(store, other) is None
    flipped = service.find_attempt(store, dataclasses.replace(spec, blind=not blind))
    assert (flipped is None) == (kind == "human")  # an agent's session has no blind flag


def test_a_spec_is_frozen_and_the_store_writes_it_as_it_is(store: Store) -> None:
    who = store.participant("human", "ana")
    spec = SessionSpec(TASK, DetachedOrg("upstream", "upstream:b2b", "b2b"), who, study_id=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.kind = "fork"  # type: ignore[misc]
    session = store.create_session(dataclasses.replace(spec, aided=True, user="scripted"))
    assert (session.org_kind, session.org_ref, session.aided) == ("upstream", "upstream:b2b", True)
    assert session.user_simulator == "scripted" and session.kind == "attempt"
