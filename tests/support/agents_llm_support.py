"""Shared pieces for the agent and runner tests (no tests here): a tiny org, tasks, ReAct replies."""

from __future__ import annotations

from datetime import date
from typing import Any

from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.orgs.schema import Schema
from crmarena_tui.tasks.model import Task, TaskMetadata

AGENT_ID = "005Wt000003NIqLIAW"
OTHER_ID = "005Wt000003NIqMIAW"
SECRET = "005Wt000009SECRETAA"  # the ground truth of SECRET_TASK: no org record carries it


class TinyOrg:
    """An Org with two users; any query naming `bad` fails like Salesforce does."""

    kind = "local"
    ref = "tiny"
    org_type = "b2b"

    def __init__(self) -> None:
        self.today = None
        self.queries: list[str] = []
        self._schema = reference_schema()

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        self.queries.append(soql)
        if "bad" in soql:
            return QueryResult(error="MALFORMED_QUERY: unexpected token: bad")
        records = [
            {
                "attributes": {"type": "User", "url": "/u/1"},
                "Id": AGENT_ID,
                "Name": "Ann Lee",
                "Phone": None,
            },
            {
                "attributes": {"type": "User", "url": "/u/2"},
                "Id": OTHER_ID,
                "Name": "Bo Chen",
                "Phone": None,
            },
        ]
        return QueryResult(records=records, total_size=2)

    def search(self, sosl: str, *, today: date | None = None) -> QueryResult:
        self.queries.append(sosl)
        return QueryResult(
            records=[{"attributes": {"type": "User"}, "Id": AGENT_ID}], kind="search", total_size=1
        )

    def describe(self) -> Schema:
        return self._schema

    def get(self, object_name: str, record_id: str) -> dict[str, Any] | None:
        return None

    def related(self, object_name: str, record_id: str) -> dict[str, list[dict[str, Any]]]:
        return {}


def make_task(
    idx: int = 1,
    *,
    task: str = "handle_time",
    answer: str | None = AGENT_ID,
    interactive: bool = False,
    metric: str = "exact_match",
    query: str | None = None,
    persona: str = "You are brisk and busy.",
) -> Task:
    return Task(
        idx=idx,
        task=task,
        query=query
        or "Which agent had the shortest average handle time last quarter? Give the Id.",
        answer=[answer],
        metadata=TaskMetadata(
            required="Today's date: 2024-05-01\nHandle time is closed date minus created date.",
            optional="# Domain Details\nQ1 runs from January 1 to March 31.",
        ),
        reward_metric=metric,
        persona=persona,
        source="test",
        org_type="b2b",
        interactive=interactive,
    )


def react(thought: str, action: str, content: str) -> str:
    return f"<thought>{thought}</thought>\n<{action}>{content}</{action}>"
