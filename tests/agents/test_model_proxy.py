"""The model proxy (`mcp --model-proxy`): an outside agent's model calls, sent to an
OpenAI-compatible URL on loopback, reach the model and are recorded in the session the agent
works, so the viewer shows them between its tool calls and `report` counts their cost."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.widgets.step_list import build_steps
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.support.proxy_support import PRICE_IN, PRICE_OUT, PROXY, priced, proxied
from tests.support.study_support import cli

QUERY = "SELECT Id FROM Case LIMIT 2"


def _session_of(brief: str) -> int:
    """The session a `next_task` brief opened (its first line names it)."""
    found = re.search(r"\(session (\d+);", brief)
    assert found is not None, brief
    return int(found.group(1))


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
    # the MCP participant has no model of its own: the report names the one its calls went to
    assert row["model"] == "openai/fake-model"
    table = cli("report", "--db", str(db))[1]
    assert "fake-model" in table  # (the participant cell wraps: its words, not their line)
    out = tmp_path / "x.jsonl"
    assert cli("export", "--db", str(db), "--format", "jsonl", "--out", str(out))[0] == 0
    (exported,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert exported["participant_model"] == "openai/fake-model"
    assert [e["kind"] for e in exported["events"]].count("model_turn") == 2


def test_a_streamed_call_comes_back_as_openai_chunks_and_is_recorded(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with FakeOpenAIServer() as model:
        model.enqueue(
            Reply.chat("Streamed reply.", prompt_tokens=30, completion_tokens=4),
            Reply.chat(None, tool_calls=[Reply.tool("describe_object", {"name": "Case"})]),
        )
        with proxied(db, model.base_url) as (client, sessions, _proxy):
            session_id = _session_of(client.call("next_task"))
            # the server's key (printed at start) with the session named by the header
            llm = _openai(sessions.base_url, sessions.server_key)
            chunks = list(
                llm.chat.completions.create(
                    model="openai/fake-model",
                    messages=[{"role": "user", "content": "hi"}],
                    stream=True,
                    stream_options={"include_usage": True},
                    extra_headers={"X-Crmarena-Session": str(session_id)},
                )
            )
            text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            assert text == "Streamed reply."
            assert chunks[-1].usage.prompt_tokens == 30 and chunks[-1].usage.completion_tokens == 4
            called = list(
                llm.chat.completions.create(
                    model="openai/fake-model", messages=[{"role": "user", "content": "go"}],
                    stream=True,
                )
            )  # fmt: skip
            calls = [t for c in called if c.choices for t in c.choices[0].delta.tool_calls or []]
            assert calls[0].function.name == "describe_object"
            assert json.loads(calls[0].function.arguments) == {"name": "Case"}
            assert called[-1].choices[0].finish_reason == "tool_calls"
    with Store(db) as store:
        events = store.events(session_id)
    (first, second) = [e.payload for e in events if e.kind == "model_turn"]
    assert first["stream"] and first["text"] == "Streamed reply."
    assert second["tool_calls"] == ["describe_object"]
    usage = [e.payload for e in events if e.kind == "usage"]
    assert [(u["source"], u["calls"], u["prompt_tokens"]) for u in usage][0] == ("proxy", 1, 30)


def test_a_wrong_key_is_refused_and_a_failed_call_is_an_error_event(tmp_path: Path) -> None:
    import openai

    db = tmp_path / "s.db"
    with FakeOpenAIServer() as model:
        model.enqueue(Reply(status=400, body={"error": {"message": "bad tool schema"}}))
        with proxied(db, model.base_url) as (client, sessions, _proxy):
            brief = client.call("next_task")
            url, key = PROXY.search(brief).groups()  # type: ignore[union-attr]
            session_id = _session_of(brief)
            with pytest.raises(openai.AuthenticationError):
                _openai(url, "crm-not-a-key").chat.completions.create(
                    model="openai/fake-model", messages=[{"role": "user", "content": "x"}]
                )
            with pytest.raises(openai.BadRequestError, match="bad tool schema"):
                _openai(url, key).chat.completions.create(
                    model="openai/fake-model", messages=[{"role": "user", "content": "x"}]
                )
    assert len(model.requests) == 1  # the refused call never reached the model
    with Store(db) as store:
        errors = [e.payload for e in store.events(session_id) if e.kind == "error"]
    assert errors[0]["source"] == "proxy" and "bad tool schema" in errors[0]["error"]


def test_a_model_of_another_provider_goes_through_litellm(tmp_path: Path) -> None:
    # `hosted_vllm/...` is not passed through as it is: litellm calls it (at the same loopback)
    db = tmp_path / "s.db"
    with FakeOpenAIServer() as model:
        model.enqueue(Reply.chat("via litellm", prompt_tokens=5, completion_tokens=2))
        with proxied(db, model.base_url) as (client, sessions, _proxy):
            brief = client.call("next_task")
            url, key = PROXY.search(brief).groups()  # type: ignore[union-attr]
            session_id = _session_of(brief)
            reply = _openai(url, key).chat.completions.create(
                model="hosted_vllm/fake-model", messages=[{"role": "user", "content": "x"}]
            )
        assert model.requests[0]["model"] == "fake-model"
    assert reply.choices[0].message.content == "via litellm"
    with Store(db) as store:
        (turn,) = [e.payload for e in store.events(session_id) if e.kind == "model_turn"]
    assert turn["model"] == "hosted_vllm/fake-model" and turn["text"] == "via litellm"


AGENT = """
import openai


class Asker:
    name = "asker"

    def solve(self, task, env):
        llm = openai.OpenAI(base_url=task.model_base_url, api_key=task.model_key, max_retries=0)
        reply = llm.chat.completions.create(
            model="openai/fake-model", messages=[{"role": "user", "content": task.query}]
        )
        env.respond(reply.choices[0].message.content)
"""


def test_a_python_agent_gets_the_proxy_and_its_calls_are_recorded(tmp_path: Path) -> None:
    (tmp_path / "asker.py").write_text(AGENT, encoding="utf-8")
    db = tmp_path / "s.db"
    with FakeOpenAIServer(fallback=lambda body: Reply.chat("None")) as model:
        code, _out, err = cli(
            "run", "--agent", f"{tmp_path / 'asker.py'}:Asker", "--tasks", "demo:small",
            "--task", "handle_time", "--limit", "2", "--concurrency", "2", "--protocol",
            "workbench", "--model-proxy", "--proxy-port", "0", "--proxy-api-base",
            model.base_url, "--db", str(db),
        )  # fmt: skip
    assert code == 0, err
    with Store(db) as store:
        sessions = store.sessions()
        found = {s.id: (s, store.events(s.id)) for s in sessions}
    assert len(found) == 2
    asked = set()
    for session, events in found.values():
        (turn,) = [e.payload for e in events if e.kind == "model_turn"]
        submitted = next(e for e in events if e.kind == "submit")
        assert turn["text"] == "None" and submitted.text == "None"
        # each session holds its own call: the one that carried its own task's request
        asked.add(turn["messages"][0]["content"])
        assert session.task_json["query"] in turn["messages"][0]["content"]
    assert len(asked) == 2


@pytest.mark.slow
def test_the_mcp_command_serves_the_proxy_beside_stdio(tmp_path: Path) -> None:
    from tests.support.mcp_support import stdio_client

    db = tmp_path / "s.db"
    with FakeOpenAIServer(fallback=lambda body: Reply.chat("None")) as model:
        client = stdio_client(
            db, "--tasks", "demo:small", "--task", "handle_time", "--limit", "1", "--protocol",
            "workbench", "--as", "e2e", "--model-proxy", "--proxy-port", "0",
            "--proxy-api-base", model.base_url,
        )  # fmt: skip
        try:
            url, key = PROXY.search(client.call("next_task")).groups()  # type: ignore[union-attr]
            chunks = _openai(url, key).chat.completions.create(
                model="openai/fake-model", messages=[{"role": "user", "content": "q"}], stream=True
            )
            assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "None"
            assert client.call("respond", content="None") == "Submitted."
        finally:
            client.close()
    with Store(db) as store:
        (session,) = store.sessions()
        kinds = [e.kind for e in store.events(session.id)]
    assert kinds == ["usage", "model_turn", "submit", "grade"]


@pytest.mark.slow
def test_two_http_clients_at_once_each_have_their_calls_in_their_own_session(
    tmp_path: Path,
) -> None:
    # each client's key is its lease holder's (its mcp-session-id): the calls two clients make
    # at once through one proxy land in the session each of them holds, never the other's
    import threading

    from tests.support.mcp_support import SyncClient, free_port, start_http

    db, port = tmp_path / "s.db", free_port()
    with FakeOpenAIServer(fallback=lambda body: Reply.chat("None")) as model:
        proc = start_http(
            db, port, "--tasks", "demo:small", "--task", "handle_time", "--limit", "2",
            "--protocol", "workbench", "--as", "pair", "--model-proxy", "--proxy-port", "0",
            "--proxy-api-base", model.base_url,
        )  # fmt: skip
        try:
            clients = [SyncClient(f"http://127.0.0.1:{port}/mcp", mode="legacy") for _ in "ab"]
            try:
                briefs = [c.call("next_task") for c in clients]
                sessions = [_session_of(b) for b in briefs]
                keys = [PROXY.search(b).group(2) for b in briefs]  # type: ignore[union-attr]
                assert sessions[0] != sessions[1] and keys[0] != keys[1]
                url = PROXY.search(briefs[0]).group(1)  # type: ignore[union-attr]
                start = threading.Barrier(2)

                def ask(n: int) -> None:
                    llm = _openai(url, keys[n])
                    start.wait()
                    for turn in range(3):
                        llm.chat.completions.create(
                            model="openai/fake-model",
                            messages=[{"role": "user", "content": f"client {n} turn {turn}"}],
                        )

                threads = [threading.Thread(target=ask, args=(n,)) for n in range(2)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                for c in clients:  # queued after the proxy's events: all are stored by now
                    assert c.call("respond", content="None") == "Submitted."
            finally:
                for c in clients:
                    c.close()
        finally:
            proc.terminate()
            proc.wait(30)
    with Store(db) as store:
        for n, session_id in enumerate(sessions):
            events = store.events(session_id)
            asked = [e.payload["messages"][-1]["content"] for e in events if e.kind == "model_turn"]
            assert asked == [f"client {n} turn {turn}" for turn in range(3)]
            assert sum(e.kind == "usage" for e in events) == 3


def test_the_closing_model_call_after_the_answer_is_counted_in_its_session(
    tmp_path: Path,
) -> None:
    """An agent reads "Submitted." and ends its run with one more model call before its next
    next_task: that call's usage and turn are its finished session's, not lost."""
    db = tmp_path / "s.db"
    with FakeOpenAIServer() as model:
        model.enqueue(Reply.chat("Done with it.", prompt_tokens=300, completion_tokens=5))
        with proxied(db, model.base_url) as (client, _sessions, _proxy):
            url, key = PROXY.search(client.call("next_task")).groups()  # type: ignore[union-attr]
            assert client.call("respond", content="42").startswith("Submitted")
            said = [{"role": "user", "content": "the task"}]
            _openai(url, key).chat.completions.create(model="openai/fake-model", messages=said)
            client.call("get_task")  # (a call after it: the proxy's events are stored by then)
    with Store(db) as store:
        (session,) = store.sessions()
        kinds = [e.kind for e in store.events(session.id)]
        usage = [e.payload for e in store.events(session.id) if e.kind == "usage"]
    assert kinds.index("submit") < kinds.index("model_turn")
    assert [(u["prompt_tokens"], u["source"]) for u in usage] == [(300, "proxy")]
