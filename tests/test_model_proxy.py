"""The model proxy (`mcp --model-proxy`): an outside agent's model calls, sent to an
OpenAI-compatible URL on loopback, reach the model and are recorded in the session the agent
works, so the viewer shows them between its tool calls and `report` counts their cost."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.widgets.step_list import build_steps

sys.path.insert(0, str(Path(__file__).parent))
from fakes.openai_server import FakeOpenAIServer, Reply  # noqa: E402
from proxy_support import PRICE_IN, PRICE_OUT, PROXY, priced, proxied  # noqa: E402
from study_support import cli  # noqa: E402

QUERY = "SELECT Id FROM Case LIMIT 2"


def _openai(url: str, key: str):  # type: ignore[no-untyped-def]
    import openai

    return openai.OpenAI(base_url=url, api_key=key, max_retries=0)


def test_model_calls_through_the_proxy_are_steps_and_cost(tmp_path: Path, monkeypatch) -> None:
    priced(monkeypatch)
    db = tmp_path / "s.db"
    with FakeOpenAIServer() as model:
        model.enqueue(
            Reply.chat(None, tool_calls=[Reply.tool("execute_soql", {"query": QUERY})],
                       prompt_tokens=1000, completion_tokens=50),
            Reply.chat("The answer is 42.", prompt_tokens=1200, completion_tokens=10),
        )  # fmt: skip
        with proxied(db, model.base_url) as (client, _sessions, _proxy):
            brief = client.call("next_task")
            url, key = PROXY.search(brief).groups()  # type: ignore[union-attr]
            llm = _openai(url, key)
            messages = [{"role": "user", "content": "the task"}]
            first = llm.chat.completions.create(model="openai/fake-model", messages=messages)
            call = first.choices[0].message.tool_calls[0]
            assert call.function.name == "execute_soql"
            seen = client.call("execute_soql", query=QUERY)
            messages += [
                first.choices[0].message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": call.id, "content": seen},
            ]
            second = llm.chat.completions.create(model="openai/fake-model", messages=messages)
            assert second.choices[0].message.content == "The answer is 42."
            client.call("respond", content="42")
            # a client reporting the same usage again is kept, not counted twice
            said = client.call("report_usage", model="openai/fake-model", prompt_tokens=2200)
            assert "not counted" in said
        # the model was sent what the agent sent
        assert model.requests[1]["messages"][-1]["content"] == seen
    with Store(db) as store:
        (session,) = store.sessions()
        events = store.events(session.id)
    steps = [s.summary for s in build_steps(events) if s.kind in ("model_turn", "query")]
    assert steps[0] == "openai/fake-model: calls execute_soql"
    assert steps[1].startswith(QUERY)
    assert steps[2] == "openai/fake-model: The answer is 42."
    turns = [e.payload for e in events if e.kind == "model_turn"]
    assert turns[1]["earlier"] == 1 and [m["role"] for m in turns[1]["messages"]] == [
        "assistant",
        "tool",
    ]
    expected = (2200 * PRICE_IN) + (60 * PRICE_OUT)
    report = json.loads(cli("report", "--db", str(db), "--format", "json")[1])
    (row,) = [r for r in report["efficiency"] if r["task_type"] == "all task types"]
    assert row["model_calls"] == 2
    assert row["cost"] == pytest.approx(expected)
