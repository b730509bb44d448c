"""An agent whose model is an OpenAI-compatible server on loopback that misbehaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.agents.react import ReactAgent
from crmarena_tui.agents.tool_calling import ToolCallingAgent
from crmarena_tui.llm.client import LLMClient
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.support.agents_llm_support import AGENT_ID, TinyOrg, make_task, react


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "s.db") as s:
        yield s


def client(server: FakeOpenAIServer, **kw) -> LLMClient:
    return LLMClient(
        "openai/fake-model", api_base=server.base_url, timeout=0.5, backoff_base=0.01, **kw
    )


def episode_for(store: Store, agent) -> Episode:
    participant = store.participant(
        "agent", agent.name, model=agent.model, settings=agent.settings()
    )
    return Episode.start(
        store, SessionSpec(make_task(), TinyOrg(), participant, settings=agent.settings())
    )


def test_rate_limit_timeout_and_malformed_reply_are_retried_and_the_session_is_graded(
    server, store
) -> None:
    server.enqueue(
        Reply(status=429, body={"error": {"message": "rate limited"}}),
        Reply.chat(react("look", "execute", "SELECT Id, Name FROM User")),
        Reply.chat("late", delay=1.2),
        Reply(status=200, body='{"choices": [oops'),
        Reply.chat(react("done", "respond", AGENT_ID)),
    )
    agent = ReactAgent(client(server))
    episode = episode_for(store, agent)
    steps = list(agent.steps(episode))
    assert [s.action for s in steps] == ["execute", "submit"]
    assert episode.status == "submitted" and episode.latest_grade().reward == 1.0
    errors = [e for e in store.events(episode.session_id) if e.kind == "error"]
    assert [e.payload["error_type"] for e in errors] == ["rate_limit", "timeout", "malformed"]
    assert all(e.actor == "agent" and e.payload["source"] == "llm" for e in errors)
    usage = [e.payload for e in store.events(episode.session_id) if e.kind == "usage"]
    assert [u["attempts"] for u in usage] == [2, 3] and usage[0]["prompt_tokens"] == 11


def test_an_outage_leaves_the_session_resumable_and_a_later_run_grades_it(server, store) -> None:
    server.enqueue(
        Reply.chat(react("look", "execute", "SELECT Id FROM User")),
        *[Reply(status=503, body={"error": {"message": "overloaded"}})] * 2,
    )
    agent = ReactAgent(client(server, max_retries=1))
    episode = episode_for(store, agent)
    steps = list(agent.steps(episode))
    assert steps[-1].action == "model_error" and "overloaded" in steps[-1].text
    assert episode.status == "in_progress"

    server.enqueue(Reply.chat(react("back", "respond", AGENT_ID)))
    again = ReactAgent(client(server))
    resumed = episode_for(store, again)
    assert resumed.session_id == episode.session_id
    assert list(again.steps(resumed))[-1].grade.reward == 1.0
    resent = server.requests[-1]["messages"]
    assert [m["role"] for m in resent] == ["system", "user", "assistant", "user"]
    assert resent[-1]["content"].startswith("Salesforce instance output: [")


def test_tool_calling_over_http(server, store) -> None:
    server.enqueue(
        Reply.chat(
            None, tool_calls=[Reply.tool("execute_soql", {"query": "SELECT Id FROM User"}, "c1")]
        ),
        Reply.chat(None, tool_calls=[Reply.tool("respond", {"content": AGENT_ID}, "c2")]),
    )
    agent = ToolCallingAgent(client(server))
    episode = episode_for(store, agent)
    assert list(agent.steps(episode))[-1].grade.reward == 1.0
    second = server.requests[1]["messages"]
    assert second[-2]["tool_calls"][0]["id"] == "c1"
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "c1"
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == [
        "execute_soql",
        "execute_sosl",
        "respond",
    ]
