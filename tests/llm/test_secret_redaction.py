"""A key from the provider's environment variable is redacted as one from the config file:
in the error event, the error the caller prints, a crash log and the command line's one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui import errors
from crmarena_tui.cli import main
from crmarena_tui.llm.client import LLMClient, LLMError
from crmarena_tui.settings import crash_log
from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-envkey-0123456789abcdef"


def test_a_401_echoing_the_environment_key_is_redacted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    events: list[dict] = []
    with FakeOpenAIServer() as server:

        def echo(_body: dict) -> Reply:
            sent = server.headers[-1].get("authorization", "").removeprefix("Bearer ")
            message = f"Incorrect API key provided: {sent}. You can find your API key at ..."
            return Reply(status=401, body={"error": {"message": message, "type": "auth"}})

        server.fallback = echo
        client = LLMClient(
            "openai/fake-model", api_base=server.base_url, timeout=5, on_event=events.append
        )
        with pytest.raises(LLMError) as caught:
            client.complete([{"role": "user", "content": "hi"}])
        assert server.headers[-1]["authorization"] == f"Bearer {KEY}"  # the key was sent
    assert "Incorrect API key provided: ***" in str(caught.value)
    assert KEY not in str(caught.value) and KEY[:12] not in str(caught.value)
    assert events and all(KEY not in str(e) for e in events)
    assert "***" in events[-1]["error"]


@pytest.mark.parametrize(
    "variable", ["ANTHROPIC_API_KEY", "GEMINI_API_KEY", "HF_TOKEN", "CRMARENA_TUI_API_KEY"]
)
def test_crash_logs_and_printed_errors_hide_every_credential_variable(
    variable: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(variable, KEY)
    code = crash_log.crash(RuntimeError(f"provider said: bad key {KEY}"), ["crmarena-tui", "run"])
    err = capsys.readouterr().err
    assert code == errors.ExitCode.CRASH and KEY not in err and "***" in err
    log = Path(err.split("the traceback is in ")[1].split(". Please")[0])
    assert KEY not in log.read_text() and "bad key ***" in log.read_text()

    def refuse(_args: object) -> int:
        raise errors.UserError(f"the org refused the key {KEY}")

    monkeypatch.setattr("crmarena_tui.commands.tasks.run_types", refuse)
    assert main(["tasks", "types"]) == 1
    assert capsys.readouterr().err.strip() == "error: the org refused the key ***"


def test_a_remembered_token_is_redacted_and_short_values_are_left() -> None:
    errors.remember_secret("mcp-token-abcdef")
    assert errors.redact("Bearer mcp-token-abcdef") == "Bearer ***"
    errors.remember_secret("short")
    assert errors.redact("a short word") == "a short word"
