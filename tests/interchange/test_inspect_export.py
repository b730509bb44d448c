"""`export --format inspect`: one Inspect eval log per configuration, read back by Inspect's own
reader (`inspect_ai.log.read_eval_log`, a test-only dependency) field by field."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from tests.support.inspect_support import build

log_api = pytest.importorskip("inspect_ai.log")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return build(tmp_path / "s.db")


def _export(db: Path, out: Path, *more: str) -> dict[str, object]:
    assert main(["export", "--format", "inspect", "--out", str(out), "--db", str(db), *more]) == 0
    return {
        log.eval.task_display_name: log
        for log in map(log_api.read_eval_log, sorted(out.glob("*.eval")))
    }


def test_each_configuration_is_one_log_that_inspect_reads(db: Path, tmp_path: Path, capsys) -> None:
    logs = _export(db, tmp_path / "logs")
    assert "wrote 5 session(s) to 3 Inspect log(s)" in capsys.readouterr().out
    assert sorted(logs) == ["ana", "openai/gpt-4o-mini/react", "openai/gpt-4o/react"]
    gpt = logs["openai/gpt-4o/react"]
    assert gpt.status == "success"
    assert gpt.eval.task == "crmarena-pro"
    assert gpt.eval.model == "openai/gpt-4o"
    assert gpt.eval.dataset.samples == 2
    assert gpt.results.total_samples == 2
    assert gpt.results.scores[0].metrics["accuracy"].value == 0.5
    assert gpt.stats.model_usage["openai/gpt-4o"].input_tokens == 600
    assert [(s.id, s.epoch) for s in gpt.samples] == [(1, 1), (2, 1)]
    for path in (tmp_path / "logs").glob("*.eval"):  # the names Inspect gives its own logs
        assert path.name.startswith("2023-11-14T22-")
        assert "_crmarena-pro_" in path.name
        assert zipfile.ZipFile(path).testzip() is None


def test_a_sample_holds_the_messages_score_usage_and_task(db: Path, tmp_path: Path) -> None:
    sample = _export(db, tmp_path / "logs")["openai/gpt-4o/react"].samples[0]
    assert sample.input == "Which agent closed case 1 fastest?"
    assert sample.target == ["005Wt000003NIvNIAW"]
    roles = [(m.role, m.text) for m in sample.messages]
    assert roles == [
        ("system", "You are a CRM agent."),
        ("user", "Which agent closed case 1 fastest?"),
        ("assistant", "Look at the cases."),
        ("tool", '[{"Id": "500"}]'),
        ("user", "no <execute> tag"),
        ("assistant", ""),
        ("tool", "INVALID_FIELD: No such column 'Nme'"),
        ("assistant", "The owner closed it."),
    ]
    query, failed, answer = sample.messages[2], sample.messages[6], sample.messages[7]
    assert query.tool_calls[0].function == "execute_soql"
    assert query.tool_calls[0].arguments == {"query": "SELECT Id FROM Case"}
    assert sample.messages[3].tool_call_id == query.tool_calls[0].id
    assert failed.error.message == "INVALID_FIELD: No such column 'Nme'"
    assert answer.tool_calls[0].function == "respond"
    assert answer.tool_calls[0].arguments == {"content": "005Wt000003NIvNIAW"}
    score = sample.scores["crmarena"]
    assert score.value == 1.0
    assert score.answer == "005Wt000003NIvNIAW"
    assert (
        score.explanation
        == "Your answer is exactly the expected answer (005Wt000003NIvNIAW): correct."
    )
    assert sample.output.completion == "005Wt000003NIvNIAW"
    usage = sample.model_usage["openai/gpt-4o"]
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (300, 50, 350)
    assert usage.total_cost == pytest.approx(0.03)
    assert sample.working_time == 38.0 and sample.total_time == 40.0
    meta = sample.metadata
    assert (meta["task_idx"], meta["task_source"], meta["task_type"]) == (1, "demo", "handle_time")
    assert meta["task_metadata"]["required"] == "## Today's date: 2023-03-27"
    assert meta["configuration"] == "openai/gpt-4o/react"
    assert sample.uuid == meta["crmarena_tui"]["session_uuid"]


def test_labels_and_notes_are_in_the_sample_metadata(db: Path, tmp_path: Path) -> None:
    labels = _export(db, tmp_path / "logs")["openai/gpt-4o/react"].samples[0].metadata["labels"]
    assert [
        (x["kind"], x["level"], x["label"], x["note"], x["annotator"], x["step"]) for x in labels
    ] == [
        ("label", "step", "wrong_filter", "missed the date", "bo", 5),
        ("note", "session", "", "look at owners", "cy", None),
    ]


def test_a_judged_grade_explains_itself_and_an_ungraded_session_has_no_score(
    db: Path, tmp_path: Path
) -> None:
    ana = _export(db, tmp_path / "logs")["ana"]
    chat, open_one = ana.samples
    assert [(m.role, m.text) for m in chat.messages] == [
        ("user", "Hi, I need a case owner."),
        ("assistant", "Which case?"),
        ("user", "Case 4."),
        ("assistant", ""),
    ]
    assert (
        "The judge (openai/gpt-4o) said: The answer names no one: None."
        in chat.scores["crmarena"].explanation
    )
    assert chat.target == ["None"]
    assert open_one.scores is None
    assert ana.results.scores[0].metrics["accuracy"].value == 1.0


def test_the_filters_choose_the_sessions(db: Path, tmp_path: Path) -> None:
    logs = _export(db, tmp_path / "logs", "--where", "gpt-4o-mini")
    assert list(logs) == ["openai/gpt-4o-mini/react"]


def test_a_folder_of_earlier_logs_needs_force_and_a_file_is_refused(
    db: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "logs"
    _export(db, out)
    assert main(["export", "--format", "inspect", "--out", str(out), "--db", str(db)]) == 2
    assert "pass --force" in capsys.readouterr().err
    _export(db, out, "--force", "--where", "ana")
    assert len(list(out.glob("*.eval"))) == 3  # ana's log replaced, the others left
    assert not list(out.glob(".*"))  # no part file left behind
    afile = tmp_path / "x.eval"
    afile.write_text("")
    assert main(["export", "--format", "inspect", "--out", str(afile), "--db", str(db)]) == 2
    assert "name a folder" in capsys.readouterr().err
