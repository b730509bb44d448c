"""The client driven through litellm against an OpenAI-compatible server on loopback."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from crmarena_tui.llm.client import LLMClient, LLMError
from tests.fakes.openai_server import FakeOpenAIServer, Reply

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def client(server: FakeOpenAIServer, events: list | None = None, **kw) -> LLMClient:
    kw.setdefault("timeout", 2.0)
    return LLMClient(
        "openai/fake-model",
        api_base=server.base_url,
        backoff_base=0.01,
        on_event=None if events is None else events.append,
        **kw,
    )


def test_a_reply_comes_back_with_its_token_counts(server: FakeOpenAIServer, capfd) -> None:
    server.enqueue(
        Reply.chat(
            "<thought>t</thought><respond>42</respond>", prompt_tokens=120, completion_tokens=9
        )
    )
    result = client(server).complete([{"role": "system", "content": "sys"}, *HI])
    assert result.text == "<thought>t</thought><respond>42</respond>"
    assert (result.prompt_tokens, result.completion_tokens) == (120, 9)
    assert result.cost is None  # an unknown model has no price: unknown, not zero
    assert result.latency_ms > 0
    sent = server.requests[0]
    assert sent["model"] == "fake-model" and sent["messages"][0] == {
        "role": "system",
        "content": "sys",
    }
    assert sent["temperature"] == 0.0
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (
            Reply(status=429, body={"error": {"message": "rate limited", "type": "rate_limit"}}),
            "rate_limit",
        ),
        (Reply.chat("too late", delay=1.5), "timeout"),
        (Reply(status=200, body="{this is not json"), "malformed"),
        (
            Reply(status=200, body={"id": "x", "object": "chat.completion", "choices": []}),
            "malformed",
        ),
        (Reply(status=503, body={"error": {"message": "overloaded"}}), "server"),
    ],
)
def test_each_transient_failure_is_retried_and_reported(server, failure, kind, capfd) -> None:
    events: list[dict] = []
    server.enqueue(failure, Reply.chat("recovered"))
    result = client(server, events, timeout=0.5).complete(HI)
    assert result.text == "recovered" and result.attempts == 2
    assert [e["error_type"] for e in events] == [kind]
    assert events[0]["final"] is False
    assert capfd.readouterr() == ("", "")  # litellm's banners and logs stay quiet


def test_a_server_that_stays_down_ends_in_llm_error(server: FakeOpenAIServer, capfd) -> None:
    events: list[dict] = []
    server.enqueue(*[Reply(status=500, body={"error": {"message": "boom"}})] * 3)
    with pytest.raises(LLMError) as info:
        client(server, events, max_retries=2).complete(HI)
    assert info.value.kind == "server" and info.value.attempts == 3
    assert len(server.requests) == 3  # no hidden retries inside the OpenAI client
    assert [e["final"] for e in events] == [False, False, True]
    assert capfd.readouterr() == ("", "")


def test_tool_calls_are_sent_and_parsed(server: FakeOpenAIServer) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "execute_soql",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
            },
        }
    ]
    server.enqueue(
        Reply.chat(
            None,
            tool_calls=[
                Reply.tool("execute_soql", {"query": "SELECT Id FROM Case"}, "call_a"),
                Reply.tool("respond", "{broken", "call_b"),
            ],
        )
    )
    result = client(server).complete(HI, tools=tools)
    assert server.requests[0]["tools"][0]["function"]["name"] == "execute_soql"
    first, second = result.tool_calls
    assert (first.id, first.name, first.arguments) == (
        "call_a",
        "execute_soql",
        {"query": "SELECT Id FROM Case"},
    )
    assert second.error and "not valid JSON" in second.error
    assert result.text == ""


def test_the_key_goes_in_the_authorization_header_only(server: FakeOpenAIServer) -> None:
    server.enqueue(Reply.chat("a"), Reply.chat("b"))
    client(server, api_key=SecretStr("sk-from-config")).complete(HI)
    assert server.headers[0]["authorization"] == "Bearer sk-from-config"
    assert "sk-from-config" not in str(server.requests[0])
    client(server).complete(HI)  # no key anywhere: a local server gets a placeholder
    assert server.headers[1]["authorization"].startswith("Bearer ")
