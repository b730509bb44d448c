"""The Python agent API (issue 26): `run --agent FILE.py:NAME`, `package.module:NAME` and
installed agents (`crmarena-tui agents`), run with everything `run` gives: the sessions record
every tool call, resume after a kill, run two at a time, and show in the viewer with their steps."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from tests.support.study_support import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "none_baseline.py"
SMALL = ("--tasks", "demo:small", "--task", "quote_approval,lead_qualification")


def _sessions(db: Path):
    with Store(db) as store:
        people = {p.id: p for p in store.participants()}
        return [(s, people[s.participant_id], store.events(s.id)) for s in store.sessions()]


def test_a_file_agent_runs_two_at_a_time_and_every_call_is_an_event(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    code, out, err = cli(
        "run", "--agent", f"{EXAMPLE}:NoneBaseline", *SMALL, "--limit", "6",
        "--concurrency", "2", "--protocol", "workbench", "--db", str(db),
    )  # fmt: skip
    assert code == 0, err
    found = _sessions(db)
    assert len(found) == 6 and all(s.status == "submitted" for s, _, _ in found)
    for session, person, events in found:
        assert person.kind == "agent" and person.name == "none-baseline"
        assert person.settings["strategy"] == "python"
        kinds = [e.kind for e in events]
        assert kinds.count("query") == 2 and "usage" in kinds and kinds[-1] == "grade"
        submit = next(e for e in events if e.kind == "submit")
        assert submit.payload.get("answer") == "None" or submit.text == "None"
        if session.interactive:
            assert any(e.kind == "message" and e.actor == "user" for e in events)
    assert "6 tasks: 6 submitted" in out + err


def test_a_file_agent_works_chat_tasks_against_the_scripted_user(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    code, _out, err = cli(
        "run", "--agent", f"{EXAMPLE}:NoneBaseline", "--tasks", "demo:small", "--task",
        "quote_approval", "--limit", "2", "--interactive", "--protocol", "workbench",
        "--db", str(db),
    )  # fmt: skip
    assert code == 0, err
    found = _sessions(db)
    assert len(found) == 2
    for session, _person, events in found:
        assert session.interactive and session.status == "submitted"
        said = [e.actor for e in events if e.kind == "message"]
        assert said[:2] == ["user", "agent"] and said.count("user") >= 2  # opened, answered


def test_the_viewer_shows_a_python_agents_steps(tmp_path: Path) -> None:
    from crmarena_tui.widgets.step_list import build_steps

    db = tmp_path / "s.db"
    cli("run", "--agent", f"{EXAMPLE}:NoneBaseline", "--tasks", "demo:small", "--task",
        "quote_approval", "--limit", "1", "--protocol", "workbench", "--db", str(db))  # fmt: skip
    [(session, _, events)] = _sessions(db)
    steps = build_steps(events)
    assert [s.kind for s in steps if s.kind in ("query", "submit")] == ["query", "query", "submit"]


AGENT_MODULE = textwrap.dedent(
    """
    import os, time

    class Slow:
        name = "slow-agent"

        def solve(self, task, env):
            env.execute_soql("SELECT Id FROM Quote LIMIT 1")
            marker = os.environ.get("SLOW_MARKER")
            if marker and not os.path.exists(marker):
                open(marker, "w").close()
                time.sleep(600)  # killed here, after one acknowledged query
            env.respond("None")
    """
)


def test_a_killed_run_resumes_its_sessions_with_their_events(tmp_path: Path) -> None:
    agent = tmp_path / "slow_agent.py"
    agent.write_text(AGENT_MODULE)
    db, marker = tmp_path / "s.db", tmp_path / "started"
    command = [
        sys.executable, "-m", "crmarena_tui", "run", "--agent", f"{agent}:Slow",
        "--tasks", "demo:small", "--task", "quote_approval", "--limit", "3",
        "--protocol", "workbench", "--db", str(db),
    ]  # fmt: skip
    env = {**os.environ, "SLOW_MARKER": str(marker), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the agent never started"
        time.sleep(0.1)
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    before = {s.id: (s.status, [e.seq for e in ev]) for s, _, ev in _sessions(db)}
    [open_one] = [sid for sid, (status, _) in before.items() if status == "in_progress"]
    assert len(before[open_one][1]) >= 2  # its query and observation were kept

    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    after = _sessions(db)
    assert len(after) == 3 and all(s.status == "submitted" for s, _, _ in after)
    resumed = next(ev for s, _, ev in after if s.id == open_one)
    assert [e.seq for e in resumed][: len(before[open_one][1])] == before[open_one][1]
    assert len({(s.task_source, s.task_idx) for s, _, _ in after}) == 3  # no task twice


def test_an_installed_agent_is_listed_and_found_by_name(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "my_agents").mkdir(parents=True)
    (site / "my_agents" / "__init__.py").write_text(
        "class Answerer:\n    name = 'installed-answerer'\n"
        "    def solve(self, task, env):\n        env.respond('None')\n"
    )
    info = site / "my_agents-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-agents\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[crmarena_tui.agents]\nanswerer = my_agents:Answerer\n")
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}"}
    base = [sys.executable, "-m", "crmarena_tui"]
    listed = subprocess.run([*base, "agents"], env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0
    assert re.search(r"^answerer +my_agents:Answerer$", listed.stdout, re.M), listed.stdout
    db = tmp_path / "s.db"
    ran = subprocess.run(
        [*base, "run", "--agent", "answerer", "--tasks", "demo:small", "--task",
         "quote_approval", "--limit", "2", "--protocol", "workbench", "--db", str(db)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert {p.name for _, p, _ in _sessions(db)} == {"installed-answerer"}


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("missing_agent.py:Agent", "no such file"),
        ("tests.support.study_support:NoSuchThing", "has no callable named 'NoSuchThing'"),
        ("tests.support.study_support:TYPES", "has no callable named 'TYPES'"),
    ],
)
def test_an_agent_that_cannot_be_loaded_is_one_line(spec: str, says: str, tmp_path) -> None:
    code, _out, err = cli("run", "--agent", spec, "--tasks", "demo:small", "--limit", "1",
                          "--protocol", "workbench", "--db", str(tmp_path / "s.db"))  # fmt: skip
    assert code != 0 and says in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_model_names_are_not_taken_for_python_agents() -> None:
    from crmarena_tui.agents.python_agent import is_python_spec

    assert is_python_spec(f"{EXAMPLE}:NoneBaseline")
    assert is_python_spec("tests.support.study_support:work")
    for model in ("openai/gpt-4o", "ollama/llama3:8b", "ollama/qwen2.5:latest", "llama3:latest"):
        assert not is_python_spec(model), model


def test_a_stopped_run_stops_the_agent_between_actions_and_keeps_the_session_open(
    tmp_path: Path,
) -> None:
    from crmarena_tui.agents.python_agent import PythonAgent

    calls: list[str] = []

    class Chatty:
        name = "chatty"

        def solve(self, task, env):
            for k in range(5):
                calls.append(env.execute_soql(f"SELECT Id FROM Quote LIMIT {k + 1}"))
            env.respond("None")

    import crmarena_tui.agents.python_agent as module

    agent = PythonAgent.__new__(PythonAgent)
    agent.spec, agent.impl, agent.name, agent.model = "x:Chatty", Chatty(), "chatty", None
    agent.aided = agent.privacy_aware = False
    episode = _episode(tmp_path)
    steps = agent.steps(episode)
    first, second = next(steps), next(steps)
    assert (first.action, second.action) == ("execute", "execute") and first.ok
    steps.close()  # the driver stops the run here
    time.sleep(0.2)
    assert len(calls) == 2 and not episode.finished  # the third query never ran
    assert [e.kind for e in episode.events].count("query") == 2
    assert module.AgentStopped


def _episode(tmp_path: Path):
    from crmarena_tui.demo.sources import load_tasks
    from crmarena_tui.session.org_resolve import open_task_org
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.settings.config import load_settings

    task = next(t for t in load_tasks("demo:small") if t.task == "quote_approval"
                and not t.interactive)  # fmt: skip
    service = SessionService(load_settings())
    store = Store(tmp_path / "s.db")
    person = store.participant("agent", "chatty", settings={"strategy": "python"})
    org = open_task_org(task, None)[0]
    return service.start(store, service.spec(task, org, person, protocol="workbench"))


def test_a_relative_and_an_absolute_path_are_one_participant_and_siblings_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "helpers_for_my_agent.py").write_text("ANSWER = 'None'\n", encoding="utf-8")
    (folder / "my_agent.py").write_text(
        textwrap.dedent(
            """
            from helpers_for_my_agent import ANSWER

            class Agent:
                name = "sibling-agent"

                def solve(self, task, env):
                    env.respond(ANSWER)
            """
        ),
        encoding="utf-8",
    )
    db = tmp_path / "s.db"
    monkeypatch.chdir(tmp_path)
    base = ("--task", "handle_time", "--protocol", "workbench", "--db", str(db))
    code, _out, err = cli("run", "--agent", "agents/my_agent.py:Agent", "--tasks", "demo:small",
                          "--limit", "1", *base)  # fmt: skip
    assert code == 0, err
    code, out, err = cli("run", "--agent", f"{folder / 'my_agent.py'}:Agent", "--tasks",
                         "demo:small", "--limit", "2", *base)  # fmt: skip
    assert code == 0, err
    assert "1 skipped" in out + err  # the first path's session is the same participant's
    found = _sessions(db)
    assert len(found) == 2 and len({p.id for _, p, _ in found}) == 1
    assert found[0][1].settings["agent"] == "my_agent.py:Agent"
