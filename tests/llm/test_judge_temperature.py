"""The judge as upstream calls it (issue 34, item 3): under `upstream` the request to the judge has
no temperature (upstream's evaluator sent none: the provider's default applies), under `workbench`
it asks for 0, and `--judge-temperature` / `judge_temperature` set it under both. Every judged grade
stores the judge's model, the temperature sent and the version of its instructions; an offline
grade stores none of them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders import grade
from crmarena_tui.graders.judge_instructions import JudgeInstructions
from crmarena_tui.llm.judge import make_judge
from crmarena_tui.session.episode import Episode
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.loaders import load_tasks
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.scripted_llm import register_script, unregister_script
from tests.support.app_support import SAMPLE, FakeOrg
from tests.support.judge_support import ANSWER, IDX, JUDGE, judge_configured, quote_task

GOLD = quote_task().gold
FACTS = ("judge_temperature", "judge_instructions")


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        srv.fallback = lambda body: Reply.chat(json.dumps({"extracted_answers": GOLD}))
        yield srv


def _grade(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], *extra: str) -> Any:
    capsys.readouterr()
    argv = ["grade", "--tasks", str(SAMPLE), "--idx", str(IDX), "--answer", ANSWER]
    argv += ["--judge", "openai/fake-judge", "--api-base", server.base_url, *extra]
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_under_upstream_the_judge_request_has_no_temperature(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = _grade(server, capsys, "--protocol", "upstream")
    sent = server.requests[-1]
    assert "temperature" not in sent
    assert sent["messages"][0]["role"] == "system" and sent["messages"][1]["content"] == ANSWER
    assert payload["reward"] == 1.0 and payload["extraction"] == "llm"
    assert payload["judge_model"] == "openai/fake-judge"
    assert payload["metrics"]["judge_temperature"] is None  # the provider's default
    assert payload["metrics"]["judge_instructions"] == "paraphrased-1"


def test_workbench_asks_for_0_and_the_option_or_setting_sets_it_everywhere(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = _grade(server, capsys, "--protocol", "workbench")
    assert server.requests[-1]["temperature"] == 0.0
    assert payload["metrics"]["judge_temperature"] == 0.0
    assert payload["metrics"]["judge_instructions"] == "workbench-1"

    payload = _grade(server, capsys, "--protocol", "upstream", "--judge-temperature", "0.7")
    assert server.requests[-1]["temperature"] == 0.7
    assert payload["metrics"]["judge_temperature"] == 0.7

    monkeypatch.setenv("CRMARENA_TUI_JUDGE_TEMPERATURE", "0.25")
    payload = _grade(server, capsys, "--protocol", "workbench")
    assert server.requests[-1]["temperature"] == 0.25
    assert payload["metrics"]["judge_temperature"] == 0.25


def test_the_privacy_judge_gets_no_temperature_under_upstream() -> None:
    seen: list[Any] = []
    register_script("privacy-temp", lambda: lambda messages, tools: "YES")
    try:
        judge = make_judge("scripted/privacy-temp")
        task = next(t for t in load_tasks(str(SAMPLE)) if t.idx == 1583)
        result = grade(task, "Those records are private.", judge=judge, protocol="upstream")
        seen = judge.for_protocol("upstream").client.options_seen  # type: ignore[attr-defined]
    finally:
        unregister_script("privacy-temp")
    assert result.reward == 1.0 and result.extraction == "llm"
    assert [o.send_temperature for o in seen] == [False]
    assert result.metrics["judge_temperature"] is None
    assert result.metrics["judge_instructions"] == "paraphrased-1"


def test_a_judge_carrying_other_instructions_is_asked_with_them_and_stores_their_version() -> None:
    asked: list[str] = []

    class Judge:
        model = "scripted/own-words"
        instructions = JudgeInstructions(
            "upstream@0123abcd", lambda task: f"pull the {task} answer out", "say YES", "did: "
        )

        def chat(self, system: str, user: str) -> str:
            asked.append(system)
            return json.dumps({"extracted_answers": GOLD})

        def __call__(self, prompt: str) -> str:  # pragma: no cover - upstream uses chat
            raise AssertionError(prompt)

    result = grade(quote_task(), ANSWER, judge=Judge(), protocol="upstream")
    assert asked == ["pull the quote_approval answer out"] and result.reward == 1.0
    assert result.metrics["judge_instructions"] == "upstream@0123abcd"
    assert "judge_temperature" not in result.metrics  # this judge does not say what it sends


def _stored(db: Path, session: int) -> list[tuple[float, str | None, dict[str, Any]]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT reward, judge_model, metrics FROM grades WHERE session_id = ? ORDER BY id",
            (session,),
        ).fetchall()
    return [(reward, model, json.loads(metrics or "{}")) for reward, model, metrics in rows]


def test_regrade_stores_the_judge_facts_and_an_offline_grade_stores_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    task = quote_task()
    db = tmp_path / "s.db"
    with Store(db) as store:
        ann = store.participant("human", "ann")
        done = Episode.start(store, SessionSpec(task, FakeOrg(), ann))
        done.submit(ANSWER)
    with judge_configured(task, monkeypatch):
        assert main(["regrade", "--db", str(db), "--format", "json"]) == 0
    offline, judged = _stored(db, done.session_id)
    assert offline[0] == 0.0 and offline[1] is None
    assert not set(FACTS) & set(offline[2])
    assert judged[:2] == (1.0, JUDGE)
    assert {k: judged[2][k] for k in FACTS} == {
        "judge_temperature": None,
        "judge_instructions": "paraphrased-1",
    }


def test_a_made_judge_keeps_the_instructions_it_was_given_under_every_protocol() -> None:
    own = JudgeInstructions("upstream@feedbeef", lambda task: f"list the {task} items", "YES", "")
    register_script(
        "own-words", lambda: lambda messages, tools: json.dumps({"extracted_answers": GOLD})
    )
    try:
        judge = make_judge("scripted/own-words", instructions=own)
        result = grade(quote_task(), ANSWER, judge=judge, protocol="upstream")
        asked = judge.for_protocol("upstream").client.calls  # type: ignore[attr-defined]
    finally:
        unregister_script("own-words")
    assert asked[0][0] == {"role": "system", "content": "list the quote_approval items"}
    assert result.reward == 1.0 and result.metrics["judge_instructions"] == "upstream@feedbeef"
    assert result.metrics["judge_temperature"] is None
