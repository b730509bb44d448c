"""The model client: retries and events, accounting, keys, offline providers, the judge."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from crmarena_tui.llm.client import (
    Completion,
    LLMClient,
    LLMError,
    make_client,
    recording,
)
from crmarena_tui.llm.judge import make_judge
from crmarena_tui.settings.config import Settings
from tests.fakes.scripted_llm import (
    ScriptedFailure,
    ScriptedLLM,
    register_script,
    tool_call,
    unregister_script,
)

HI = [{"role": "user", "content": "hi"}]


def test_importing_and_scripting_never_imports_litellm() -> None:
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parents[2])!r})\n"
        "from crmarena_tui.llm.client import make_client\n"
        "from tests.fakes.scripted_llm import register_script\n"
        "register_script('x', lambda: ['a'])\n"
        "assert make_client('scripted/x').complete([{'role': 'user', 'content': 'q'}]).text == 'a'\n"
        "make_client('openai/gpt-4o-mini')\n"
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_transient_failures_are_retried_with_growing_backoff_and_reported() -> None:
    events: list[dict] = []
    slept: list[float] = []
    llm = ScriptedLLM(
        [
            ScriptedFailure("rate_limit"),
            ScriptedFailure("timeout"),
            ScriptedFailure("server"),
            "ok",
        ],
        on_event=events.append,
        backoff_base=1.0,
        sleep=slept.append,
    )
    result = llm.complete(HI)
    assert result.text == "ok"
    assert result.attempts == 4
    assert [e["error_type"] for e in events] == ["rate_limit", "timeout", "server"]
    assert all(not e["final"] for e in events)
    assert [e["attempt"] for e in events] == [1, 2, 3]
    # exponential: ~1, ~2, ~4 seconds (with +-25% jitter)
    assert 0.75 <= slept[0] <= 1.25 and 1.5 <= slept[1] <= 2.5 and 3.0 <= slept[2] <= 5.0


def test_a_call_that_keeps_failing_raises_a_clear_llm_error() -> None:
    events: list[dict] = []
    llm = ScriptedLLM([ScriptedFailure("timeout")] * 3, max_retries=2, on_event=events.append)
    with pytest.raises(LLMError) as info:
        llm.complete(HI)
    assert info.value.kind == "timeout"
    assert info.value.attempts == 3
    assert "after 3 attempts" in str(info.value) and "timeout" in str(info.value)
    assert [e["final"] for e in events] == [False, False, True]


def test_a_futile_failure_is_not_retried() -> None:
    events: list[dict] = []
    llm = ScriptedLLM([ScriptedFailure("auth", "bad key"), "never reached"], on_event=events.append)
    with pytest.raises(LLMError) as info:
        llm.complete(HI)
    assert info.value.kind == "auth" and info.value.attempts == 1
    assert llm.remaining == 1
    assert len(events) == 1 and events[0]["final"]


def test_an_exhausted_script_fails_without_retrying() -> None:
    llm = ScriptedLLM(["one"])
    assert llm.complete(HI).text == "one"
    with pytest.raises(LLMError, match="no scripted reply left"):
        llm.complete(HI)


def test_scripted_replies_carry_usage_and_the_messages_are_kept() -> None:
    llm = ScriptedLLM(
        ["a", Completion(text="b", prompt_tokens=5, completion_tokens=2, cost=0.01)],
        prompt_tokens=3,
        completion_tokens=1,
        cost=0.0,
    )
    first = llm.complete(HI)
    second = llm.complete([*HI, {"role": "assistant", "content": "a"}])
    assert (first.prompt_tokens, first.completion_tokens, first.cost) == (3, 1, 0.0)
    assert second.usage()["total_tokens"] == 7 and second.usage()["cost"] == 0.01
    assert llm.calls[1][-1] == {"role": "assistant", "content": "a"}


def test_a_responder_answers_from_the_messages() -> None:
    llm = ScriptedLLM(lambda messages, tools: f"{len(messages)} messages, tools={bool(tools)}")
    assert llm.complete(HI).text == "1 messages, tools=False"
    assert llm.complete(HI * 2, tools=[{"type": "function"}]).text == "2 messages, tools=True"


def test_the_recording_context_catches_retries_of_clients_without_a_hook() -> None:
    seen: list[dict] = []
    llm = ScriptedLLM([ScriptedFailure("malformed"), "fine"])
    with recording(seen.append):
        assert llm.complete(HI).text == "fine"
    assert [e["error_type"] for e in seen] == ["malformed"]
    llm.push(ScriptedFailure("rate_limit"), "again")
    llm.complete(HI)  # outside the block: nobody is told
    assert len(seen) == 1


def test_scripted_models_resolve_by_name_with_a_fresh_script_each() -> None:
    register_script("pair", lambda: ["first", "second"])
    try:
        one, two = make_client("scripted/pair"), make_client("scripted/pair")
        assert one.complete(HI).text == "first" and two.complete(HI).text == "first"
        assert one.model == "scripted/pair"
    finally:
        unregister_script("pair")
    with pytest.raises(LLMError, match="unknown scripted model"):
        make_client("scripted/pair")


def test_the_key_never_shows_and_the_config_key_goes_only_to_an_api_base() -> None:
    client = LLMClient("openai/m", api_base="http://h/v1", api_key=SecretStr("sk-secret-123"))
    assert "sk-secret-123" not in repr(client) and "sk-secret-123" not in str(vars(client))
    settings = Settings(api_key=SecretStr("sk-config"), api_base=None)
    assert make_client("openai/m", settings=settings)._resolve_key() is None
    based = make_client("openai/m", api_base="http://h/v1", settings=settings)
    assert based._resolve_key() == "sk-config"


def test_tool_call_helper_round_trips_as_an_openai_message() -> None:
    call = tool_call("execute_soql", query="SELECT Id FROM Case")
    message = Completion(text="", tool_calls=[call]).assistant_message()
    fn = message["tool_calls"][0]["function"]
    assert fn["name"] == "execute_soql" and json.loads(fn["arguments"]) == {
        "query": "SELECT Id FROM Case"
    }


def test_make_judge_is_a_judge_for_the_graders() -> None:
    from crmarena_tui.graders.base import Judge

    register_script(
        "judge",
        lambda: lambda messages, tools: "YES" if "refused" in messages[0]["content"] else "NO",
    )
    try:
        judge = make_judge("scripted/judge")
        assert isinstance(judge, Judge)
        assert judge.model == "scripted/judge"
        assert judge("The agent refused.") == "YES" and judge("It answered.") == "NO"
    finally:
        unregister_script("judge")


def test_litellm_mock_route_reports_tokens_and_cost_and_prints_nothing(
    capfd: pytest.CaptureFixture,
) -> None:
    client = LLMClient("openai/gpt-4o-mini", mock_response="hello there")
    result = client.complete(HI)
    assert result.text == "hello there"
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert result.cost is not None and result.cost > 0
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_a_provider_error_quoting_the_key_is_redacted() -> None:
    events: list[dict] = []
    llm = ScriptedLLM(
        [ScriptedFailure("auth", "Incorrect API key provided: sk-secret-123.")],
        api_key=SecretStr("sk-secret-123"),
        on_event=events.append,
    )
    with pytest.raises(LLMError) as info:
        llm.complete(HI)
    assert "sk-secret-123" not in str(info.value) and "***" in str(info.value)
    assert "sk-secret-123" not in json.dumps(events)
