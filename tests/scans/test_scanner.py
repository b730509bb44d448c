"""The scanner (scans/scanner.py) against a model on a loopback OpenAI server, through litellm:
readings stored as suggestions with cost and step, each session read once, a failed call
recorded and tried again on the next run, a bad reply asked again, a rubric's answer checked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from crmarena_tui.llm.client import make_client
from crmarena_tui.scans.prompts import BadReply, reply_object
from crmarena_tui.scans.scanner import Question, Scanner
from crmarena_tui.settings.config import DEFAULT_TAXONOMY
from crmarena_tui.storage import Store
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.support.scan_support import ScannerModel, failed_sessions

MODEL = "openai/gpt-4o-mini"  # (priced in litellm's map: the readings' cost is known)
LABELS = Question("labels", DEFAULT_TAXONOMY)


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "s.db") as s:
        yield s


def _scanner(store: Store, server: FakeOpenAIServer, question: Question = LABELS, **kw) -> Scanner:
    scan = store.suggestions.start(
        "t", kind=question.kind, model=MODEL, prompt_version=question.prompt_version,  # type: ignore[arg-type]
        taxonomy=question.taxonomy, rubric=question.rubric, question=question.question,
        answer_schema=question.answer_schema,
    )  # fmt: skip
    client = make_client(MODEL, api_base=server.base_url, max_retries=1, backoff_base=0.0)
    return Scanner(store, scan, question, client, **kw)


def test_each_session_is_read_once_and_its_suggestion_stored_with_cost(store: Store) -> None:
    ids = failed_sessions(store, 6)
    model = ScannerModel()
    with FakeOpenAIServer(fallback=model) as server:
        first = _scanner(store, server, concurrency=3).run(ids)
        again = _scanner(store, server, concurrency=3).run(ids)
    assert (first.read, first.failed, again.read, again.skipped) == (6, 0, 0, 6)
    assert model.asked == {sid: 1 for sid in ids}
    odd = next(s for s in ids if s % 2)
    (found,) = store.suggestions.of_session(odd)
    assert (found.label, found.event_seq, found.reason) == ("wrong object", 2, "It queried Case.")
    assert found.model == MODEL and found.tokens_in == 1000 and found.tokens_out == 30
    assert found.cost is not None and found.cost > 0
    scan_id = found.scan_id
    assert store.suggestions.totals(scan_id).cost == pytest.approx(6 * found.cost)
    assert store.suggestions.scan(scan_id).finished_at is not None
    assert store.annotations.find(kind=None) == []


def test_a_failed_call_is_recorded_and_read_on_the_next_run(store: Store) -> None:
    ids = failed_sessions(store, 3)
    model = ScannerModel()
    with FakeOpenAIServer(fallback=model) as server:
        server.enqueue(Reply(status=400, body={"error": {"message": "context too long"}}))
        progress = _scanner(store, server).run(ids)
        scan_id = store.suggestions.scans()[0].id
        (failed,) = [r for r in store.suggestions.readings(scan_id) if r["status"] == "failed"]
        assert (progress.read, progress.failed) == (2, 1)
        assert "context too long" in failed["error"]
        assert store.suggestions.scan(scan_id).finished_at is None
        assert _scanner(store, server).run(ids).read == 1
    assert store.suggestions.read_sessions(scan_id) == set(ids)


def test_a_reply_that_is_not_the_json_asked_for_is_asked_again(store: Store) -> None:
    (sid,) = failed_sessions(store, 1)
    with FakeOpenAIServer(fallback=ScannerModel(bad_first=True)) as server:
        server_requests = server.requests
        assert _scanner(store, server).run([sid]).read == 1
    asked_again = server_requests[-1]["messages"][-1]["content"]
    assert "holds no JSON object" in asked_again
    (reading,) = store.suggestions.readings(store.suggestions.scans()[0].id)
    assert (reading["attempts"], reading["tokens_in"]) == (2, 2000)


def test_a_reply_is_read_fenced_or_not_and_a_bad_one_says_what_is_wrong() -> None:
    for text in (
        '{"labels": []}', ' ```json\n{"labels": []}\n``` ', '```JSON {"labels": []}```',
        'Here it is: {"labels": []} (done)', '\n{"labels": []}\n',
    ):  # fmt: skip
        assert reply_object(text) == {"labels": []}
    for text, why in (
        ('{"labels": []} {"more": 1}', "does not parse: Extra data: line 1 column 16"),
        ('{"labels": [}', "does not parse: Expecting value: line 1 column 13"),
        ('{"labels": ["a" "b"]}', "does not parse: Expecting ',' delimiter"),
        ("[1, 2]", "holds no JSON object"), ('{"labels": [', "holds no JSON object"),
    ):  # fmt: skip
        with pytest.raises(BadReply, match=why):
            reply_object(text)


def test_a_rubric_answer_is_stored_as_json(store: Store) -> None:
    ids = failed_sessions(store, 2)
    schema = {
        "type": "object",
        "properties": {"blamed_user": {"type": "boolean"}},
        "required": ["blamed_user"],
    }
    question = Question("rubric", (), "blame", "Did the agent blame the user?", schema)
    with FakeOpenAIServer(fallback=ScannerModel()) as server:
        assert _scanner(store, server, question).run(ids).read == 2
    answers = {s.session_id: s.answer for s in store.suggestions.of_scan(1)}
    assert answers == {sid: {"blamed_user": sid % 2 == 1} for sid in ids}
