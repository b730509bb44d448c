"""`import` of Inspect eval logs: this project's own export read back into the very sessions
(the round trip), logs written by Inspect's own writer (`inspect_ai.log.write_eval_log`, a
test-only dependency) read as sessions of their configuration, and a broken sample refused with
the file, the sample and the field named, nothing of its file imported."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from tests.support.inspect_support import build
from tests.support.interchange_support import database_contents

DEMO_QUERY = (
    "Which agent had the lowest average handle time in the past five months, counting only "
    "agents who handled more than zero cases? Return only the Id of the agent."
)


def _export(db: Path, out: Path) -> list[Path]:
    assert main(["export", "--format", "inspect", "--out", str(out), "--db", str(db)]) == 0
    return sorted(out.glob("*.eval"))


def test_export_then_import_gives_the_same_sessions_events_grades_and_labels(
    tmp_path: Path, capsys
) -> None:
    db = build(tmp_path / "s.db")
    _export(db, tmp_path / "logs")
    back = tmp_path / "back.db"
    assert main(["import", str(tmp_path / "logs"), "--db", str(back)]) == 0
    assert "3 trajectory file(s) read (3 inspect): 5 session(s) imported" in capsys.readouterr().out
    assert database_contents(back) == database_contents(db)
    assert main(["import", str(tmp_path / "logs"), "--db", str(back)]) == 0  # again: nothing new
    assert "0 session(s) imported, 5 skipped" in capsys.readouterr().out
    assert database_contents(back) == database_contents(db)


def _foreign_log(path: Path, *, score: object = "C") -> Path:
    """A log as another harness's Inspect task writes it, by Inspect's own writer."""
    log_api = pytest.importorskip("inspect_ai.log")
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall

    spec = log_api.EvalSpec(
        created="2026-11-30T10:00:00+00:00",
        task="crm_pro",
        dataset=log_api.EvalDataset(name="crmarena-pro", samples=2),
        model="anthropic/claude-sonnet-4",
        solver="react",
        config=log_api.EvalConfig(),
    )
    by_idx = log_api.EvalSample(
        id="t0",
        epoch=1,
        input=DEMO_QUERY,
        target="005Dm00030000D8IAI",
        metadata={"task_idx": 0, "task_source": "demo"},
        messages=[
            ChatMessageSystem(content="You are a CRM agent."),
            ChatMessageUser(content=DEMO_QUERY),
            ChatMessageAssistant(
                content="Count the cases.",
                tool_calls=[
                    ToolCall(
                        id="a", function="execute_soql", arguments={"query": "SELECT Id FROM Case"}
                    )
                ],
            ),
            ChatMessageTool(content='[{"Id": "500"}]', tool_call_id="a", function="execute_soql"),
            ChatMessageAssistant(
                content="",
                tool_calls=[
                    ToolCall(id="b", function="submit", arguments={"answer": "005Dm00030000D8IAI"})
                ],
            ),
        ],
        output=ModelOutput.from_content("anthropic/claude-sonnet-4", "005Dm00030000D8IAI"),
        scores={"match": Score(value=score, answer="005Dm00030000D8IAI", explanation="exact")},
        model_usage={
            "anthropic/claude-sonnet-4": ModelUsage(
                input_tokens=90, output_tokens=10, total_tokens=100
            )
        },
    )
    by_query = log_api.EvalSample(
        id="t1",
        epoch=1,
        input=DEMO_QUERY,  # no idx: found by its query text
        target="005Dm00030000D8IAI",
        messages=[
            ChatMessageUser(content=DEMO_QUERY),
            ChatMessageAssistant(content="005Dm000300000bIAA"),
        ],
        output=ModelOutput.from_content("anthropic/claude-sonnet-4", "005Dm000300000bIAA"),
    )
    log = log_api.EvalLog(
        status="success", eval=spec, plan=log_api.EvalPlan(), samples=[by_idx, by_query],
        stats=log_api.EvalStats(), results=log_api.EvalResults(total_samples=2, completed_samples=2),
    )  # fmt: skip
    log_api.write_eval_log(log, str(path))
    return path


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_a_log_written_by_inspect_becomes_sessions_of_its_configuration(
    tmp_path: Path, suffix: str, capsys
) -> None:
    path = _foreign_log(tmp_path / f"run{suffix}")
    db = tmp_path / "s.db"
    assert (
        main(
            [
                "import",
                str(path),
                "--db",
                str(db),
                "--protocol",
                "workbench",
                "--task-source",
                "demo",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "2 session(s) imported" in out
    assert "anthropic/claude-sonnet-4/react" in out
    assert "graded 1 imported session(s) under workbench" in out
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT s.task_source, s.task_idx, s.status, g.reward, g.grader, g.answer"
        " FROM sessions s JOIN grades g ON g.session_id = s.id ORDER BY s.id"
    ).fetchall()
    assert rows == [
        ("demo", 0, "submitted", 1.0, "inspect:match", "005Dm00030000D8IAI"),  # its own score
        ("demo", 0, "submitted", 0.0, "exact_match", "005Dm000300000bIAA"),  # graded here
    ]
    kinds = conn.execute(
        "SELECT actor, kind FROM events WHERE session_id = 1 ORDER BY seq"
    ).fetchall()
    assert kinds == [
        ("system", "system"),
        ("user", "message"),
        ("agent", "thought"),
        ("agent", "query"),
        ("system", "observation"),
        ("agent", "submit"),
        ("agent", "usage"),
        ("system", "grade"),
    ]
    usage = json.loads(
        conn.execute("SELECT payload FROM events WHERE kind = 'usage'").fetchone()[0]
    )
    assert usage["total_tokens"] == 100


def _rewrite_sample(path: Path, change) -> None:
    """`path` (a .eval log of this project's) with its first sample changed by `change`."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    name = sorted(n for n in members if n.startswith("samples/"))[0]
    sample = json.loads(members[name])
    change(sample)
    members[name] = json.dumps(sample).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)


def test_a_broken_sample_is_refused_by_file_sample_and_field_and_nothing_of_its_file_is_kept(
    tmp_path: Path, capsys
) -> None:
    db = build(tmp_path / "s.db")
    logs = _export(db, tmp_path / "logs")
    broken = next(p for p in logs if "gpt-4o-react" in p.name)
    _rewrite_sample(
        broken, lambda s: s["messages"][3]["metadata"]["crmarena_tui"][0].update(kind="dance")
    )
    back = tmp_path / "back.db"
    assert main(["import", str(tmp_path / "logs"), "--db", str(back)]) == 1
    err = capsys.readouterr().err
    assert (
        f"refused {broken}: samples/1_epoch_1.json, field messages[3].metadata.crmarena_tui[0]"
        ".kind: 'dance' is not an event kind" in err
    )
    names = {
        r[0]
        for r in sqlite3.connect(back).execute(
            "SELECT DISTINCT p.name FROM sessions s JOIN participants p ON p.id = s.participant_id"
        )
    }
    assert names == {"ana", "openai/gpt-4o-mini/react"}  # the broken file's two sessions: none


def test_a_sample_of_no_known_task_is_refused_naming_it(tmp_path: Path, capsys) -> None:
    path = _foreign_log(tmp_path / "run.json")
    doc = json.loads(path.read_text())
    doc["samples"][1]["input"] = "What is the airspeed of an unladen swallow?"
    doc["samples"][1]["messages"][0]["content"] = "What is the airspeed of an unladen swallow?"
    path.write_text(json.dumps(doc))
    db = tmp_path / "s.db"
    assert main(["import", str(path), "--db", str(db), "--task-source", "demo"]) == 1
    err = capsys.readouterr().err
    assert f"refused {path}: samples[1], field query: no task of demo has that query" in err
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM sessions").fetchone() == (0,)
