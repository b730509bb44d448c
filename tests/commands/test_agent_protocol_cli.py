"""`--protocol` where runs start (`run`, `play`), the runs the upstream protocol refuses, a scripted
model that answers right but is never confirmed, and reports that say when protocols mix."""

from __future__ import annotations

import json
from pathlib import Path

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from tests.commands import test_cli_run
from tests.fakes.scripted_llm import register_script, unregister_script
from tests.support.agents_llm_support import AGENT_ID, react
from tests.support.spec_support import session_spec

# the fixtures of `run`'s own tests: a task file, orgs that are TinyOrgs, a scripted solver
task_file = test_cli_run.task_file
tiny_org = test_cli_run.tiny_org
scripted = test_cli_run.scripted


def run(*args: str) -> int:
    return main(["run", *args])


def test_upstream_refuses_tool_calling_on_crmarena_pro(tiny_org, task_file, tmp_path, capsys):
    db = str(tmp_path / "s.db")
    base = ("--agent", "scripted/x", "--tasks", str(task_file), "--db", db)
    assert run(*base, "--strategy", "tool_call") == 2  # a usage error
    err = capsys.readouterr().err
    assert "tool calling runs only on the original CRMArena" in err
    assert "--protocol workbench" in err and "Traceback" not in err
    assert not Path(db).exists()  # refused before anything was stored


def test_upstream_refuses_the_scripted_user(tiny_org, task_file, tmp_path, scripted, capsys):
    db = str(tmp_path / "s.db")
    base = ("--agent", scripted, "--tasks", str(task_file), "--db", db, "--interactive")
    assert run(*base, "--user-model", "scripted") == 2
    err = capsys.readouterr().err
    assert "a model plays the user" in err and "--protocol workbench" in err


def test_upstream_refuses_a_lenient_org(tiny_org, task_file, tmp_path, scripted, capsys):
    db = str(tmp_path / "s.db")
    assert run("--agent", scripted, "--tasks", str(task_file), "--db", db, "--lenient") == 2
    err = capsys.readouterr().err
    assert "strict org only" in err and "--protocol workbench" in err


def test_protocols_are_recorded_and_runs_never_resume_across_them(
    tiny_org, task_file, tmp_path, scripted, capsys
) -> None:
    db = tmp_path / "s.db"
    base = ("--agent", scripted, "--tasks", str(task_file), "--db", str(db), "--format", "json")
    assert run(*base) == 0
    capsys.readouterr()
    assert run(*base, "--protocol", "workbench") == 0  # four new sessions: nothing skipped
    assert json.loads(capsys.readouterr().out)["outcomes"] == {"submitted": 4}
    assert run(*base) == 0  # upstream again: every task is already done
    out = capsys.readouterr().out
    assert json.loads(out)["outcomes"] == {"skipped": 4}
    with Store(db) as store:
        ran = sorted(s.settings["protocol"] for s in store.sessions())
        grades = sorted(store.grade(s.id).protocol for s in store.sessions())
    assert ran == grades == ["upstream"] * 4 + ["workbench"] * 4
    assert main(["report", "--db", str(db)]) == 0
    report = capsys.readouterr().out
    assert "more than one agent protocol" in report and "upstream 4, workbench 4" in report


def test_a_right_answer_never_confirmed_scores_0_and_says_why(
    tiny_org, task_file, tmp_path, capsys
) -> None:
    """The scripted agent answers the right Id every time; the simulated user (a scripted model
    playing upstream's user) never says ###STOP###: reward 0, "Max user turns reached"."""
    register_script("right", lambda: lambda messages, tools: react("a", "respond", AGENT_ID))
    register_script("unsure", lambda: lambda messages, tools: "Hmm, I am not sure that is it.")
    try:
        args = ["--agent", "scripted/right", "--tasks", str(task_file), "--db"]
        args += [str(tmp_path / "s.db"), "--interactive", "--user-model", "scripted/unsure"]
        code = run(*args, "--task", "handle_time", "--limit", "1")
    finally:
        unregister_script("right")
        unregister_script("unsure")
    out = capsys.readouterr().out
    assert code == 0 and "ended unconfirmed (reward 0): 1 Max user turns reached" in out
    with Store(tmp_path / "s.db") as store:
        (session,) = store.sessions()
        grade = store.grade(session.id)
        assert session.user_simulator == "upstream:scripted/unsure"
        [end] = [e for e in store.events(session.id) if e.kind == "submit"]
    assert grade.reward == 0.0 and grade.metrics["end_reason"] == "Max user turns reached"
    assert grade.answer == "" and end.payload["last_respond"] == AGENT_ID  # never confirmed


def test_the_reference_agent_runs_under_workbench(tmp_path, capsys) -> None:
    db = tmp_path / "s.db"
    args = ("--agent", "reference", "--task", "handle_time", "--limit", "1", "--db", str(db))
    assert run(*args, "--protocol", "upstream") == 0
    assert "its sessions run under workbench" in capsys.readouterr().err
    with Store(db) as store:
        (session,) = store.sessions()
        assert session.settings["protocol"] == "workbench"


def test_play_takes_the_protocol_into_the_apps_settings() -> None:
    from crmarena_tui.app.app import CrmArenaApp, PlayOptions
    from crmarena_tui.cli import build_parser

    args = build_parser().parse_args(["play", "--protocol", "workbench"])
    assert args.protocol == "workbench"
    app = CrmArenaApp(PlayOptions(protocol=args.protocol))
    assert app.settings.protocol == "workbench" and app.service.protocol == "workbench"
    assert CrmArenaApp(PlayOptions()).settings.protocol == "upstream"


def test_the_sessions_list_finds_and_flags_each_protocol(tmp_path) -> None:
    from crmarena_tui.reports.session_rows import load_index, protocol_mix
    from tests.support.agents_llm_support import make_task

    with Store(tmp_path / "s.db") as store:
        me = store.participant("agent", "m")
        for idx, settings in (
            (1, {"protocol": "upstream"}),
            (2, {"protocol": "workbench"}),
            (3, {}),
        ):
            store.create_session(session_spec(me, make_task(idx), "local", "x", settings=settings))
        index = load_index(store)
    rows = index.rows
    assert [r.protocol for r in rows] == ["workbench", "workbench", "upstream"]  # newest first
    assert protocol_mix(rows) == "upstream 1, workbench 2"
    only = [rows[i] for i in index.filter("upstream")]
    assert len(only) == 1 and protocol_mix(only) == ""
