"""`crmarena-tui scan` as a user runs it, its model on a loopback OpenAI server: a scan killed
(SIGKILL) midway resumes without reading a session twice; the estimate and the cost limit;
rubrics saved by name; themes stored and reported."""

from __future__ import annotations

import csv
import os
import re
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store
from tests.fakes.openai_server import FakeOpenAIServer
from tests.support.scan_support import ScannerModel, failed_sessions

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/gpt-4o-mini"


def _readings(db: Path) -> int:
    with closing(sqlite3.connect(db, timeout=30)) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM scan_readings").fetchone()[0])
        except sqlite3.OperationalError:  # (not migrated yet)
            return 0


@pytest.mark.slow
def test_a_scan_killed_midway_resumes_without_reading_a_session_twice(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        ids = failed_sessions(store, 12)
    model = ScannerModel(hold_after=5)  # the 6th request on waits: the kill comes meanwhile
    with FakeOpenAIServer(fallback=model) as server:
        argv = ["scan", "--db", str(db), "--model", MODEL, "--api-base", server.base_url]
        argv += ["--concurrency", "2", "--yes"]
        child = subprocess.Popen(
            [sys.executable, "-m", "crmarena_tui", *argv],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 600
            while _readings(db) < 5 or model.requests < 7:  # 5 stored, 2 under way
                assert child.poll() is None, child.stderr.read() if child.stderr else ""
                assert time.monotonic() < deadline, "the scan never read 5 sessions"
                time.sleep(0.05)
            child.kill()
            child.wait(30)
        finally:
            if child.poll() is None:
                child.kill()
        with Store(db) as store:
            (scan,) = store.suggestions.scans()
            before = store.suggestions.read_sessions(scan.id)
        asked_before = dict(model.asked)
        model.release.set()
        model.hold_after = None
        assert main(argv) == 0
    assert len(before) == 5
    with Store(db) as store:
        assert store.suggestions.read_sessions(scan.id) == set(ids)
        assert len(store.suggestions.readings(scan.id)) == 12
        assert len(store.suggestions.of_scan(scan.id)) == 12  # one suggestion per session
        assert store.suggestions.scans() == [store.suggestions.scan(scan.id)]  # resumed, not new
    again = {s: n - asked_before.get(s, 0) for s, n in model.asked.items()}
    assert all(model.asked[s] == 1 for s in before)  # read once: never asked again
    assert {s for s, n in again.items() if n} == set(ids) - before


@pytest.mark.slow
def test_two_scans_at_once_print_true_lines_and_never_read_a_session_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        ids = failed_sessions(store, 12)
    model = ScannerModel(hold_after=3)  # the first scan's 4th request waits
    with FakeOpenAIServer(fallback=model) as server:
        argv = ["scan", "--db", str(db), "--model", MODEL, "--api-base", server.base_url]
        argv += ["--concurrency", "1", "--yes"]
        first = subprocess.Popen(
            [sys.executable, "-m", "crmarena_tui", *argv],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 600
            while model.requests < 4:  # 3 read, the 4th under way (held)
                assert first.poll() is None, first.communicate()
                assert time.monotonic() < deadline, "the first scan never read 3 sessions"
                time.sleep(0.05)
            model.hold_after = None  # (the second scan's requests are answered at once)
            capsys.readouterr()
            assert main(argv) == 0  # the second scan, while the first waits
            second = capsys.readouterr().out
            model.release.set()
            out, err = first.communicate(timeout=600)
        finally:
            if first.poll() is None:
                first.kill()
    assert first.returncode == 0, err
    assert "12 session(s) selected (failed), 0 read before, 12 to read" in out
    plan = re.search(
        rf"(\d+) read before, (\d+) being read by another scan now \(pid {first.pid}\),"
        r" (\d+) to read",
        second,
    )
    assert plan is not None, second
    before, busy, todo = (int(n) for n in plan.groups())
    assert before + busy + todo == 12 and busy >= 1  # (at least the one under way)
    assert f"read {todo} session(s), 0 failed, {before} skipped (read before);" in second
    assert f"left to another scan still reading them (pid {first.pid});" in second
    read_first = re.search(r"read (\d+) session\(s\), 0 failed, 0 skipped \(read before\);", out)
    assert read_first is not None, out
    assert int(read_first.group(1)) + todo == 12
    assert f"{todo} read by another scan meanwhile;" in out
    assert sorted(model.asked) == ids and set(model.asked.values()) == {1}  # each read once
    with Store(db) as store:
        (scan,) = store.suggestions.scans()
        assert store.suggestions.read_sessions(scan.id) == set(ids) and scan.finished_at


def test_the_estimate_is_printed_and_a_scan_above_the_cost_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        failed_sessions(store, 4, observation="x" * 5_000)
    argv = ["scan", "--db", str(db), "--model", MODEL, "--api-base", "http://127.0.0.1:9/v1"]
    assert main([*argv, "--estimate"]) == 0
    out = capsys.readouterr().out
    assert "4 session(s) selected (failed), 0 read before, 4 to read" in out
    assert "estimate: 4 session(s), ~" in out and "about $0.00" in out
    assert main([*argv, "--max-cost", "0"]) == 2  # (no terminal to ask at: refused)
    err = capsys.readouterr().err
    assert "is above --max-cost ($0): pass --yes, or a higher --max-cost" in err


def test_a_rubric_is_saved_by_name_and_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        ids = failed_sessions(store, 2)
    schema = '{"type": "object", "properties": {"blamed_user": {"type": "boolean"}}}'
    save = ["scan", "--db", str(db), "--save-rubric", "blame", "--question", "Blamed the user?"]
    assert main([*save, "--answer-schema", '{"type": "objekt"}']) == 2
    assert "--answer-schema: not a JSON Schema" in capsys.readouterr().err
    assert main([*save, "--answer-schema", schema]) == 0
    assert main(["scan", "--db", str(db), "--rubrics"]) == 0
    assert "blame: Blamed the user?" in capsys.readouterr().out
    with FakeOpenAIServer(fallback=ScannerModel()) as server:
        argv = ["scan", "--db", str(db), "--model", MODEL, "--api-base", server.base_url]
        assert main([*argv, "--rubric", "blame", "--yes"]) == 0
        assert main([*argv, "--rubric", "nope"]) == 2
    with Store(db) as store:
        (scan,) = store.suggestions.scans()
        assert (scan.name, scan.kind, scan.rubric) == (f"blame@{MODEL}", "rubric", "blame")
        assert {s.session_id: s.answer for s in store.suggestions.of_scan(scan.id)} == {
            sid: {"blamed_user": sid % 2 == 1} for sid in ids
        }


def test_the_expected_answer_is_shown_only_to_a_rubric_that_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        failed_sessions(store, 1)
    schema = '{"type": "object", "properties": {"blamed_user": {"type": "boolean"}}}'
    save = ["scan", "--db", str(db), "--question", "Blamed the user?", "--answer-schema", schema]
    assert main([*save, "--save-rubric", "plain"]) == 0
    assert main([*save, "--save-rubric", "told", "--show-answer"]) == 0
    assert "(its transcripts show the expected answer)" in capsys.readouterr().out
    with FakeOpenAIServer(fallback=ScannerModel()) as server:
        argv = ["scan", "--db", str(db), "--model", MODEL, "--api-base", server.base_url, "--yes"]
        shown = {}
        for name in ("labels", "plain", "told"):
            assert main([*argv, *(["--rubric", name] if name != "labels" else [])]) == 0
            transcript = server.requests[-1]["messages"][1]["content"]
            assert "\nQuery: " in transcript and "Task: handle_time #0" in transcript
            shown[name] = 'Expected answer: ["x"]' in transcript
    assert shown == {"labels": False, "plain": False, "told": True}
    with Store(db) as store:
        versions = {s.rubric: s.prompt_version for s in store.suggestions.scans()}
    assert versions["told"] == versions["plain"] + "+answer"


def test_themes_are_stored_and_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        ids = failed_sessions(store, 6)
        store.annotations.add(ids[0], "", note="Used Case for an Opportunity question.",
                              annotator="ana", kind="note")  # fmt: skip
    with FakeOpenAIServer(fallback=ScannerModel()) as server:
        argv = ["scan", "--db", str(db), "--model", MODEL, "--api-base", server.base_url]
        assert main([*argv, "--yes"]) == 0
        capsys.readouterr()
        assert main([*argv, "--themes"]) == 0
    out = capsys.readouterr().out
    assert "grouping 7 reason(s) and note(s) of 6 session(s)" in out
    assert "Wrong object (" in out and "gpt-4o/react" in out
    with Store(db) as store:
        from crmarena_tui.storage import themes

        latest = themes.latest(store)
        assert latest is not None and latest.kind == "themes"
        found = themes.of_scan(store, latest.id)
    assert sum(len(t.members) for t in found) == 7
    assert any(m.source == "note" and m.link == str(ids[0]) for t in found for m in t.members)
    assert main(["report", "--db", str(db)]) == 0
    report = capsys.readouterr().out
    assert "Themes" in report and "Wrong object" in report
    assert f"{found[0].members[0].link}" in report
    out = tmp_path / "themes.csv"
    assert main(["export", "--db", str(db), "--themes", "--out", str(out)]) == 0
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 7 and {r["theme"] for r in rows} == {t.name for t in found}
    note = next(r for r in rows if r["source"] == "note")
    assert (note["link"], note["configuration"]) == (str(ids[0]), "gpt-4o/react")
