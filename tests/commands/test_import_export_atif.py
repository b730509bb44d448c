"""`crmarena-tui export --format atif` and `crmarena-tui import` of ATIF files, as a user types
them: the round trip, grading under --protocol, a broken file among good ones, idempotence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.errors import ExitCode
from crmarena_tui.storage import Store
from tests.interchange.test_atif_import import _task, _write, foreign_trajectory
from tests.support.interchange_support import database_contents, played_sessions


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("played") / "s.db"
    played_sessions(db)
    return db


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_export_then_import_round_trips_and_again_changes_nothing(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, fresh = tmp_path / "atif", tmp_path / "fresh.db"
    code, said, _ = run(
        capsys, "export", "--db", str(played), "--format", "atif", "--out", str(out)
    )
    assert code == 0 and "wrote 4 trajectory file(s)" in said
    imported = ("import", str(out), "--db", str(fresh), "--task-source", "demo:small")
    code, said, err = run(capsys, *imported)
    assert code == 0, err
    assert "4 trajectory file(s) read (4 atif): 4 session(s) imported" in said
    assert database_contents(fresh) == database_contents(played)
    code, said, _ = run(capsys, *imported)
    assert code == 0 and "0 session(s) imported, 4 skipped as already present" in said
    assert database_contents(fresh) == database_contents(played)


def test_export_filters_apply(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--where keeps the sessions it keeps in a JSON Lines export: one file each."""
    out, rows = tmp_path / "atif", tmp_path / "rows.jsonl"
    where = ("--db", str(played), "--where", "#2")
    assert run(capsys, "export", *where, "--out", str(rows))[0] == 0
    kept = [json.loads(line)["session_id"] for line in rows.read_text().splitlines()]
    assert 0 < len(kept) < 4
    code, said, _ = run(capsys, "export", *where, "--format", "atif", "--out", str(out))
    assert code == 0 and f"wrote {len(kept)} trajectory file(s)" in said
    assert sorted(f.name for f in out.iterdir()) == [f"session-{i:07d}.json" for i in kept]
    code, _, err = run(capsys, "export", "--db", str(played), "--format", "atif", "--out", str(out))
    assert code == ExitCode.USAGE and "pass --force" in err
    code, _, err = run(
        capsys,
        "export",
        "--db",
        str(played),
        "--format",
        "atif",
        "--out",
        str(out / "x"),
        "--events",
    )
    assert code == ExitCode.USAGE and "--events" in err


def test_an_answer_without_a_grade_is_graded_under_the_protocol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _write(tmp_path / "run.json", foreign_trajectory(_task()))
    db = tmp_path / "s.db"
    args = ("import", str(file), "--db", str(db), "--task-source", "demo:small")
    code, said, err = run(capsys, *args, "--protocol", "workbench")
    assert code == 0, err
    assert "graded 1 imported session(s) under workbench" in said
    with Store(db) as store:
        (session,) = store.sessions()
        grade = store.grade(session.id)
        assert grade is not None and (grade.protocol, grade.reward) == ("workbench", 1.0)
        assert session.protocol == "workbench"
    code, said, _ = run(capsys, *args)  # again: nothing imported, nothing graded twice
    assert code == 0 and "graded" not in said
    with Store(db) as store:
        assert len(store.grades()) == 1


def test_a_broken_file_is_refused_by_name_and_the_others_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    good = foreign_trajectory(_task(), reward=1.0)
    _write(folder / "a.json", good)
    doc = good.to_json_dict()
    doc["steps"][2]["tool_calls"][0].pop("function_name")
    doc["session_id"] = "other run"
    (folder / "b.json").write_text(json.dumps(doc))
    db = tmp_path / "s.db"
    code, said, err = run(
        capsys, "import", str(folder), "--db", str(db), "--task-source", "demo:small"
    )
    assert code == ExitCode.FAILED
    assert (
        f"refused {folder / 'b.json'}: trajectory, field steps[2].tool_calls[0].function_name"
        in err
    )
    assert "2 trajectory file(s) read (2 atif), 1 refused: 1 session(s) imported" in said
    with Store(db) as store:
        assert len(store.sessions()) == 1
