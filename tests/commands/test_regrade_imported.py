"""Imported upstream runs keep upstream's grades: `regrade` leaves them alone unless `--imported`,
and then grades only what upstream graded. Each of upstream's end reasons is covered.

Upstream's runner (`crm_sandbox/agents/chat_agent.py`, `crm_sandbox/env/env.py`, `run_tasks.py`)
graded an answer only when the episode ended with "Submit action" (a single-turn respond, or a
respond the simulated user answered with `###STOP###`). Every other end recorded reward 0 with no
evaluation: "Invalid action" (the last reply had no closed action tag), "Respond action" (a
respond the user did not stop after the last user turn), "Max turns reached", "Max user turns
reached", "SOQL/SOSL query error" (the last action was a failing query), and for tool calling
"tool_call error: <tool>" and "Invalid tool: <name>"; a run that raised is
`{"source": "api", ...}` with no end reason. Where the last respond was right, grading it turned
those zeros into ones: the bug this file pins.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, upstream_file
from crmarena_tui.storage.replay import trajectory
from tests.support.upstream_results_support import info, system_prompt, write

RIGHT = "005Wt000003NIvNIAW"
WRONG = "005Wt000003NGdSIAW"
CORRECTION = "Invalid output format! Write <thought> and then <execute> or <respond>."


def query(text: str = "SELECT Id FROM User") -> dict[str, str]:
    return {"role": "assistant", "content": f"<thought>Look.</thought><execute>{text}</execute>"}


def seen(body: str = f"[{{'Id': '{RIGHT}'}}]") -> dict[str, str]:
    return {"role": "user", "content": f"Salesforce instance output: {body}"}


def said(text: str, *, closed: bool = True) -> dict[str, str]:
    end = "</respond>" if closed else ""
    return {"role": "assistant", "content": f"<thought>Answer.</thought><respond>{text}{end}"}


def item(
    task_id: int,
    task_type: str,
    turns: list[dict[str, Any]],
    *,
    reward: float,
    end: str | None = "Submit action",
    source: str = "agent",
    gold: list[str | None] | None = None,
    interactive: bool = False,
) -> dict[str, Any]:
    opening = "Hi, a new lead needs an owner." if interactive else "Which agent? Only the Id."
    agent_info: dict[str, Any] = info()
    if end is None:
        agent_info = {"source": "api", "content": "Error: RateLimitError: slow down"}
    else:
        agent_info["end_reason"] = {"source": source, "message": end, "content": ""}
    return {
        "task_id": task_id,
        "task_type": task_type,
        "gt_answer": [RIGHT] if gold is None else gold,
        "reward": reward,
        "agent_info": agent_info,
        "traj": [
            {"role": "system", "content": system_prompt(interactive=interactive).strip()},
            {"role": "user", "content": opening},
            *turns,
        ],
    }


def chat(task_id: int, turns: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    return item(task_id, "lead_routing", turns, interactive=True, **kwargs)


def tool(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    call = {"id": call_id, "type": "function"}
    call["function"] = {"name": name, "arguments": json.dumps(arguments)}  # type: ignore[assignment]
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def tool_item(task_id: int, turns: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    found = item(task_id, "handle_time", [], **kwargs)
    found["traj"] = [
        {"role": "system", "content": "You can call the tools below."},
        {"role": "user", "content": "Which agent has the lowest handle time?"},
        *turns,
    ]
    return found


LOOP = [query(), seen()] * 19  # turns spent until the limit

# task id: (upstream's end reason, upstream's reward); the ids say which file each is in
SINGLE = {
    1: ("Submit action", 1.0),  # the bare right Id
    2: ("Submit action", 0.0),  # a wrong Id
    3: ("Submit action", 1.0),  # a sentence naming the right Id
    4: ("Submit action", 1.0),  # "None" on a None task
    5: ("Invalid action", 0.0),  # the right Id in an unclosed <respond>
    6: ("Max turns reached", 0.0),
    7: ("SOQL/SOSL query error", 0.0),
    8: (None, 0.0),  # the run raised: no end reason
    9: (None, 0.0),  # it raised after the right respond (say, while the judge was asked)
}
MULTI = {
    11: ("Submit action", 1.0),  # the user stopped after the right Id
    12: ("Respond action", 0.0),  # the right Id, answered but never stopped on
    13: ("Max user turns reached", 0.0),
    14: ("Max turns reached", 0.0),  # twenty turns after an unconfirmed respond
}
TOOLS = {
    21: ("Submit action", 1.0),
    22: ("tool_call error: get_cases", 0.0),
    23: ("Invalid tool: find_agent", 0.0),
}
# the unconfirmed episodes whose last respond was right (what grading it would reward)
RIGHT_BUT_UNCONFIRMED = {5, 12, 13, 14}


def results(root: Path) -> Path:
    ask = {"role": "user", "content": "Can you double-check that?"}
    single = [
        item(1, "handle_time", [query(), seen(), said(RIGHT)], reward=1),
        item(2, "handle_time", [query(), seen(), said(WRONG)], reward=0),
        item(3, "handle_time", [said(f"The lowest handle time is agent {RIGHT}.")], reward=1),
        item(4, "handle_time", [query(), seen("[]"), said("None")], reward=1, gold=[None]),
        item(
            5,
            "handle_time",
            [*LOOP, said(RIGHT, closed=False), {"role": "user", "content": CORRECTION}],
            reward=0,
            end="Invalid action",
        ),
        item(6, "handle_time", [*LOOP, query(), seen()], reward=0, end="Max turns reached"),
        item(
            7,
            "handle_time",
            [*LOOP, query("SELEC Id"), seen("MALFORMED_QUERY: unexpected token: SELEC")],
            reward=0,
            end="SOQL/SOSL query error",
        ),
        item(8, "handle_time", [query()], reward=0, end=None),
        item(9, "handle_time", [query(), seen(), said(RIGHT)], reward=0, end=None),
    ]
    multi = [
        chat(11, [query(), seen(), said(RIGHT)], reward=1),
        chat(12, [query(), seen(), *[said(RIGHT), ask] * 10], reward=0, end="Respond action"),
        chat(
            13,
            [said("Which state?"), ask, *[query(), seen()] * 2, said(RIGHT), ask, query()],
            reward=0,
            end="Max user turns reached",
            source="user",
        ),
        chat(14, [said(RIGHT), ask, *LOOP, query(), seen()], reward=0, end="Max turns reached"),
    ]
    call = tool("get_cases", {"start_date": "2021-01-01"}, "c1")
    observed = {"role": "tool", "tool_call_id": "c1", "name": "get_cases", "content": "[]"}
    tools = [
        tool_item(21, [call, observed, tool("respond", {"content": RIGHT}, "c2")], reward=1),
        tool_item(22, [call, observed], reward=0, end="tool_call error: get_cases", source="tool"),
        tool_item(23, [tool("find_agent", {}, "c3")], reward=0, end="Invalid tool: find_agent"),
    ]
    write(root, "b2b/results_gpt-4o_react_handle_time_interactive-False.json", single)
    write(root, "b2b/results_gpt-4o_react_lead_routing_interactive-True.json", multi)
    write(root, "b2b/results_gpt-4o_tool_call_handle_time_interactive-False.json", tools)
    return root


UPSTREAM = {**SINGLE, **MULTI, **TOOLS}


def imported(tmp_path: Path) -> tuple[Path, dict[int, int]]:
    db = tmp_path / "s.db"
    assert main(["import", str(results(tmp_path / "results")), "--db", str(db)]) == 0
    with Store(db) as store:
        ids = {s.task_idx: s.id for s in store.sessions()}
    assert sorted(ids) == sorted(UPSTREAM)
    return db, ids


def rewards(db: Path, ids: dict[int, int]) -> dict[int, float]:
    with Store(db) as store:
        return {idx: store.grade(sid).reward for idx, sid in ids.items()}  # type: ignore[union-attr]


def regrade(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, Any, str]:
    capsys.readouterr()
    code = main(["regrade", *args, "--db", str(db), "--format", "json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def report(capsys: pytest.CaptureFixture[str], db: Path) -> Any:
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(autouse=True)
def no_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRMARENA_TUI_JUDGE_MODEL", raising=False)
    monkeypatch.delenv("CRMARENA_TUI_PROTOCOL", raising=False)


def test_every_end_reason_but_submit_action_is_imported_without_an_answer(tmp_path: Path) -> None:
    db, ids = imported(tmp_path)
    assert rewards(db, ids) == {idx: reward for idx, (_, reward) in UPSTREAM.items()}
    with Store(db) as store:
        for idx, (end, _) in UPSTREAM.items():
            events = store.events(ids[idx])
            submits = [e for e in events if e.kind == "submit"]
            grade = store.grade(ids[idx])
            assert grade is not None and grade.imported
            if end == "Submit action":
                [submit] = submits
                assert submit.actor == "agent" and submit.payload["answer"] == grade.answer != ""
            elif idx == 8:
                assert submits == [] and grade.answer == ""  # died before any respond
            elif idx == 9:
                assert [s.payload["answer"] for s in submits] == [RIGHT]  # submitted, then raised
            else:
                [submit] = submits
                assert (submit.actor, submit.payload["answer"], grade.answer) == ("system", "", "")
                assert submit.payload["end_reason"] == end == grade.metrics["end_reason"]
                assert submit == events[-1] or events[-1].kind in ("usage", "grade")
                actions = "".join(m["content"] for m in trajectory(None, events))
                assert "<respond></respond>" not in actions  # the end is no respond
                if idx in RIGHT_BUT_UNCONFIRMED:  # the last respond: an event, not the answer
                    assert submit.payload["last_respond"] == RIGHT
                    assert any(e.kind == "message" and e.text == RIGHT for e in events), idx
                else:
                    assert submit.payload["last_respond"] == ""


def test_regrade_with_no_ids_leaves_imported_sessions_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, ids = imported(tmp_path)
    before = report(capsys, db)
    code, rows, err = regrade(capsys, db)
    assert (code, rows) == (0, [])
    assert f"{len(ids)} imported session(s) keep the grades they came with" in err
    assert rewards(db, ids) == {idx: reward for idx, (_, reward) in UPSTREAM.items()}
    assert report(capsys, db) == before
    capsys.readouterr()
    assert main(["regrade", "--db", str(db)]) == 0  # the table form says the same
    table = capsys.readouterr()
    assert "0 session(s) re-graded" in table.out and "keep the grades they came with" in table.err
    # named, an imported session is refused unless --imported asks for it
    code, rows, err = regrade(capsys, db, str(ids[5]))
    assert (code, rows) == (1, [])
    assert f"session {ids[5]} is imported from upstream" in err and "--imported" in err


@pytest.mark.parametrize("protocol", ["upstream", None])  # explicitly, and as the default
def test_imported_regrade_under_upstream_keeps_upstreams_rewards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], protocol: str | None
) -> None:
    db, ids = imported(tmp_path)
    before = report(capsys, db)
    args = ["--imported", *(["--protocol", protocol] if protocol else [])]
    code, rows, err = regrade(capsys, db, *args)
    assert code == 0 and "2 imported session(s) keep" in err  # the API failures
    assert {r["session"] for r in rows} == {ids[i] for i in UPSTREAM if i not in (8, 9)}
    assert all(r["protocol"] == "upstream" for r in rows)
    assert rewards(db, ids) == {idx: reward for idx, (_, reward) in UPSTREAM.items()}
    after = report(capsys, db)
    every_split = [r["wins"] for r in before["overall"] if r["split"] == "all"]
    assert every_split == [4, 1]  # react: 1, 3, 4, 11; tools: 21
    for key in ("overall", "by_task_type", "by_skill"):  # the figures, not who read the answers:
        unjudged = [{k: v for k, v in row.items() if k != "judge"} for row in after[key]]
        assert unjudged == before[key]  # (upstream's grades, now this project's offline reading)
    with Store(db) as store:
        for idx in RIGHT_BUT_UNCONFIRMED:
            grade = store.grade(ids[idx])
            assert grade is not None and not grade.imported
            assert (grade.reward, grade.answer, grade.extraction) == (0.0, "", "ended")
            assert grade.metrics["end_reason"] == UPSTREAM[idx][0]


def test_imported_regrade_under_workbench_grades_the_last_respond_marked_unconfirmed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, ids = imported(tmp_path)
    code, rows, _ = regrade(capsys, db, "--imported", "--protocol", "workbench")
    assert code == 0
    got = rewards(db, ids)
    with Store(db) as store:
        for idx in RIGHT_BUT_UNCONFIRMED:
            grade = store.grade(ids[idx])
            assert grade is not None and grade.protocol == "workbench"
            assert (grade.reward, grade.answer) == (1.0, RIGHT)
            assert grade.metrics["unconfirmed"] is True
            assert grade.metrics["end_reason"] == UPSTREAM[idx][0]
        for idx in (6, 7, 22, 23):  # no respond at all: nothing to grade, reward 0
            assert got[idx] == 0.0 and store.grade(ids[idx]).extraction == "ended"  # type: ignore[union-attr]
    assert all(got[i] == r for i, (end, r) in UPSTREAM.items() if end == "Submit action")


def test_sessions_imported_before_the_rule_read_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the stored form of earlier imports: the last respond submitted as the answer
    monkeypatch.setattr(upstream_file, "unconfirmed", lambda info: None)
    db, ids = imported(tmp_path)
    with Store(db) as store:
        [legacy] = [e for e in store.events(ids[12]) if e.kind == "submit"]
        assert legacy.payload == {"answer": RIGHT}
    code, rows, _ = regrade(capsys, db, "--imported")
    assert code == 0
    assert rewards(db, ids) == {idx: reward for idx, (_, reward) in UPSTREAM.items()}
    with Store(db) as store:
        for idx in RIGHT_BUT_UNCONFIRMED:
            grade = store.grade(ids[idx])
            assert grade is not None and (grade.extraction, grade.answer) == ("ended", "")
    regrade(capsys, db, "--imported", "--protocol", "workbench")
    with Store(db) as store:
        grade = store.grade(ids[12])
        assert grade is not None and grade.metrics["unconfirmed"] is True and grade.reward == 1.0
