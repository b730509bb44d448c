"""`sessions merge --prefer first|newest|ask` (issue 29): two differing copies of one session keep
one copy, named in the output, instead of vanishing from the merge (and from the study report)."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.commands import sessions as sessions_command
from crmarena_tui.storage import Store
from crmarena_tui.storage.merge import merge_databases
from tests.support.study_support import cli, work, write_tasks

SAME = "cd" * 16


@pytest.fixture
def two_copies(tmp_path: Path) -> tuple[Path, Path]:
    """One session (one uuid) on two laptops: graded 1 on the first, 0 on the second, and the
    second's worked on later (its events carry later times)."""
    first = write_tasks(tmp_path / "tasks.json")[0]
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    for path, reward, when in ((one, 1.0, "2026-01-01"), (two, 0.0, "2026-02-01")):
        with Store(path) as store:
            work(store, "ana", first, study_id=None, reward=reward)
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("UPDATE sessions SET uuid = ?", (SAME,))
            conn.execute("UPDATE events SET ts = ? || substr(ts, 11)", (when,))
            conn.execute("UPDATE grades SET graded_at = ? || substr(graded_at, 11)", (when,))
            conn.commit()
    return one, two


def _kept_reward(path: Path) -> list[float]:
    with Store(path) as store:
        [session] = store.sessions()
        assert session.uuid == SAME
        return [g.reward for g in store.grades(session.id)]


def test_without_a_preference_both_copies_are_left_out(two_copies, tmp_path: Path) -> None:
    one, two = two_copies
    code, out, _ = cli("sessions", "merge", str(one), str(two), "--out", str(tmp_path / "m.db"))
    assert code == 1 and "1 conflict(s)" in out


def test_prefer_first_keeps_the_first_inputs_copy_and_names_it(two_copies, tmp_path) -> None:
    one, two = two_copies
    merged = tmp_path / "m.db"
    code, out, _ = cli(
        "sessions", "merge", str(two), str(one), "--out", str(merged), "--prefer", "first"
    )
    assert code == 0
    assert "1 session(s) added, 0 already present, 0 conflict(s), 1 resolved." in out
    assert re.search(rf"^  {SAME}  kept {two} \(first\); not {one}$", out, re.M)
    assert _kept_reward(merged) == [0.0]


def test_prefer_newest_keeps_the_copy_worked_on_last(two_copies, tmp_path: Path) -> None:
    one, two = two_copies
    merged = tmp_path / "m.db"
    code, out, _ = cli(
        "sessions", "merge", str(two), str(one), "--out", str(merged), "--prefer", "newest"
    )
    assert code == 0 and re.search(rf"kept {two} \(newest\)", out)
    assert _kept_reward(merged) == [0.0]
    merged2 = tmp_path / "m2.db"  # the input order does not matter
    cli("sessions", "merge", str(one), str(two), "--out", str(merged2), "--prefer", "newest")
    assert _kept_reward(merged2) == [0.0]


def test_prefer_ask_shows_both_copies_and_keeps_the_one_typed(
    two_copies, tmp_path: Path, monkeypatch, capsys
) -> None:
    one, two = two_copies
    replies = iter(["7", "2"])  # a number out of range is asked again
    monkeypatch.setattr("builtins.input", lambda prompt: next(replies))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    merged = tmp_path / "m.db"
    code = sessions_command.run_merge(
        sessions_command.argparse.Namespace(inputs=[one, two], out=merged, prefer="ask")
    )
    out = capsys.readouterr().out
    assert code == 0
    assert f"[1] {one}: submitted" in out and "reward 1.00" in out
    assert f"[2] {two}: submitted" in out and "reward 0.00" in out
    assert "type a number from 1 to 2" in out
    assert re.search(rf"kept {two} \(chosen\)", out)
    assert _kept_reward(merged) == [0.0]


def test_prefer_ask_leaves_it_out_on_enter(two_copies, tmp_path: Path) -> None:
    one, two = two_copies
    result = merge_databases([one, two], tmp_path / "m.db", prefer="ask", choose=lambda u, c: None)
    assert [c.uuid for c in result.conflicts] == [SAME] and result.added == 0


def test_prefer_ask_refuses_without_a_terminal(two_copies, tmp_path: Path, monkeypatch) -> None:
    one, two = two_copies
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code, _out, err = cli(
        "sessions", "merge", str(one), str(two), "--out", str(tmp_path / "m.db"), "--prefer", "ask"
    )
    assert code != 0 and "--prefer ask reads your choices from a terminal" in err


def test_a_copy_already_in_the_output_is_kept_under_any_preference(two_copies, tmp_path) -> None:
    one, two = two_copies
    merged = tmp_path / "m.db"
    assert cli("sessions", "merge", str(one), "--out", str(merged))[0] == 0
    code, out, _ = cli("sessions", "merge", str(two), "--out", str(merged), "--prefer", "newest")
    assert code == 0 and "kept" in out and "(already in the output)" in out
    assert _kept_reward(merged) == [1.0]
