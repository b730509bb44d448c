"""Hostile values in the files a user hands in: non-finite and out-of-range numbers, lone
surrogates and deep nesting are refused with one line naming the file, entry and field (no crash,
nothing written); a database an older version filled with NaN and Infinity still reports,
searches and exports; a model reply holding a lone surrogate is stored with U+FFFD."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.support.study_support import cli, write_tasks

RESULT = (
    Path(__file__).parents[1]
    / "data/upstream/b2b/results_gpt-4o-2024-08-06_react_handle_time_interactive-False.json"
)
BIG = "1" + "0" * 40


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ('"total_cost": 0.0093', '"total_cost": 1e400', "entry 0, field agent_info.total_cost"),
        ('"total_cost": 0.0093', '"total_cost": Infinity', "entry 0, field agent_info.total_cost"),
        ('"total_cost": 0.0093', '"total_cost": NaN', "entry 0, field agent_info.total_cost"),
        ('"reward": 1', '"reward": NaN', "entry 0, field reward"),
        ('"task_id": 883', f'"task_id": {BIG}', "entry 0, field task_id: the number"),
        ("Submit action", "Submit \\ud800 action", "field agent_info.end_reason.message"),
        (None, None, "nested too deeply"),
    ],
    ids=["1e400", "Infinity", "NaN-cost", "NaN-reward", "id-10^40", "surrogate", "nesting"],
)
def test_import_refuses_hostile_values_by_file_entry_and_field(
    old: str | None, new: str | None, said: str, tmp_path: Path, capsys
) -> None:
    text = RESULT.read_text()
    bad = tmp_path / RESULT.name
    bad.write_text(text.replace(old, new, 1) if old and new else "[" * 200_000 + "]" * 200_000)
    db = tmp_path / "s.db"
    assert main(["import", "--db", str(db), str(bad)]) == 1
    err = capsys.readouterr().err
    refusal = [line for line in err.splitlines() if line.startswith("refused")]
    assert len(refusal) == 1 and str(bad) in refusal[0] and said in refusal[0], err
    with Store(db) as store:
        assert store.read("SELECT COUNT(*) FROM sessions")[0][0] == 0


def test_a_database_holding_non_finite_values_still_reports_searches_and_exports(
    tmp_path: Path, capsys
) -> None:
    db = tmp_path / "old.db"
    assert main(["import", "--db", str(db), str(RESULT)]) == 0
    conn = sqlite3.connect(db)  # as an older version stored such a file's numbers
    with conn:
        conn.execute(
            "UPDATE events SET payload = replace(replace(payload, '0.0031', 'NaN'),"
            " '0.0093', 'Infinity')"
        )
        conn.execute("UPDATE sessions SET active_seconds = 9e999")
        assert conn.execute("SELECT COUNT(*) FROM events WHERE json_valid(payload) = 0").fetchone()[
            0
        ]
        conn.execute("PRAGMA user_version = 16")  # before schema 17 repaired such values
    conn.close()
    capsys.readouterr()
    assert main(["report", "--db", str(db)]) == 0
    assert main(["search", "--db", str(db), "Submit"]) == 0
    out = tmp_path / "x.jsonl"
    assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    for line in out.read_text().splitlines():
        json.loads(line, parse_constant=lambda word: pytest.fail(f"{word} in the export"))
    conn = sqlite3.connect(db)
    assert (
        conn.execute("SELECT COUNT(*) FROM events WHERE json_valid(payload) = 0").fetchone()[0] == 0
    )
    conn.close()


def test_a_model_reply_with_a_lone_surrogate_is_stored_with_a_replacement(
    tmp_path: Path,
) -> None:
    from crmarena_tui.llm.client import LLMClient

    body = Reply.chat("placeholder").body
    assert isinstance(body, dict)
    raw = json.dumps(body).replace("placeholder", "answer \\ud800 here")
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(body=raw))
        reply = LLMClient("openai/fake-model", api_base=server.base_url, timeout=5).complete(
            [{"role": "user", "content": "hi"}]
        )
    assert reply.text == "answer \ufffd here"
    with Store(tmp_path / "s.db") as store:  # the text now goes into the database as any other
        store.read("CREATE TEMP TABLE t (x TEXT)")
        store.read("INSERT INTO t VALUES (:x)", {"x": reply.text})


@pytest.fixture
def study_file(tmp_path: Path) -> Path:
    write_tasks(tmp_path / "tasks.json")
    host = tmp_path / "host.db"
    cli(
        "study", "create", "pilot", "--tasks", str(tmp_path / "tasks.json"), "--per-task", "1",
        "--participants", "ana,bo", "--db", str(host),
    )  # fmt: skip
    out = tmp_path / "pilot.json"
    assert cli("study", "export", "pilot", "--out", str(out), "--db", str(host))[0] == 0
    return out


def _set(doc: dict, where: str, value: object) -> None:
    *path, last = where.split(".")
    for part in path:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    doc[int(last) if isinstance(doc, list) else last] = value


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        ("study.time_limit_minutes", "ten", "field time_limit_minutes"),
        ("participants.0.queue.0.task_idx", 10**30, "entry 0, field queue.0.task_idx: the number"),
        ("participants.0.queue.0.task_idx", 99_999, "field task_idx: task 99999 is not in"),
        ("study.created_at", 1e300, "field created_at"),
        ("study.per_task", -1, "field per_task"),
        ("participants.0.join_code", "", "participants entry 0, field join_code"),
        ("participants.1.name", "ana", "participants entry 1, field name: 'ana' is also entry 0"),
        ("participants.0.name", "ana\x1b[2J", "field name: 'ana\\x1b[2J' holds a control"),
        ("participants.0.name", "../../x", "field name: '../../x' holds a path separator"),
        ("study.tasks", "/etc/passwd", "field tasks: '/etc/passwd' is not a task source"),
    ],
    ids=[
        "minutes-text", "idx-10^30", "idx-missing", "created-1e300", "per-task-negative",
        "empty-code", "duplicate-name", "escape-name", "dotdot-name", "etc-passwd",
    ],
)  # fmt: skip
def test_study_import_refuses_hostile_files_by_entry_and_field(
    study_file: Path, tmp_path: Path, where: str, value: object, said: str
) -> None:
    doc = json.loads(study_file.read_text())
    _set(doc, where, value)
    study_file.write_text(json.dumps(doc))
    laptop = tmp_path / "laptop.db"
    code, out, err = cli("study", "import", str(study_file), "--db", str(laptop))
    assert code == 1 and out == "", (out, err)
    assert len(err.strip().splitlines()) == 1 and str(study_file) in err and said in err, err
    with Store(laptop) as store:
        assert store.read("SELECT COUNT(*) FROM studies")[0][0] == 0


def test_a_lone_surrogate_from_any_writer_is_stored_as_a_replacement(tmp_path: Path) -> None:
    """An external agent (MCP) or any other writer, not only the model client."""
    from crmarena_tui.tasks.model import Task
    from tests.support.spec_support import session_spec

    with Store(tmp_path / "s.db") as store:
        ana = store.participant("human", "ana")
        task = Task(idx=1, task="handle_time", query="q", answer=["a"], reward_metric="exact_match")
        sid = store.create_session(session_spec(ana, task, "demo", "demo:b2b"), started_at=1.7e9).id
        store.append_event(sid, "agent", "message", {"text": "answer \ud800 here", "n": 1.5})
        payload = store.events(sid)[-1].payload
    assert payload["text"] == "answer \ufffd here" and payload["n"] == 1.5
