"""One model call has an overall deadline (a reply dripped byte by byte, each read within the
timeout, no longer runs for minutes), and a 429's or 503's Retry-After is honoured within what a
retry may wait."""

from __future__ import annotations

import pytest

from crmarena_tui.llm.client import LLMClient, LLMError
from tests.fakes.openai_server import FakeOpenAIServer, Reply

HI = [{"role": "user", "content": "hi"}]


def test_a_dripped_reply_is_cut_at_the_calls_deadline() -> None:
    events: list[dict] = []
    with FakeOpenAIServer() as server:
        # ~400 bytes at 0.05 s each: 20 s in all, every read well within the 5 s timeout
        server.enqueue(Reply(body=Reply.chat("a slow answer").body, drip=0.05))
        client = LLMClient(
            "openai/fake-model", api_base=server.base_url, timeout=5, max_retries=0,
            deadline=0.5, on_event=events.append,
        )  # fmt: skip
        with pytest.raises(LLMError) as caught:
            client.complete(HI)
    assert caught.value.kind == "timeout"
    assert "deadline of 0.5 s" in str(caught.value)
    assert events[-1]["error_type"] == "timeout"


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_is_honoured(status: int) -> None:
    waits: list[float] = []
    with FakeOpenAIServer() as server:
        server.enqueue(
            Reply(status=status, body={"error": {"message": "slow down"}},
                  headers={"Retry-After": "7"}),
            Reply.chat("<respond>ok</respond>"),
        )  # fmt: skip
        client = LLMClient(
            "openai/fake-model", api_base=server.base_url, timeout=5, max_retries=2,
            backoff_base=0.01, sleep=waits.append,
        )  # fmt: skip
        assert client.complete(HI).text == "<respond>ok</respond>"
    assert waits == [7.0]


def test_a_retry_after_beyond_the_budget_ends_the_call_at_once() -> None:
    waits: list[float] = []
    with FakeOpenAIServer() as server:
        server.enqueue(
            Reply(status=429, body={"error": {"message": "quota"}},
                  headers={"Retry-After": "86400"}),
        )  # fmt: skip
        client = LLMClient(
            "openai/fake-model", api_base=server.base_url, timeout=5, max_retries=3,
            sleep=waits.append,
        )  # fmt: skip
        with pytest.raises(LLMError) as caught:
            client.complete(HI)
    assert waits == [] and caught.value.attempts == 1
    assert "asks to wait 86400 s" in str(caught.value)
