"""Query results a model can take (issue 37, item 5): the MCP tools page a result of over 2,000
records as Salesforce does (`done: false`, a `nextRecordsUrl` for `query_more`) and cut a batch
at the `mcp_result_chars` cap, saying what was cut; the stored events hold what the client saw.
Under `upstream` a result is shown whole, as upstream's connector (`query_all`) returned it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.session.mcp_server import build_server
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import QueueOptions, TaskQueue
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from tests.support.mcp_support import Brief, SyncClient, ToolFailed
from tests.support.proxy_support import single_tasks

MANY = "SELECT Id FROM EmailMessage"  # 5,658 records on demo:b2b


def _serve(db: Path, protocol: str = "workbench", chars: int = 100_000):  # type: ignore[no-untyped-def]
    service = SessionService(Settings(protocol=protocol))
    options = QueueOptions(result_chars=chars)
    tasks = single_tasks(1)
    return build_server(lambda: TaskQueue(Store(db), tasks, service, options), as_name="pager")


def _shown(db: Path, session_id: int) -> list[str]:
    """What the session stored of each result the agent was shown, in order."""
    with Store(db) as store:
        events = store.events(session_id)
    return [
        e.payload["observation"]
        for e in events
        if e.kind == "observation"
        or (e.kind == "system" and e.payload.get("event") == "query_more")
    ]


def test_a_large_result_comes_in_batches_of_2000(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    server, worker = _serve(db)
    client = SyncClient(server)
    try:
        session_id = Brief(client.call("next_task")).session_id
        seen = [client.call("execute_soql", query=MANY)]
        while True:
            head = json.loads(seen[-1].split("\n", 1)[0])
            if head["done"]:
                break
            seen.append(client.call("query_more", cursor=head["nextRecordsUrl"]))
        with pytest.raises(ToolFailed, match="INVALID_QUERY_LOCATOR"):
            client.call("query_more", cursor="01gCRM999999-2000")
    finally:
        client.close()
        worker.close()
    batches = [json.loads(s.split("\n", 1)[0]) for s in seen]
    assert [len(b["records"]) for b in batches] == [2000, 2000, 1658]
    assert [b["done"] for b in batches] == [False, False, True]
    assert all(b["totalSize"] == 5658 for b in batches)
    ids = [r["Id"] for b in batches for r in b["records"]]
    assert len(set(ids)) == 5658
    assert "call query_more" in seen[0].splitlines()[1]
    assert _shown(db, session_id) == seen


def test_a_result_over_the_cap_is_cut_and_says_how_to_narrow(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    server, worker = _serve(db, chars=5_000)
    client = SyncClient(server)
    try:
        session_id = Brief(client.call("next_task")).session_id
        first = client.call("execute_soql", query="SELECT Id, Subject, Description FROM Case")
        head = json.loads(first.split("\n", 1)[0])
        rest = client.call("query_more", cursor=head["nextRecordsUrl"])
        small = client.call("execute_soql", query="SELECT Id FROM Case LIMIT 3")
    finally:
        client.close()
        worker.close()
    assert len(first) <= 5_000 and not head["done"] and 0 < len(head["records"]) < 153
    note = first.splitlines()[1]
    assert "5,000-character cap" in note and "WHERE" in note and "LIMIT" in note
    assert json.loads(rest.split("\n", 1)[0])["records"][0] not in head["records"]
    assert isinstance(json.loads(small), list)  # a small result is shown as it always was
    assert _shown(db, session_id) == [first, rest, small]


def test_under_upstream_a_result_is_shown_whole(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    server, worker = _serve(db, protocol="upstream", chars=5_000)
    client = SyncClient(server)
    try:
        Brief(client.call("next_task"))
        out = client.call("execute_soql", query=MANY)
    finally:
        client.close()
        worker.close()
    assert len(out) > 100_000 and "nextRecordsUrl" not in out
