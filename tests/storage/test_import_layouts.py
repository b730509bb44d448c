"""Import of upstream result files in every layout upstream wrote, with files written by the test
in upstream's shape (tests/support/upstream_results_support.py): org type and mode from the
folder, the file name or the rows; aided and privacy-aware runs as their own participants; every reward metric;
tool-call answers; merged o1-style prompts; end reasons; infrastructure errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from crmarena_tui.storage.upstream import UpstreamImporter
from tests.support.upstream_results_support import (
    AGENT,
    DOMAIN,
    failed_item,
    fuzzy_item,
    interactive_item,
    react_item,
    tool_call_item,
    write,
)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "sessions.db") as s:
        yield s


def imported(store: Store, root: Path):
    summary = UpstreamImporter(store).import_paths([root])
    assert summary.refused == []
    return summary


def only_session(store: Store):
    (session,) = store.sessions()
    return session


@pytest.mark.parametrize(
    ("relative", "item", "source", "interactive"),
    [
        # the batch script's layout: org and mode from the folders
        (
            "results/b2b/react_openai/results_gpt-4o_react_case_routing.json",
            react_item(),
            "hf:b2b",
            False,
        ),
        (
            "results/b2c/react_openai/results_gpt-4o_react_case_routing.json",
            react_item(),
            "hf:b2c",
            False,
        ),
        (
            "results/b2c_interactive/react_openai/results_gpt-4o_react_lead_routing.json",
            interactive_item(clarifying=False),  # no clarifying turn: still multi-turn
            "hf:b2c_interactive",
            True,
        ),
        (
            "results/b2b_interactive/react_vertex_ai_privacy_aware/results_gemini-2.0-flash-001_react_lead_routing.json",
            interactive_item(),
            "hf:b2b_interactive",
            True,
        ),
        # the names of the result files shared in upstream's repository: the mode from the name
        ("results_gpt-4o_react_case_routing_interactive-False.json", react_item(), "hf:b2b", False),
        (
            "results_gpt-4o_react_lead_routing_interactive-True.json",
            interactive_item(clarifying=False),
            "hf:b2b_interactive",
            True,
        ),
        # nothing in the path: the rows say the mode (interactive prompt, user turns counted)
        (
            "runs/results_gpt-4o_react_lead_routing.json",
            interactive_item(clarifying=False),
            "hf:b2b_interactive",
            True,
        ),
        ("runs/results_gpt-4o_react_case_routing.json", react_item(), "hf:b2b", False),
        # the original CRMArena, tool calling
        (
            "results/original/tool_call_openai/results_gpt-4o_tool_call_handle_time.json",
            tool_call_item(),
            "hf:original",
            False,
        ),
    ],
)
def test_every_layout_files_the_run_under_its_split(
    store: Store, tmp_path: Path, relative: str, item: dict, source: str, interactive: bool
) -> None:
    write(tmp_path, relative, [item])
    imported(store, tmp_path)
    session = only_session(store)
    assert (session.task_source, session.interactive) == (source, interactive)
    assert session.org_ref == f"salesforce:{source.removeprefix('hf:').split('_')[0]}"
    participant = store.get_participant(session.participant_id)
    assert participant.settings["interactive"] is interactive


def test_provider_and_privacy_aware_come_from_the_run_folder(store: Store, tmp_path: Path) -> None:
    write(
        tmp_path,
        "results/b2b/react_together_ai/results_llama4_react_case_routing.json",
        [react_item()],
    )
    write(
        tmp_path,
        "results/b2b/react_together_ai_privacy_aware/results_llama4_react_case_routing.json",
        [react_item()],
    )
    imported(store, tmp_path)
    people = sorted(store.participants(), key=lambda p: p.name)
    assert [p.name for p in people] == ["llama4/react", "llama4/react/privacy-aware"]
    assert [p.settings["privacy_aware"] for p in people] == [False, True]
    assert {p.settings["provider"] for p in people} == {"together_ai"}


def test_privacy_aware_and_aided_runs_are_separate_participants(
    store: Store, tmp_path: Path
) -> None:
    # Shared files carry no folder: the prompts say how the run was set up.
    name = "results_gpt-4o_react_{}_interactive-False.json"
    write(
        tmp_path / "plain",
        name.format("private_customer_information"),
        [react_item(1583, "private_customer_information")],
    )
    write(
        tmp_path / "aware",
        name.format("private_customer_information"),
        [react_item(1583, "private_customer_information", privacy_aware=True)],
    )
    write(tmp_path / "aided", name.format("case_routing"), [react_item(aided=True)])
    imported(store, tmp_path)
    names = sorted(p.name for p in store.participants())
    assert names == ["gpt-4o/react", "gpt-4o/react/aided", "gpt-4o/react/privacy-aware"]
    aided = [s for s in store.sessions() if s.task_type == "case_routing"]
    assert [s.aided for s in aided] == [True]
    assert not any(s.aided for s in store.sessions() if s.task_type != "case_routing")


def test_fuzzy_rewards_keep_every_metric(store: Store, tmp_path: Path) -> None:
    write(tmp_path, "results_gpt-4o_react_knowledge_qa_interactive-False.json", [fuzzy_item()])
    imported(store, tmp_path)
    grade = store.grade(only_session(store).id)
    assert grade is not None and grade.reward == 0.5 and grade.protocol == "upstream"
    for key, value in {
        "f1": 0.5,
        "exact_match": False,
        "bleu": 0.0,
        "rouge1": 0.5,
        "rouge2": 0.0,
        "rougeL": 0.5,
    }.items():
        assert grade.metrics[key] == value


def test_a_tool_call_answer_is_the_respond_calls_content(store: Store, tmp_path: Path) -> None:
    write(tmp_path, "original/results_gpt-4o_tool_call_handle_time.json", [tool_call_item()])
    imported(store, tmp_path)
    session = only_session(store)
    grade = store.grade(session.id)
    assert grade is not None and grade.answer == AGENT
    events = store.events(session.id)
    submits = [e.payload for e in events if e.kind == "submit"]
    assert submits == [{"answer": AGENT}]
    queries = [e.payload for e in events if e.kind == "query"]
    assert queries[0]["tool"] == "get_cases" and queries[0]["arguments"] == {
        "start_date": "2021-01-01"
    }


def test_a_merged_system_prompt_is_split_from_the_query(store: Store, tmp_path: Path) -> None:
    # o1 runs: system prompt (with metadata holding blank lines, and Domain Details when aided)
    # and the query in one first user message.
    write(
        tmp_path / "a",
        "results_o1-2024-12-17_react_case_routing_interactive-False.json",
        [react_item(merged=True)],
    )
    write(
        tmp_path / "b",
        "results_o1-2024-12-17_react_case_routing_interactive-False.json",
        [react_item(1487, merged=True, aided=True)],
    )
    imported(store, tmp_path)
    query = "Which agent should take this new case? Return only the Id of the agent."
    for session in store.sessions():
        events = store.events(session.id)
        assert (events[0].kind, events[1].kind) == ("system", "message")
        assert events[1].payload["text"] == query == session.task_json["query"]
        assert "Break ties by workload." in events[0].payload["text"]
    aided = next(s for s in store.sessions() if s.task_idx == 1487)
    assert aided.aided and store.events(aided.id)[0].payload["text"].endswith(DOMAIN)


def test_the_end_reason_is_kept(store: Store, tmp_path: Path) -> None:
    item = react_item(reward=0)
    item["agent_info"]["end_reason"] = {
        "source": "agent",
        "message": "Max turns reached",
        "content": "...",
    }
    write(tmp_path, "results_gpt-4o_react_case_routing_interactive-False.json", [item])
    imported(store, tmp_path)
    session = only_session(store)
    assert session.settings["end_reason"]["message"] == "Max turns reached"
    grade = store.grade(session.id)
    assert grade is not None and (grade.metrics["end_reason"], grade.metrics["end_source"]) == (
        "Max turns reached",
        "agent",
    )


@pytest.mark.parametrize(
    ("error", "infrastructure"),
    [
        ("litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached", True),
        ("litellm.Timeout: Connection timed out after 600.0 seconds.", True),
        ("litellm.InternalServerError: OpenAIException - The server had an error", True),
        ("list index out of range", False),  # upstream's evaluation crashed on an empty list
        ("litellm.ContextWindowExceededError: prompt is too long", False),
    ],
)
def test_runs_that_died_on_an_infrastructure_error_are_marked(
    store: Store, tmp_path: Path, error: str, infrastructure: bool
) -> None:
    write(
        tmp_path,
        "results_gpt-4o_react_case_routing_interactive-False.json",
        [failed_item(1483, error)],
    )
    summary = imported(store, tmp_path)
    session = only_session(store)
    grade = store.grade(session.id)
    assert grade is not None and grade.reward == 0.0 and error in str(grade.metrics["api_error"])
    assert ("infrastructure_error" in grade.metrics) is infrastructure
    assert ("infrastructure_error" in session.settings) is infrastructure
    assert ("run_error" in grade.metrics) is not infrastructure
    assert summary.infrastructure == int(infrastructure)


def test_a_run_that_met_an_org_outage_is_marked(store: Store, tmp_path: Path) -> None:
    item = react_item(reward=0)
    item["traj"][3]["content"] = (
        "Salesforce instance output: API_CURRENTLY_DISABLED: API is disabled"
    )
    write(tmp_path, "results_gpt-4o_react_case_routing_interactive-False.json", [item])
    imported(store, tmp_path)
    grade = store.grade(only_session(store).id)
    assert grade is not None and "API_CURRENTLY_DISABLED" in str(
        grade.metrics["infrastructure_error"]
    )


def test_the_import_line_counts_infrastructure_errors(tmp_path: Path, capsys) -> None:
    items = [react_item(), failed_item(1487, "RateLimitError: slow down")]
    write(tmp_path, "runs/results_gpt-4o_react_case_routing_interactive-False.json", items)
    assert main(["import", str(tmp_path / "runs"), "--db", str(tmp_path / "s.db")]) == 0
    out = capsys.readouterr().out
    assert (
        "2 session(s) imported" in out
        and "1 of those imported ended on an infrastructure error" in out
    )


def test_a_file_retried_after_a_failed_write_gets_its_participant_again(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "results_gpt-4o_react_case_routing_interactive-False.json", [react_item()])
    from crmarena_tui.storage.bulk import BulkWriter

    importer = UpstreamImporter(store)
    real = BulkWriter.flush

    def full(self: BulkWriter) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(BulkWriter, "flush", full)
    with pytest.raises(OSError):
        importer.import_paths([tmp_path])
    assert store.participants() == []
    monkeypatch.setattr(BulkWriter, "flush", real)
    assert importer.import_paths([tmp_path]).imported == 1
    session = only_session(store)
    assert store.get_participant(session.participant_id).name == "gpt-4o/react"


def test_secret_named_keys_in_a_file_never_reach_the_database(store: Store, tmp_path: Path):
    """Whatever the file carries under a secret-looking name (in `agent_info`, its usage and end
    reason, a tool call's arguments, the reward's metrics) is dropped before writing."""
    secret = "sk-FROM-THE-FILE-MUST-NOT-BE-STORED"
    item = tool_call_item(9)
    item["agent_info"]["usage"]["api_key"] = [secret]
    item["agent_info"]["end_reason"]["headers"] = {"Authorization": secret, "status": 200}
    call = item["traj"][2]["tool_calls"][0]["function"]
    call["arguments"] = f'{{"start_date": "2021-01-01", "api_key": "{secret}"}}'
    fuzzy = fuzzy_item()
    fuzzy["reward"]["secret_token"] = 0.5
    write(tmp_path, "b2b/results_gpt-4o_react_handle_time_interactive-False.json", [item, fuzzy])
    imported(store, tmp_path / "b2b")
    sessions = store.sessions()
    assert len(sessions) == 2
    events = [e for s in sessions for e in store.events(s.id)]
    usage = next(e.payload for e in events if e.kind == "usage")
    assert "api_key" not in usage["per_call"] and usage["end_reason"]["headers"] == {"status": 200}
    query = next(e.payload for e in events if e.kind == "query")
    assert query["arguments"] == {"start_date": "2021-01-01"}
    stored = b"".join(f.read_bytes() for f in store.path.parent.iterdir() if f.is_file())
    assert secret.encode() not in stored and b"secret_token" not in stored
