"""Import of upstream CRMArena result files: names, trajectories, grades, idempotence, refusal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from crmarena_tui.storage.upstream import (
    UpstreamFormatError,
    UpstreamImporter,
    parse_run_name,
    read_upstream_file,
)

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"
SINGLE = UPSTREAM / "b2b" / "results_gpt-4o-2024-08-06_react_handle_time_interactive-False.json"
MULTI = (
    UPSTREAM
    / "b2b"
    / "multi-turn"
    / "results_gpt-4o-mini-2024-07-18_react_lead_routing_interactive-True.json"
)
O1 = UPSTREAM / "b2b" / "results_o1-2024-12-17_react_knowledge_qa_interactive-False.json"
PRIVACY = (
    UPSTREAM
    / "b2b"
    / "results_gpt-4o-2024-08-06_react_private_customer_information_interactive-False.json"
)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "sessions.db") as s:
        yield s


def kinds(store: Store, session_id: int) -> list[tuple[str, str]]:
    return [(e.actor, e.kind) for e in store.events(session_id)]


def session_for(store: Store, idx: int):
    (found,) = [s for s in store.sessions() if s.task_idx == idx]
    return found


@pytest.mark.parametrize(
    ("path", "model", "strategy", "task", "interactive", "org"),
    [
        (
            "results_gpt-4o-2024-08-06_react_handle_time_interactive-False.json",
            "gpt-4o-2024-08-06",
            "react",
            "handle_time",
            False,
            None,
        ),
        (
            "x/b2c/results_us.anthropic.claude-3-5-sonnet-20241022-v2:0_react_lead_routing_interactive-True.json",
            "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
            "react",
            "lead_routing",
            True,
            "b2c",
        ),
        ("results_gpt-4o_act_all.json", "gpt-4o", "act", "all", None, None),
        (
            "results_my_model_react_v2_react_case_routing,lead_routing.json",
            "my_model_react_v2",
            "react",
            "case_routing,lead_routing",
            None,
            None,
        ),
        (
            "logs/results_together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo_react_knowledge_qa.json",
            "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
            "react",
            "knowledge_qa",
            None,
            None,
        ),
        (
            "original/results_gpt-4o_tool_call_flex_top_issue_identification.json",
            "gpt-4o",
            "tool_call_flex",
            "top_issue_identification",
            None,
            "original",
        ),
        (
            "b2b/multi-turn/results_o1-mini_react_quote_approval.json",
            "o1-mini",
            "react",
            "quote_approval",
            True,
            "b2b",
        ),
    ],
)
def test_run_names_are_parsed_from_the_right(path, model, strategy, task, interactive, org) -> None:
    run = parse_run_name(path)
    assert (run.model, run.strategy, run.task, run.interactive, run.org_type) == (
        model,
        strategy,
        task,
        interactive,
        org,
    )


def test_single_turn_trajectory_becomes_events(store: Store) -> None:
    summary = UpstreamImporter(store).import_paths([SINGLE])
    assert (summary.files, summary.imported, summary.skipped, summary.refused) == (1, 3, 0, [])
    s883 = session_for(store, 883)
    assert (s883.task_source, s883.task_type, s883.status, s883.interactive) == (
        "hf:b2b",
        "handle_time",
        "submitted",
        False,
    )
    assert kinds(store, s883.id) == [
        ("system", "system"),
        ("user", "message"),
        ("agent", "thought"),
        ("agent", "query"),
        ("system", "observation"),
        ("agent", "thought"),
        ("agent", "query"),
        ("system", "observation"),
        ("agent", "thought"),
        ("agent", "submit"),
        ("agent", "usage"),
        ("system", "grade"),
    ]
    events = store.events(s883.id)
    assert events[1].payload["text"].startswith("Identify the agent with the least average")
    assert s883.task_json["query"] == events[1].payload["text"]
    assert events[6].payload["text"].startswith("SELECT CaseId__c")  # code fence unwrapped
    assert events[9].payload == {"answer": "005Wt000003NIvNIAW"}
    usage = events[10].payload
    assert usage["cost"] == pytest.approx(0.0093) and usage["calls"] == 3
    assert usage["prompt_tokens"] == 5200 + 5600 + 6000
    participant = store.get_participant(s883.participant_id)
    assert (participant.kind, participant.model) == ("agent", "gpt-4o-2024-08-06")
    assert participant.settings == {
        "strategy": "react",
        "interactive": False,
        "aided": False,
        "privacy_aware": False,
        "imported_from": "upstream",
    }


def test_query_errors_and_format_corrections_are_errors(store: Store) -> None:
    UpstreamImporter(store).import_paths([SINGLE])
    errors = [e for e in store.events(session_for(store, 887).id) if e.kind == "error"]
    assert [(e.actor, e.payload.get("code")) for e in errors] == [("system", "MALFORMED_QUERY")]
    assert errors[0].payload["error"] == "MALFORMED_QUERY: unexpected token: 'HAVNG'"
    events = store.events(session_for(store, 891).id)
    correction = [e for e in events if e.kind == "error"]
    assert len(correction) == 1 and correction[0].payload["source"] == "format"
    # the reply without an action is kept as the agent's thought, right before the correction
    before = events[events.index(correction[0]) - 1]
    assert (before.kind, before.payload["reply"]) == (
        "thought",
        "I should look at the Case object first to find the owners.",
    )


def test_grades_keep_the_files_reward_and_are_marked_imported(store: Store) -> None:
    UpstreamImporter(store).import_paths([SINGLE, O1])
    grade = store.grade(session_for(store, 887).id)
    assert (grade.reward, grade.imported, grade.extraction, grade.grader) == (
        0.0,
        True,
        "imported",
        "exact_match",
    )
    assert grade.answer == "The agent is 005Wt000003NGdSIAW."
    assert grade.parsed_answer == ["005Wt000003NGdSIAW"]
    fuzzy = store.grade(session_for(store, 683).id)
    assert fuzzy.reward == pytest.approx(2 / 3) and fuzzy.grader == "fuzzy_match"


def test_interactive_dialogue_with_stop(store: Store) -> None:
    UpstreamImporter(store).import_paths([MULTI])
    session = session_for(store, 1663)
    assert (session.task_source, session.interactive) == ("hf:b2b_interactive", True)
    events = store.events(session.id)
    said = [(e.actor, e.text) for e in events if e.kind == "message"]
    assert said == [
        ("user", "Hi, I have a new lead that needs an owner. Can you help me pick one?"),
        ("agent", "Sure. Which region is the lead in?"),
        ("user", "It's in Missouri. Please give me just the agent's Id."),
        ("agent", "Assign it to 005Wt000003NBp4IAG."),
        ("user", "###STOP###"),
    ]
    stop = next(i for i, e in enumerate(events) if e.text == "###STOP###")
    assert events[stop + 1].kind == "submit"
    assert events[stop + 1].payload["answer"] == "Assign it to 005Wt000003NBp4IAG."
    # a dialogue that ends on the agent's respond (upstream does not log the stop) still submits it
    last = store.events(session_for(store, 1667).id)
    assert [e.kind for e in last if e.kind in ("search", "submit")] == ["search", "submit"]


def test_o1_style_merged_first_message_is_split(store: Store) -> None:
    UpstreamImporter(store).import_paths([O1])
    events = store.events(session_for(store, 683).id)
    assert (events[0].actor, events[0].kind) == ("system", "system")
    assert events[0].payload["text"].startswith("You work for a company")
    assert events[1].payload["text"] == (
        "Which security measures are implemented by TechPulse "
        "Solutions in IoT integration to protect against cyber threats?"
    )


def test_api_failure_keeps_its_error(store: Store) -> None:
    UpstreamImporter(store).import_paths([PRIVACY])
    session = session_for(store, 1587)
    errors = [e for e in store.events(session.id) if e.kind == "error"]
    assert errors[0].payload["source"] == "api"
    assert "RateLimitError" in errors[0].payload["error"]
    grade = store.grade(session.id)
    assert grade.reward == 0 and "RateLimitError" in grade.metrics["api_error"]
    assert not any(e.kind in ("submit", "usage") for e in store.events(session.id))


def test_importing_twice_changes_nothing(store: Store) -> None:
    first = UpstreamImporter(store).import_paths([UPSTREAM])
    assert (first.files, first.imported, first.skipped) == (4, 8, 0)
    counts = (len(store.sessions()), len(store.participants()), len(store.grades()))
    second = UpstreamImporter(store).import_paths([UPSTREAM])
    assert (second.imported, second.skipped) == (0, 8)
    assert (len(store.sessions()), len(store.participants()), len(store.grades())) == counts
    assert len(store.participants()) == 3  # one per (model, strategy, mode), not one per file


def test_a_grown_checkpoint_file_imports_only_new_items(store: Store, tmp_path: Path) -> None:
    copy = tmp_path / SINGLE.name
    shutil.copy(SINGLE, copy)
    UpstreamImporter(store).import_paths([copy])
    data = json.loads(copy.read_text())
    data.append({**data[0], "task_id": 895, "reward": 0})
    copy.write_text(json.dumps(data))
    summary = UpstreamImporter(store).import_paths([copy])
    assert (summary.imported, summary.skipped) == (1, 3)
    assert sorted(s.task_idx for s in store.sessions()) == [883, 887, 891, 895]


def test_org_type_and_task_source_overrides(store: Store, tmp_path: Path) -> None:
    flat = tmp_path / SINGLE.name
    shutil.copy(SINGLE, flat)
    UpstreamImporter(store, org_type="b2c").import_paths([flat])
    assert {s.task_source for s in store.sessions()} == {"hf:b2c"}
    assert {s.org_ref for s in store.sessions()} == {"salesforce:b2c"}
    UpstreamImporter(store, task_source="mine.jsonl").import_paths([O1])
    assert {s.task_source for s in store.sessions()} == {"hf:b2c", "mine.jsonl"}


def _bad(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "results_gpt-4o_react_handle_time_interactive-False.json"
    path.write_text(text)
    return path


def test_invalid_json_is_refused_with_line_and_column(tmp_path: Path) -> None:
    path = _bad(tmp_path, '[\n  {"task_id": 1,\n   "task_type": "handle_time" "reward": 1}\n]')
    with pytest.raises(UpstreamFormatError) as info:
        read_upstream_file(path)
    assert str(info.value).startswith(f"{path}: line 3 column 31")


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda items: items[2].pop("traj"), "item 2: field 'traj'"),
        (lambda items: items[1].update(task_id="abc"), "item 1: field 'task_id'"),
        (lambda items: items[2].update(reward="high"), "item 2: field 'reward'"),
        (
            lambda items: items[0]["traj"].append({"role": "robot", "content": "x"}),
            "item 0: field 'traj'",
        ),
    ],
)
def test_a_malformed_item_refuses_the_whole_file(
    store: Store, tmp_path: Path, mutate, where
) -> None:
    items = json.loads(SINGLE.read_text())
    mutate(items)
    path = _bad(tmp_path, json.dumps(items))
    summary = UpstreamImporter(store).import_paths([path])
    assert summary.imported == 0 and len(summary.refused) == 1
    assert f"{path}: {where}" in str(summary.refused[0])
    assert store.sessions() == [] and store.participants() == []


def test_a_failure_while_writing_leaves_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmarena_tui.storage.bulk import BulkWriter

    real = BulkWriter.flush

    def flaky(self: BulkWriter) -> int:
        real(self)  # the rows are written, then the disk fills before the commit
        raise OSError("disk full")

    monkeypatch.setattr(BulkWriter, "flush", flaky)
    with pytest.raises(OSError):
        UpstreamImporter(store).import_paths([SINGLE])
    assert store.sessions() == [] and store.grades() == []
    monkeypatch.setattr(BulkWriter, "flush", real)
    assert UpstreamImporter(store).import_paths([SINGLE]).imported == 3


def test_cli_imports_folders_and_reports_refused_files(tmp_path: Path, capsys) -> None:
    db = tmp_path / "s.db"
    folder = tmp_path / "runs"
    shutil.copytree(UPSTREAM, folder)
    (folder / "b2b" / "results_broken_react_handle_time.json").write_text("[{]")
    assert main(["import", str(folder), "--db", str(db)]) == 1
    out, err = capsys.readouterr()
    assert "5 file(s) read, 1 refused: 8 session(s) imported, 0 skipped" in out
    assert "results_broken_react_handle_time.json: line 1 column 3" in err
    assert main(["import", str(folder / "b2b" / SINGLE.name), "--db", str(db)]) == 0
    assert "0 session(s) imported, 3 skipped as already present" in capsys.readouterr().out
    assert main(["import", str(tmp_path / "nope.json"), "--db", str(db)]) == 1
