"""Where the figures come from: `report` and `export` show each session's (and configuration's)
org clock, schema source, prompt source and judge, and the report warns when a configuration's
sessions mix them (storage/provenance.py, reports/provenance.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders.base import Grade
from crmarena_tui.reports.summary import build_report
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

UPSTREAM_RUN = {
    "org_today": "2025-06-01",
    "org_clock": "run",
    "schema_source": "hub:Salesforce/CRMArenaPro/b2b_schema",
    "prompt_source": "upstream@32b609a",
}
JUDGE = "openai/gpt-4o-2024-08-06"


def graded(
    store: Store,
    who: Any,
    idx: int,
    settings: dict[str, Any],
    *,
    judge: str | None = JUDGE,
    metrics: dict[str, Any] | None = None,
    extraction: str = "llm",
) -> int:
    task = Task(
        idx=idx,
        task="handle_time",
        query=f"q{idx}",
        answer=["x"],
        source="hf:b2b",
        reward_metric="exact_match",
    )
    session = store.create_session(
        session_spec(
            who,
            task,
            "upstream",
            "upstream:b2b",
            protocol="upstream",
            settings={"protocol": "upstream", **settings},
        ),
        status="submitted",
        started_at=1_700_000_000.0,
        ended_at=1_700_000_100.0,
    )
    judged = {"judge_temperature": None, "judge_instructions": "upstream@32b609a"}
    store.add_grade(
        session.id,
        Grade.model_construct(  # (a None metric: the judge engineer's schema allows it)
            answer="x",
            parsed_answer=["x"],
            reward=1.0,
            metrics=judged if metrics is None else metrics,
            grader="exact_match",
            extraction=extraction,
            judge_model=judge,
            protocol="upstream",
        ),
    )
    return session.id


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    with Store(path) as store:
        gpt = store.participant("agent", "gpt-4o/react", model="gpt-4o")
        graded(store, gpt, 1, UPSTREAM_RUN)
        graded(store, gpt, 2, UPSTREAM_RUN)
        graded(store, gpt, 3, {**UPSTREAM_RUN, "prompt_source": "paraphrased"})
        old = store.participant("agent", "haiku/react", model="haiku")
        graded(store, old, 1, {}, judge=None, metrics={}, extraction="deterministic")
        mixed = {**UPSTREAM_RUN, "prompt_source": "paraphrased", "schema_source": "builtin"}
        graded(store, gpt, 4, mixed)
    return path


def test_the_report_shows_each_configurations_provenance(db: Path) -> None:
    with Store(db) as store:
        rows = {r["configuration"]: r for r in build_report(store)["provenance"]}
    gpt, haiku = rows["gpt-4o/react"], rows["haiku/react"]
    assert (gpt["protocol"], gpt["sessions"]) == ("upstream", 2)
    assert gpt["org_clock"] == {"2025-06-01 (run's date)": 2}
    assert gpt["schema_source"] == {"builtin": 1, "hub:Salesforce/CRMArenaPro/b2b_schema": 1}
    assert gpt["prompt_source"] == {"paraphrased": 2}
    assert gpt["judge_model"] == {JUDGE: 2}
    assert gpt["judge_temperature"] == {"default": 2}  # none sent: the provider's default
    assert gpt["judge_instructions"] == {"upstream@32b609a": 2}
    assert gpt["mixed"] == ["schema_source"]
    # upstream's own prompts are part of the configuration (`/upstream-prompts`): never a mix
    own = rows["gpt-4o/react/upstream-prompts"]
    assert own["prompt_source"] == {"upstream@32b609a": 2} and own["mixed"] == []
    # a session from before these were recorded: unknown, never guessed; no judge: offline
    assert haiku["org_clock"] == {"unknown": 1} and haiku["schema_source"] == {"unknown": 1}
    assert haiku["judge"] == {"offline extractor": 1} and haiku["mixed"] == []


def test_the_report_text_warns_in_one_line_when_a_configuration_mixes(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    warned = [line for line in out.splitlines() if "mixes sessions" in line]
    assert warned == [
        "gpt-4o/react (upstream) mixes sessions that differ in schema sources builtin 1, "
        "hub:Salesforce/CRMArenaPro/b2b_schema 1: its figures average them."
    ]
    assert "Where the figures come from" in out
    assert "2025-06-01 (run's date)" in out and "offline extractor" in out
    flat = " ".join(out.split())  # the table folds long cells
    assert "hub:Salesforce/CRMArenaPro/b2" in out  # (folded at the column's width)
    assert "temperature default" in flat and "upstream@32b609a" in flat


def test_the_judge_is_a_mix_when_its_temperature_differs(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        gpt = store.participant("agent", "gpt-4o/react", model="gpt-4o")
        graded(store, gpt, 1, UPSTREAM_RUN)
        cold = {"judge_temperature": 0.0, "judge_instructions": "upstream@32b609a"}
        graded(store, gpt, 2, UPSTREAM_RUN, metrics=cold)
        (row,) = build_report(store)["provenance"]
    assert row["mixed"] == ["judge"]
    assert row["judge_temperature"] == {"0": 1, "default": 1}


def test_export_has_the_provenance_columns(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    names = ("org_today", "org_clock", "schema_source", "prompt_source")
    names += ("judge_model", "judge_temperature", "judge_instructions")
    got = [tuple(row[n] for n in names) for row in rows]
    assert got[0] == (
        "2025-06-01", "run", "hub:Salesforce/CRMArenaPro/b2b_schema", "upstream@32b609a",
        JUDGE, None, "upstream@32b609a",
    )  # fmt: skip
    assert got[2][3] == "paraphrased"
    assert got[3] == (None, None, None, None, "offline", None, None)


def test_the_papers_table_names_each_rows_judge(db: Path, capsys) -> None:
    # the overall rows carry their configuration's judge, so `--format markdown` has a judge
    # column: the model judge with its temperature and instructions, and the offline extractor
    with Store(db) as store:
        overall = {r["participant"]: r for r in build_report(store)["overall"]}
    assert JUDGE in overall["gpt-4o/react"]["judge"]
    assert overall["haiku/react"]["judge"] == "offline extractor"
    assert main(["report", "--db", str(db), "--format", "markdown"]) == 0
    table = capsys.readouterr().out
    head = next(line for line in table.splitlines() if line.startswith("| configuration"))
    assert "| judge |" in head
    row = next(line for line in table.splitlines() if line.startswith("| haiku/react"))
    assert "offline extractor" in row
