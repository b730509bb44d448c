"""Model calls count model calls: a usage event's `calls`, or its per-call lists, else one per
event (issue 35, 7a). An upstream import holds one usage event per task whose lists hold one
entry per call; an external agent may report several calls in one event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from crmarena_tui.storage.replay import usage_totals
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.storage.usage_calls import model_calls
from tests.support.study_support import cli, work, write_tasks

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"
SINGLE = UPSTREAM / "b2b" / "results_gpt-4o-2024-08-06_react_handle_time_interactive-False.json"


def _everything(path: Path) -> dict:
    (row,) = [
        r
        for r in json.loads(cli("report", "--db", str(path), "--format", "json")[1])["efficiency"]
        if r["task_type"] == "all task types"
    ]
    return row


def test_an_upstream_import_counts_the_calls_its_lists_hold(tmp_path: Path) -> None:
    # The file's three tasks list 3, 3 and 4 calls (total_tokens 5320, 5720, 6120 [, 6520]):
    # 10 calls, 17,160 + 17,160 + 23,680 = 58,000 tokens, 5,800 per call. Counting usage
    # events gave 3 calls at 19,333 tokens each.
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        UpstreamImporter(store).import_paths([SINGLE])
        (one, *_) = store.sessions()
        calls, tokens, _cost = usage_totals(store.events(one.id))  # the viewer's totals
        assert calls in (3, 4) and tokens == {3: 17_160, 4: 23_680}[calls]
    row = _everything(path)
    assert row["tasks"] == 3
    assert row["model_calls"] == 10 and row["tokens_per_call"] == pytest.approx(5_800)
    assert row["tokens_per_task"] == pytest.approx(58_000 / 3)


def test_a_usage_event_saying_calls_counts_that_many(tmp_path: Path) -> None:
    # One session reports 6 calls in one event (1,200 tokens); another records two events with
    # no count (one call each, 100 tokens each): 8 calls, 1,400 tokens, 175 per call.
    (first, second, *_) = write_tasks(tmp_path / "tasks.json")
    path = tmp_path / "sessions.db"
    with Store(path) as store:
        reported = work(store, "ext", first, study_id=None, reward=1.0, kind="agent", model="m")
        store.append_event(
            reported.id, "agent", "usage", {"prompt_tokens": 1000, "completion_tokens": 200,
                                            "total_tokens": 1200, "calls": 6}
        )  # fmt: skip
        other = work(store, "ext", second, study_id=None, reward=0.0, kind="agent", model="m")
        for _ in range(2):
            store.append_event(other.id, "agent", "usage", {"total_tokens": 100})
        assert usage_totals(store.events(reported.id))[0] == 6
    row = _everything(path)
    assert row["model_calls"] == 8 and row["tokens_per_call"] == pytest.approx(175)
    code, text, _ = cli("report", "--db", str(path))
    assert code == 0 and "175" in text


@pytest.mark.parametrize(
    ("payload", "calls"),
    [
        ({"calls": 6}, 6),
        ({"calls": 6.0}, 6),
        ({"calls": 0, "per_call": {"cost": [0.1]}}, 0),  # the count says none
        ({"calls": "6", "per_call": {"total_tokens": [1, 2]}}, 2),  # not a number: the lists
        ({"calls": -1}, 1),
        ({"calls": 2.5}, 1),
        ({"calls": True}, 1),
        ({"per_call": {"total_tokens": [], "cost": [0.1, 0.2, 0.3]}}, 3),
        ({"total_tokens": 100}, 1),
    ],
)
def test_the_sql_and_python_counts_agree(tmp_path: Path, payload: dict, calls: int) -> None:
    from crmarena_tui.storage.usage_calls import CALLS_SQL

    assert model_calls(payload) == calls
    with Store(tmp_path / "s.db") as store:
        ((found,),) = store.read(f"SELECT {CALLS_SQL} FROM (SELECT ? AS payload)",
                                 (json.dumps(payload),))  # fmt: skip
    assert found == calls


def test_the_mcp_report_usage_tool_takes_a_call_count() -> None:
    import asyncio

    from crmarena_tui.session.mcp_server import build_server

    server, _worker = build_server(lambda: None)  # type: ignore[arg-type,return-value]
    (tool,) = [t for t in asyncio.run(server.list_tools()) if t.name == "report_usage"]
    assert tool.input_schema["properties"]["calls"]["anyOf"][0]["type"] == "integer"
