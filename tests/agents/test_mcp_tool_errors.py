"""Every MCP tool call is an event (issue 37, item 4): a call rejected on its arguments is
answered `INVALID_ARGUMENT: ...` (not the SDK's pydantic text) and stored, as is a describe of an
unknown object; an org's error is stored by the tool and flagged as a tool error."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.session.mcp_server import build_server
from crmarena_tui.session.service import SessionService
from crmarena_tui.session.task_queue import TaskQueue
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from crmarena_tui.widgets.step_list import build_steps
from tests.support.mcp_support import Brief, SyncClient, ToolFailed
from tests.support.proxy_support import single_tasks


@pytest.fixture
def served(tmp_path: Path):  # type: ignore[no-untyped-def]
    service = SessionService(Settings(protocol="workbench"))
    db = tmp_path / "s.db"
    tasks = single_tasks(1)
    server, worker = build_server(lambda: TaskQueue(Store(db), tasks, service), as_name="x")
    client = SyncClient(server)
    yield client, db
    client.close()
    worker.close()


def _raw(client: SyncClient, tool: str, arguments: dict) -> tuple[bool, str]:
    result = client._run(lambda c: c.call_tool(tool, arguments))
    return result.is_error, "".join(getattr(c, "text", "") for c in result.content)


def test_rejected_calls_are_answered_as_codes_and_stored(served) -> None:
    client, db = served
    session_id = Brief(client.call("next_task")).session_id
    asked = [
        ("describe_object", {"name": 5}),
        ("execute_soql", {}),
        ("execute_soql", {"query": "SELEC Id FROM Case"}),
        ("describe_object", {"name": "Spaceship"}),
        ("execute_sosl", {"search": "  "}),
        ("run_apex", {"code": "1"}),
    ]
    answers = [_raw(client, tool, args) for tool, args in asked]
    assert answers[0] == (True, "INVALID_ARGUMENT: name must be a string")
    assert answers[1] == (True, "INVALID_ARGUMENT: query is required")
    assert answers[2][0] and answers[2][1].startswith("MALFORMED_QUERY: ")
    assert answers[3] == (True, "INVALID_TYPE: sObject type 'Spaceship' is not supported.")
    assert answers[4] == (True, "MALFORMED_QUERY: the SOSL statement is empty")
    assert answers[5] == (True, "INVALID_TOOL: there is no tool 'run_apex'")
    with pytest.raises(ToolFailed, match="INVALID_ARGUMENT"):
        client.call("respond", content=["not", "text"])
    with Store(db) as store:
        events = store.events(session_id)
    errors = [e for e in events if e.kind == "error"]
    # each answer is stored as the agent saw it, in the order asked
    assert [e.text for e in errors] == [a for _, a in answers[:2]] + [
        answers[2][1],
        answers[3][1],
        answers[4][1],
        answers[5][1],
        "INVALID_ARGUMENT: content must be a string",
    ]
    assert errors[0].payload["tool"] == "describe_object" and errors[0].payload["arguments"] == {
        "name": 5
    }
    assert errors[0].actor == "agent"
    # the viewer shows each as a step of its own (the org's error with its query)
    steps = build_steps(events)
    flagged = [s for s in steps if s.has_error]
    assert len(flagged) == 7
    assert not any(e.kind == "submit" for e in events)  # a rejected respond submitted nothing


def test_argument_errors_read_as_salesforce_codes() -> None:
    from pydantic import BaseModel, ValidationError

    from crmarena_tui.session.mcp_errors import argument_error

    class Arguments(BaseModel):
        limit: int
        ratio: float
        query: str

    with pytest.raises(ValidationError) as caught:
        Arguments(limit="ten", ratio="half")  # type: ignore[arg-type]
    assert argument_error(caught.value) == (
        "INVALID_ARGUMENT: limit must be an integer; ratio must be a number; query is required"
    )
