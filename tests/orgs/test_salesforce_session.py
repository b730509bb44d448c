"""The session flow that works on the demo org works the same against a Salesforce org.

The fake Salesforce (HTTP layer, `responses`) answers every query and search with what the demo
org holds, shaped as Salesforce's REST API would: the same Episode, grader, storage and agent
code then run against `SalesforceOrg` exactly as they do against `LocalOrg`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import responses

from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.orgs.salesforce import SalesforceOrg
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.model import Task
from tests.fakes.salesforce import PASSWORD, TOKEN, FakeSalesforce
from tests.support.reference_agent_support import Player

TYPES = (
    "handle_time",
    "quote_approval",
    "knowledge_qa",
    "lead_routing",
    "policy_violation_identification",
)


@pytest.fixture
def orgs() -> Iterator[tuple[LocalOrg, SalesforceOrg, FakeSalesforce]]:
    local = LocalOrg(ensure_demo_org("b2b"))

    def backend(text: str) -> tuple[int, Any]:
        local.today = remote.today  # the task's date travels with the org object, as on the server
        result = (
            local.search(text) if text.lstrip().upper().startswith("FIND") else local.query(text)
        )
        if result.error:
            code, _, message = result.error.partition(": ")
            return 400, [{"errorCode": code, "message": message}]
        return 200, result.to_response()

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeSalesforce(mock)
        fake.add_describes(local.describe())
        fake.answer_from(backend)
        remote = SalesforceOrg("b2b", env=fake.env(), use_cache=False)
        yield local, remote, fake
    local.close()


def _pick(task_type: str) -> Task:
    return next(t for t in demo_tasks("b2b") if t.task == task_type and not t.interactive)


@pytest.mark.parametrize("task_type", TYPES)
def test_the_reference_agent_scores_the_same_on_both_backends(
    orgs, tmp_path: Path, task_type: str
) -> None:
    local, remote, fake = orgs
    task = _pick(task_type)
    player = Player(tmp_path / "s.db")
    try:
        on_local = player.play(task, local)
        on_remote = player.play(task, remote)
        assert on_remote.episode.status == "submitted"
        assert on_remote.answer == on_local.answer
        assert on_remote.reward == on_local.reward == 1.0
        assert on_remote.queries == on_local.queries
        assert set(fake.queries_seen) <= set(
            on_remote.queries
        )  # the agent's SOQL reached the server
        assert fake.queries_seen or task_type == "knowledge_qa"
        sessions = {s.org_kind for s in player.store.sessions()}
        assert sessions == {"local", "salesforce"}
    finally:
        player.close()
    assert fake.logins == 1  # logged in lazily, once


def test_a_human_session_on_salesforce_records_errors_and_grades(orgs, tmp_path: Path) -> None:
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.storage import Store

    _, remote, _ = orgs
    task = _pick("handle_time")
    with Store(tmp_path / "s.db") as store:
        human = store.participant("human", "ana")
        ep = Episode.start(store, SessionSpec(task, remote, human))
        bad = ep.execute("SELECT Id, Nme FROM Account")
        assert bad.error and bad.error.startswith("INVALID_FIELD: ")
        good = ep.execute("SELECT COUNT() FROM Case")
        assert good.ok and good.count_only and good.total_size > 0
        grade = ep.submit(task.answer[0])
        assert grade.reward == 1.0
        kinds = [e.kind for e in store.events(ep.session_id)]
        assert kinds[:4] == ["query", "error", "query", "observation"]
        db_bytes = (tmp_path / "s.db").read_bytes() + (tmp_path / "s.db-wal").read_bytes()
        assert PASSWORD.encode() not in db_bytes and TOKEN.encode() not in db_bytes
