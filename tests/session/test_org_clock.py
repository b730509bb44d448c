"""The org's clock (session/org_clock.py): which day a session's relative date literals count
from under each protocol, that it is stored with the session, and that a run resumed on another
day keeps it."""

from __future__ import annotations

import json
import sqlite3
from datetime import date, datetime
from pathlib import Path

import pytest

from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.session.episode import Episode
from crmarena_tui.session.service import SessionService
from crmarena_tui.settings.config import Settings
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.model import Task, TaskMetadata
from tests.support.soql_fixture_support import build_fixture_org

COUNT_4_MONTHS = "SELECT COUNT(Id) FROM Case WHERE CreatedDate = LAST_N_MONTHS:4"
COUNT_THIS_MONTH = "SELECT COUNT(Id) FROM Case WHERE CreatedDate = THIS_MONTH"


def at(day: str, clock: str = "12:00") -> float:
    """An epoch time on `day` (local time, as the run's date is read)."""
    return datetime.fromisoformat(f"{day}T{clock}").timestamp()


def task(today: str | None = "2024-05-15", idx: int = 1) -> Task:
    required = f"Today's date: {today}" if today else "Cases are support tickets."
    return Task(
        idx=idx,
        task="case_routing",
        query="How many cases were opened in the last four months?",
        answer=["6"],
        metadata=TaskMetadata(required=required, optional=""),
        reward_metric="exact_match",
        persona="",
        source="test",
        org_type="b2b",
    )


def count(episode: Episode, soql: str) -> int:
    result = episode.execute(soql, actor="agent")
    assert result.ok, result.error
    return int(result.records[0]["expr0"])


@pytest.fixture()
def org(tmp_path: Path) -> LocalOrg:
    with LocalOrg(build_fixture_org(tmp_path / "org.db")) as opened:
        yield opened


def start(store: Store, org: LocalOrg, when: float, **fields) -> Episode:
    me = store.participant("agent", "openai/gpt-4o/react")
    spec = SessionSpec(fields.pop("task", None) or task(), org, me, **fields)
    return Episode.start(store, spec, clock=lambda: when)


def test_upstream_counts_from_the_runs_date_and_workbench_from_the_tasks(
    tmp_path: Path, org: LocalOrg
) -> None:
    """The worked example: one query, one task dated 2024-05-15, a run on 2025-06-01."""
    with Store(tmp_path / "s.db") as store:
        upstream = start(store, org, at("2025-06-01"), protocol="upstream")
        workbench = start(store, org, at("2025-06-01"), protocol="workbench")
        assert count(upstream, COUNT_4_MONTHS) == 0  # as the live org answered in 2025
        assert count(workbench, COUNT_4_MONTHS) == 6  # the answer the task means
        stored = store.session(upstream.session_id).settings
        assert (stored["org_today"], stored["org_clock"]) == ("2025-06-01", "run")
        stored = store.session(workbench.session_id).settings
        assert (stored["org_today"], stored["org_clock"]) == ("2024-05-15", "task")


def test_an_explicit_date_is_the_clock_under_either_protocol(tmp_path: Path, org: LocalOrg) -> None:
    service = SessionService(Settings(org_today=date(2024, 5, 15)), clock=lambda: at("2025-06-01"))
    with Store(tmp_path / "s.db") as store:
        me = store.participant("agent", "openai/gpt-4o/react")
        for protocol in ("upstream", "workbench"):
            spec = service.spec(task("2023-01-01"), org, me, protocol=protocol)
            episode = service.start(store, spec)
            assert count(episode, COUNT_4_MONTHS) == 6
            stored = store.session(episode.session_id).settings
            assert (stored["org_today"], stored["org_clock"]) == ("2024-05-15", "set")


def test_a_task_without_a_date_under_workbench_counts_from_the_orgs_own(
    tmp_path: Path, org: LocalOrg
) -> None:
    with Store(tmp_path / "s.db") as store:
        episode = start(store, org, at("2025-06-01"), protocol="workbench", task=task(None))
        assert count(episode, COUNT_4_MONTHS) == 6  # the fixture org's own date: 2024-05-15
        stored = store.session(episode.session_id).settings
        assert (stored["org_today"], stored["org_clock"]) == ("2024-05-15", "org")


def test_a_run_resumed_after_midnight_keeps_its_sessions_and_their_clock(
    tmp_path: Path, org: LocalOrg
) -> None:
    with Store(tmp_path / "s.db") as store:
        before = start(store, org, at("2024-05-31", "23:50"), protocol="upstream")
        assert count(before, COUNT_THIS_MONTH) == 8
        after = start(store, org, at("2024-06-01", "00:10"), protocol="upstream")
        assert after.session_id == before.session_id  # resumed, not a new attempt
        assert store.session(after.session_id).settings["org_today"] == "2024-05-31"
        assert count(after, COUNT_THIS_MONTH) == 8  # still the day it started on
        fresh = start(store, org, at("2024-06-01", "00:10"), protocol="upstream", task=task(idx=2))
        assert count(fresh, COUNT_THIS_MONTH) == 0  # a new session counts from the new day


def test_an_explicit_date_is_part_of_the_configuration(tmp_path: Path, org: LocalOrg) -> None:
    with Store(tmp_path / "s.db") as store:
        first = start(
            store, org, at("2025-06-01"), protocol="upstream", org_today=date(2024, 5, 15)
        )
        again = start(
            store, org, at("2025-06-02"), protocol="upstream", org_today=date(2024, 5, 15)
        )
        other = start(store, org, at("2025-06-02"), protocol="upstream", org_today=date(2024, 6, 1))
        default = start(store, org, at("2025-06-02"), protocol="upstream")
        assert again.session_id == first.session_id
        assert len({first.session_id, other.session_id, default.session_id}) == 3


def test_a_session_stored_before_clocks_counts_from_its_tasks_date(
    tmp_path: Path, org: LocalOrg
) -> None:
    """An upstream session started before this change (no `org_today`) resumes into the
    same session and keeps counting from its task's date, as it did; a fork of it too."""
    db = tmp_path / "s.db"
    with Store(db) as store:
        old = start(store, org, at("2025-06-01"), protocol="upstream")
        key = store.session(old.session_id).settings_key
    with sqlite3.connect(db) as conn:  # as written before clocks were recorded
        conn.execute("UPDATE sessions SET settings = json_remove(settings, '$.org_today')")
        conn.execute("UPDATE sessions SET settings = json_remove(settings, '$.org_clock')")
    with Store(db) as store:
        resumed = start(store, org, at("2025-06-02"), protocol="upstream")
        assert resumed.session_id == old.session_id
        assert store.session(resumed.session_id).settings_key == key
        assert "org_today" not in store.session(resumed.session_id).settings
        assert count(resumed, COUNT_4_MONTHS) == 6
        at_seq = resumed.events[-1].seq
        me = store.participant("human", "ann")
        fork = Episode.fork(store, old.session_id, at_seq, org, me, protocol="upstream")
        assert store.session(fork.session_id).settings["org_today"] == "2024-05-15"
        assert count(fork, COUNT_4_MONTHS) == 6


def test_a_fork_keeps_its_sources_clock(tmp_path: Path, org: LocalOrg) -> None:
    with Store(tmp_path / "s.db") as store:
        source = start(store, org, at("2025-06-01"), protocol="upstream")
        count(source, COUNT_4_MONTHS)
        me = store.participant("human", "ann")
        fork = Episode.fork(
            store,
            source.session_id,
            source.events[-1].seq,
            org,
            me,
            protocol="upstream",
            clock=lambda: at("2026-01-01"),
        )
        stored = store.session(fork.session_id).settings
        assert (stored["org_today"], stored["org_clock"]) == ("2025-06-01", "run")
        assert count(fork, COUNT_4_MONTHS) == 0


def test_the_setting_reads_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRMARENA_TUI_ORG_TODAY", "2025-06-01")
    assert Settings().org_today == date(2025, 6, 1)


def test_run_records_an_explicit_org_today(tmp_path: Path) -> None:
    from crmarena_tui.cli import main

    db = tmp_path / "cli.db"
    argv = ["run", "--agent", "reference", "--tasks", "demo:small", "--limit", "1"]
    assert main([*argv, "--org-today", "2025-06-01", "--db", str(db)]) == 0
    with Store(db) as store:
        (session,) = store.sessions()
        assert (session.settings["org_today"], session.settings["org_clock"]) == (
            "2025-06-01",
            "set",
        )


def test_query_counts_from_org_today_or_the_setting(
    org: LocalOrg, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmarena_tui.cli import main

    argv = ["query", COUNT_4_MONTHS, "--org", str(org.path), "--format", "json"]
    assert main(argv) == 0  # the org's own date: 2024-05-15
    assert json.loads(capsys.readouterr().out)["records"][0]["expr0"] == 6
    assert main([*argv, "--org-today", "2025-06-01"]) == 0
    assert json.loads(capsys.readouterr().out)["records"][0]["expr0"] == 0
    monkeypatch.setenv("CRMARENA_TUI_ORG_TODAY", "2025-06-01")
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["records"][0]["expr0"] == 0


def test_a_bad_org_today_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from crmarena_tui.cli import main

    with pytest.raises(SystemExit):
        main(["run", "--agent", "reference", "--org-today", "June 1st"])
    assert "not a date (YYYY-MM-DD): 'June 1st'" in capsys.readouterr().err


def test_an_mcp_queue_sessions_count_from_the_setting(tmp_path: Path, org: LocalOrg) -> None:
    """`mcp --org-today` reaches the queue's sessions through the service's settings."""
    from crmarena_tui.session.org_pool import OrgPool
    from crmarena_tui.session.task_queue import QueueOptions, TaskQueue

    service = SessionService(Settings(protocol="upstream", org_today=date(2024, 5, 15)))
    with Store(tmp_path / "q.db") as store:
        queue = TaskQueue(
            store,
            [task("2023-01-01")],
            service,
            QueueOptions(),
            orgs=OrgPool(None, factory=lambda org_type: org),
        )
        env = queue.next_task("agent-x")
        assert env is not None
        assert "'expr0': 6" in env.execute_soql(COUNT_4_MONTHS)
        assert store.session(env.episode.session_id).settings["org_clock"] == "set"
