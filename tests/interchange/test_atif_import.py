"""ATIF import: a file written by the `atif` models' own serialisation becomes a session of its
configuration, matched to its task; an export read back gives the same sessions, events,
grades and labels; a broken file is refused whole, naming file, entry and field."""

from __future__ import annotations

import json
from pathlib import Path

import atif
import pytest

from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.interchange.atif_export import export_atif
from crmarena_tui.interchange.atif_read import read_atif, recognises_atif
from crmarena_tui.interchange.importer import find_files, import_trajectories, recognise
from crmarena_tui.interchange.task_match import TaskMatcher
from crmarena_tui.interchange.writer import EntryError, TrajectoryWriter
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.interchange_support import database_contents, played_sessions


def _task() -> Task:
    return next(t for t in demo_tasks("b2b", size="small") if not t.interactive)


def foreign_trajectory(task: Task, **extra: object) -> atif.Trajectory:
    """A run of another harness on `task`, made with the `atif` models."""
    return atif.Trajectory(
        schema_version="ATIF-v1.6",
        session_id="run-7",
        agent=atif.Agent(name="terminus", version="2.0", model_name="gpt-4o-mini"),
        steps=[
            atif.Step(step_id=1, source="system", message="You are a CRM agent."),
            atif.Step(
                step_id=2, source="user", message=task.query, timestamp="2025-10-16T14:30:00Z"
            ),
            atif.Step(
                step_id=3,
                source="agent",
                message="",
                reasoning_content="Count the cases first.",
                tool_calls=[
                    atif.ToolCall(
                        tool_call_id="c1",
                        function_name="execute_soql",
                        arguments={"query": "SELECT COUNT() FROM Case"},
                    )
                ],
                observation=atif.Observation(
                    results=[atif.ObservationResult(source_call_id="c1", content="[42]")]
                ),
                metrics=atif.Metrics(prompt_tokens=120, completion_tokens=30, cost_usd=0.002),
                timestamp="2025-10-16T14:30:04Z",
            ),
            atif.Step(step_id=4, source="agent", message=str(task.answer[0])),
        ],
        notes="converted from a terminus run",
        extra=extra or None,
    )


def _write(path: Path, trajectory: atif.Trajectory) -> Path:
    path.write_text(trajectory.model_dump_json(exclude_none=True))
    return path


def test_a_file_the_atif_models_wrote_becomes_a_session(tmp_path: Path) -> None:
    task = _task()
    file = _write(tmp_path / "anything.json", foreign_trajectory(task))
    assert recognises_atif(file, file.read_bytes()[:100])
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher("demo:small"), protocol="workbench")
        result = writer.write_file(file, read_atif(file), "atif")
        (session,) = store.sessions()
        assert (session.task_source, session.task_idx) == ("demo", task.idx)  # by query text
        assert result.ungraded == [session.id]  # an answer, no grade: the command grades it
        assert [(e.actor, e.kind) for e in store.events(session.id)] == [
            ("system", "system"),
            ("user", "message"),
            ("agent", "thought"),
            ("agent", "query"),
            ("system", "observation"),
            ("agent", "usage"),
            ("agent", "submit"),
        ]
        person = store.get_participant(session.participant_id)
        assert (person.name, person.model) == ("terminus", "gpt-4o-mini")
        assert session.settings["imported_from"] == "atif"
        (note,) = store.annotations.find(session.id, kind="note")
        assert note.note == "converted from a terminus run"


def test_a_final_message_with_its_metrics_is_the_answer(tmp_path: Path) -> None:
    # (a harness that records each model call's tokens puts metrics on the last step as well:
    # its message is still the answer, graded, not a message of an abandoned session)
    task = _task()
    trajectory = foreign_trajectory(task)
    trajectory.steps[-1].metrics = atif.Metrics(prompt_tokens=200, completion_tokens=8)
    file = _write(tmp_path / "t.json", trajectory)
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher("demo:small"), protocol="workbench")
        result = writer.write_file(file, read_atif(file), "atif")
        (session,) = store.sessions()
        assert result.ungraded == [session.id]
        kinds = [(e.kind, e.payload) for e in store.events(session.id)][-3:]
        assert [kind for kind, _ in kinds] == ["usage", "usage", "submit"]
        assert kinds[-1][1]["answer"] == str(task.answer[0])


def test_a_reward_in_the_file_is_kept_as_its_grade(tmp_path: Path) -> None:
    task = _task()
    file = _write(tmp_path / "t.json", foreign_trajectory(task, task_idx=task.idx, reward=0.5))
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher("demo:small"))
        assert writer.write_file(file, read_atif(file), "atif").ungraded == []
        grade = store.grade(store.sessions()[0].id)
        assert grade is not None and (grade.reward, grade.imported) == (0.5, True)
        assert (grade.protocol, grade.grader) == ("imported", "atif")  # (not upstream's grade)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("played")
    played_sessions(root / "s.db")
    with Store(root / "s.db") as store:
        export_atif(store, root / "out")
    return root / "s.db", root / "out"


def test_export_then_import_gives_the_same_sessions_events_grades_and_labels(
    played: tuple[Path, Path], tmp_path: Path
) -> None:
    db, out = played
    fresh = tmp_path / "fresh.db"
    with Store(fresh) as store:
        files, others = recognise(find_files([out]))
        assert others == [] and len(files) == 4
        summary = import_trajectories(
            files, TrajectoryWriter(store, tasks=TaskMatcher("demo:small"))
        )
        assert (summary.imported, summary.refused, summary.ungraded) == (4, [], [])
    assert database_contents(fresh) == database_contents(db)
    with Store(fresh) as store:  # again: nothing changes
        again = import_trajectories(files, TrajectoryWriter(store, tasks=TaskMatcher("demo:small")))
        assert (again.imported, again.skipped) == (0, 4)
    assert database_contents(fresh) == database_contents(db)


def test_a_broken_file_is_refused_whole_naming_file_entry_and_field(
    played: tuple[Path, Path], tmp_path: Path
) -> None:
    _db, out = played
    first = sorted(out.glob("*.json"))[0]
    doc = json.loads(first.read_text())
    doc["steps"][-1]["extra"]["crmarena_tui"]["kind"] = "teleport"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher("demo:small"))
        with pytest.raises(EntryError) as err:
            writer.write_file(broken, read_atif(broken), "atif")
        assert (err.value.path, err.value.entry) == (broken, "trajectory")
        last = len(doc["steps"]) - 1
        assert err.value.field == f"steps[{last}].extra.crmarena_tui.kind"
        assert f"{broken}: trajectory, field steps[{last}].extra.crmarena_tui.kind" in str(
            err.value
        )
        assert store.read("SELECT COUNT(*) FROM sessions")[0][0] == 0
        assert store.read("SELECT COUNT(*) FROM participants")[0][0] == 0


def test_a_file_that_is_not_atif_is_named_with_its_field(tmp_path: Path) -> None:
    file = tmp_path / "t.json"
    doc = foreign_trajectory(_task()).to_json_dict()
    doc["steps"][2]["source"] = "robot"
    file.write_text(json.dumps(doc))
    with pytest.raises(EntryError, match=r"t\.json: trajectory, field steps\[2\]\.source"):
        read_atif(file)[0]
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher("demo:small"))
        with pytest.raises(EntryError):
            writer.write_file(file, read_atif(file), "atif")


def test_an_interrupted_import_is_finished_by_running_it_again(
    played: tuple[Path, Path], tmp_path: Path
) -> None:
    db, out = played
    fresh = tmp_path / "fresh.db"
    files, _ = recognise(find_files([out]))
    with Store(fresh) as store:  # as if stopped after the first two files
        first = import_trajectories(
            files[:2], TrajectoryWriter(store, tasks=TaskMatcher("demo:small"))
        )
        assert first.imported == 2
    with Store(fresh) as store:
        rest = import_trajectories(files, TrajectoryWriter(store, tasks=TaskMatcher("demo:small")))
        assert (rest.imported, rest.skipped) == (2, 2)
    assert database_contents(fresh) == database_contents(db)


def test_regrade_keeps_a_harness_grade_unless_imported_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmarena_tui.cli import main

    task = _task()
    file = _write(tmp_path / "t.json", foreign_trajectory(task, task_idx=task.idx, reward=0.5))
    db = tmp_path / "s.db"
    with Store(db) as store:
        TrajectoryWriter(store, tasks=TaskMatcher("demo:small")).write_file(
            file, read_atif(file), "atif"
        )
        (session,) = store.sessions()
    assert main(["regrade", "--db", str(db), "--format", "json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out) == [] and "1 imported session(s) keep the grades" in out.err
    assert main(["regrade", str(session.id), "--db", str(db)]) != 0  # named: refused, said why
    assert "is imported from atif with that harness's grade" in capsys.readouterr().err
    assert main(["regrade", "--imported", "--db", str(db), "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["old_reward"], row["reward"]) == (0.5, 1.0)  # the right answer, graded here
    with Store(db) as store:
        grade = store.grade(session.id)
        assert grade is not None and grade.protocol != "imported" and grade.reward == 1.0
