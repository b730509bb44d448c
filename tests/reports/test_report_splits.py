"""`report` splits as the paper does: a row per agent configuration (model, strategy, aided,
privacy-aware) and per split (org type x single-turn / chat), with filters; non-answers counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

MODEL = "openai/gpt-4o"


def native(store: Store, strategy: str, *, aided: bool = False, privacy: bool = False):
    """A participant as a native `run` made it before configurations were named."""
    settings = {
        "model": MODEL,
        "strategy": strategy,
        "aided": aided,
        "privacy_aware": privacy,
        "temperature": 0.0,
        "max_turns": 20,
        "max_user_turns": 10,
    }
    return store.participant("agent", MODEL, model=MODEL, settings=settings)


def session(
    store: Store,
    who,
    idx: int,
    reward: float,
    *,
    org: str = "b2b",
    chat: bool = False,
    aided: bool = False,
    task_type: str = "handle_time",
    no_answer: bool = False,
    settings: dict | None = None,
) -> int:
    task = Task(
        idx=idx,
        task=task_type,
        query=f"q{idx}",
        answer=["x"],
        reward_metric="exact_match",
        org_type=org,  # type: ignore[arg-type]
        interactive=chat,
        source=f"hf:{org}{'_interactive' if chat else ''}",
    )
    made = store.create_session(
        session_spec(
            who,
            task,
            "demo",
            f"demo:{org}",
            aided=aided,
            settings={**who.settings, **(settings or {})},
        ),
        status="submitted",
    )
    metrics = {"no_answer": True} if no_answer else {}
    store.add_grade(
        made.id,
        Grade(
            answer="x",
            parsed_answer=["x"],
            reward=reward,
            grader="exact_match",
            extraction="strip",
            metrics=metrics,
        ),
    )
    return made.id


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        react, tool, aided = native(store, "react"), native(store, "tool_call"), None
        aided = native(store, "react", aided=True)
        for idx in range(1, 5):  # the same four b2b single-turn tasks for each configuration
            session(store, react, idx, 1.0 if idx <= 2 else 0.0)
            session(store, tool, idx, 1.0 if idx == 1 else 0.0, no_answer=idx == 4)
            session(store, aided, idx, 1.0, aided=True)
        session(store, react, 1, 1.0, org="b2c")  # b2c single-turn
        session(store, react, 1, 0.0, chat=True)  # b2b chat
        session(store, react, 2, 0.0, org="b2c", chat=True, no_answer=True)
    return str(path)


def report(capsys, db: str, *more: str) -> dict:
    assert main(["report", "--db", db, "--format", "json", *more]) == 0
    return json.loads(capsys.readouterr().out)


def rows(found: dict, section: str, split: str | None = None) -> list[dict]:
    return [r for r in found[section] if split is None or r["split"] == split]


def test_configurations_are_rows_per_task_type_and_split(capsys, db: str) -> None:
    found = report(capsys, db)
    assert found["graded_sessions"] == 15
    assert found["splits"] == {"b2b chat": 1, "b2b single": 12, "b2c chat": 1, "b2c single": 1}
    b2b = rows(found, "by_task_type", "b2b single")
    assert sorted(r["participant"] for r in b2b) == [
        f"{MODEL}/react",
        f"{MODEL}/react/aided",
        f"{MODEL}/tool_call",
    ]
    by_name = {r["participant"]: r for r in b2b}
    assert all(r["attempts"] == 4 for r in b2b)  # each session once, never merged
    assert by_name[f"{MODEL}/react"]["wins"] == 2
    assert by_name[f"{MODEL}/tool_call"]["wins"] == 1
    assert by_name[f"{MODEL}/react/aided"]["wins"] == 4
    assert {(r["org_type"], r["mode"]) for r in found["by_task_type"]} == {
        ("b2b", "single"),
        ("b2b", "chat"),
        ("b2c", "single"),
        ("b2c", "chat"),
        ("all", "all"),
    }


def test_the_all_splits_row_counts_each_session_once(capsys, db: str) -> None:
    found = report(capsys, db)
    overall = {(r["participant"], r["split"]): r for r in found["overall"]}
    react = [r for (who, split), r in overall.items() if who == f"{MODEL}/react"]
    every = overall[(f"{MODEL}/react", "all")]
    assert every["attempts"] == 4 + 3 == sum(r["attempts"] for r in react if r is not every)
    assert every["wins"] == 3
    assert sum(r["attempts"] for r in found["overall"] if r["split"] == "all") == 15


def test_no_answer_is_counted_per_row(capsys, db: str) -> None:
    found = report(capsys, db)
    overall = {(r["participant"], r["split"]): r for r in found["overall"]}
    assert overall[(f"{MODEL}/tool_call", "b2b single")]["no_answer"] == 1
    assert overall[(f"{MODEL}/react", "b2c chat")]["no_answer"] == 1
    assert overall[(f"{MODEL}/react", "all")]["no_answer"] == 1
    assert overall[(f"{MODEL}/react/aided", "b2b single")]["no_answer"] == 0


def test_filters(capsys, db: str) -> None:
    chat = report(capsys, db, "--mode", "chat")
    assert chat["splits"] == {"b2b chat": 1, "b2c chat": 1}
    assert chat["filter"]["mode"] == "chat"
    b2c = report(capsys, db, "--org-type", "b2c")
    assert b2c["splits"] == {"b2c chat": 1, "b2c single": 1}
    one = report(capsys, db, "--participant", f"{MODEL}/tool_call")
    assert {r["participant"] for r in one["overall"]} == {f"{MODEL}/tool_call"}
    model = report(capsys, db, "--participant", MODEL, "--mode", "single", "--org-type", "b2b")
    assert len({r["participant"] for r in model["overall"]}) == 3
    assert model["graded_sessions"] == 12
    source = report(capsys, db, "--task-source", "hf:b2c_interactive")
    assert source["graded_sessions"] == 1
    # the fixture's grades are upstream grades (Grade's default); the rows say so, and so does
    # the filter
    assert {r["protocol"] for r in report(capsys, db)["overall"]} == {"upstream"}
    assert report(capsys, db, "--protocol", "upstream")["graded_sessions"] == 15
    assert report(capsys, db, "--protocol", "workbench")["graded_sessions"] == 0


def test_the_table_names_splits_and_filters(capsys, db: str) -> None:
    assert main(["report", "--db", db, "--org-type", "b2b"]) == 0
    out = capsys.readouterr().out
    assert "Only the sessions with org type b2b." in out
    assert "all splits" in out and "b2b chat" in out
    assert f"{MODEL}/react/aided" in out
    assert main(["report", "--db", db, "--participant", "nobody"]) == 1  # (issue 40: said)
    assert "'nobody' names no configuration" in capsys.readouterr().err


def test_a_bad_filter_is_one_line(capsys, db: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["report", "--db", db, "--mode", "both"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and "Traceback" not in err


def test_imported_names_are_kept_whole(tmp_path: Path, capsys) -> None:
    path = tmp_path / "i.db"
    with Store(path) as store:
        settings = {"strategy": "tool_call_flex", "aided": True, "privacy_aware": True}
        who = store.participant(
            "agent", "gpt-4o/tool_call_flex/aided/privacy-aware", model="gpt-4o", settings=settings
        )
        session(store, who, 1, 1.0, aided=True)
        human = store.participant("human", "ana")
        session(store, human, 1, 1.0)
    found = report(capsys, str(path))
    assert {r["participant"] for r in found["overall"]} == {
        "gpt-4o/tool_call_flex/aided/privacy-aware",
        "ana",
    }


def test_the_charts_draw_one_bar_per_configuration_over_all_splits(capsys, db: str) -> None:
    from crmarena_tui.widgets.report_charts import chart_series

    found = report(capsys, db)
    _title, labels, values, _names = chart_series("success", found)
    assert labels == [f"{MODEL}/react", f"{MODEL}/react/aided", f"{MODEL}/tool_call"]
    assert values == [[round(3 / 7 * 100, 1), 100.0, 25.0]]
