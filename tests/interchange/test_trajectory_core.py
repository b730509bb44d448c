"""The shared import core: format-neutral trajectories written as sessions, matched to their
task, one transaction per file, idempotent, refused whole with file, entry and field named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmarena_tui.interchange.task_match import TaskMatcher
from crmarena_tui.interchange.trajectory import (
    Configuration,
    Remark,
    Step,
    Trajectory,
    TrajectoryGrade,
)
from crmarena_tui.interchange.writer import EntryError, TrajectoryWriter
from crmarena_tui.storage import Store


@pytest.fixture
def tasks(sample_rows_path: Path) -> tuple[str, list[dict]]:
    """The sample b2b rows as a task file (its path is the task source)."""
    return str(sample_rows_path), json.loads(sample_rows_path.read_text())


def _trajectory(entry: str, idx: int | None = None, query: str | None = None, **more) -> Trajectory:
    return Trajectory(
        entry=entry,
        participant=Configuration("other-harness", model="gpt-x", settings={"temp": 0}),
        steps=[
            Step("user", "message", {"text": "hello"}, ts="2025-10-16T14:30:00Z"),
            Step("agent", "query", {"text": "SELECT Id FROM Case"}, ts="2025-10-16T14:30:01Z"),
            Step("system", "observation", {"observation": "[]"}, ts="2025-10-16T14:30:02Z"),
        ],
        task_idx=idx,
        query=query,
        key=f"digest-of-{entry}",
        **more,
    )


def _counts(store: Store) -> tuple[int, ...]:
    return tuple(
        store.read(f"SELECT COUNT(*) FROM {table}")[0][0]
        for table in ("participants", "sessions", "events", "grades", "annotations")
    )


def test_matched_by_idx_or_query_with_grades_and_remarks_kept(
    tmp_path: Path, tasks: tuple[str, list[dict]]
) -> None:
    source, rows = tasks
    file = tmp_path / "run.json"
    file.write_text("{}")
    graded = _trajectory(
        "samples[0]",
        idx=rows[3]["idx"],
        final_answer="42",
        grades=[TrajectoryGrade(reward=1.0, answer="42", grader="exact_match")],
        remarks=[
            Remark("ann", label="wrong_filter", step=2),
            Remark("ann", kind="note", note="ok"),
        ],
    )
    by_query = _trajectory("samples[1]", query="  " + rows[5]["query"].replace(" ", "\n ") + " ")
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher(source), protocol="workbench")
        result = writer.write_file(file, [graded, by_query], "test")
        assert (result.imported, result.skipped, result.ungraded) == (2, 0, [])
        first, second = store.sessions()
        assert (first.task_idx, second.task_idx) == (rows[3]["idx"], rows[5]["idx"])
        assert first.task_json["query"] == rows[3]["query"]
        assert first.status == "submitted" and second.status == "abandoned"
        assert [e.kind for e in store.events(first.id)] == [
            "message",
            "query",
            "observation",
            "submit",
            "grade",
        ]
        assert store.events(first.id)[1].ts is not None
        grade = store.grade(first.id)
        assert grade is not None and (grade.reward, grade.imported) == (1.0, True)
        assert grade.protocol == "imported"  # (another harness's grade: not upstream's)
        assert first.protocol == "workbench" and second.protocol == "workbench"
        labels = store.annotations.find(first.id)
        assert [(a.label, a.event_seq) for a in labels] == [("wrong_filter", 2)]
        assert first.settings["imported_from"] == "test"

        again = writer.write_file(file, [graded, by_query], "test")  # idempotent
        assert (again.imported, again.skipped) == (0, 2)
        assert _counts(store) == (1, 2, 8, 1, 2)


def test_answer_without_grade_is_left_for_the_command_to_grade(
    tmp_path: Path, tasks: tuple[str, list[dict]]
) -> None:
    source, rows = tasks
    file = tmp_path / "run.json"
    file.write_text("{}")
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher(source))
        entry = _trajectory("t", idx=rows[0]["idx"], final_answer="x")
        result = writer.write_file(file, [entry], "test")
        assert len(result.ungraded) == 1
        # a later run (resumed after an interruption) still reports it ungraded
        assert writer.write_file(file, [entry], "test").ungraded == result.ungraded


def test_a_broken_entry_refuses_the_whole_file_naming_it(
    tmp_path: Path, tasks: tuple[str, list[dict]]
) -> None:
    source, rows = tasks
    file = tmp_path / "run.json"
    file.write_text("{}")
    broken = _trajectory("samples[1]", idx=rows[1]["idx"])
    broken.steps[1].kind = "teleport"
    unknown = _trajectory("samples[2]", idx=999_999)
    with Store(tmp_path / "s.db") as store:
        writer = TrajectoryWriter(store, tasks=TaskMatcher(source))
        with pytest.raises(EntryError) as err:
            writer.write_file(file, [_trajectory("samples[0]", idx=rows[0]["idx"]), broken], "t")
        assert (err.value.entry, err.value.field) == ("samples[1]", "steps[1].kind")
        assert str(file) in str(err.value)
        assert _counts(store) == (0, 0, 0, 0, 0)  # nothing half-imported, not even a participant
        with pytest.raises(EntryError, match=r"samples\[2\], field task idx: no task of .* 999999"):
            writer.write_file(file, [unknown], "t")
        assert writer.write_file(file, [_trajectory("ok", idx=rows[0]["idx"])], "t").imported == 1


def _hits(store: Store, phrase: str) -> list[int]:
    """The index keys (session << 24 | seq) matching `phrase`."""
    sql = "SELECT rowid FROM event_search WHERE event_search MATCH ? ORDER BY rowid"
    return [row[0] for row in store.read(sql, (phrase,))]


def test_indexed_for_search_as_written_and_a_refused_file_not(
    tmp_path: Path, tasks: tuple[str, list[dict]]
) -> None:
    source, rows = tasks
    file = tmp_path / "run.json"
    file.write_text("{}")
    good = [_trajectory(f"t{i}", idx=rows[i]["idx"]) for i in range(2)]
    good[1].steps[2].payload["observation"] = '[{"Name": "Zebra Ltd"}]'
    broken = _trajectory("samples[0]", idx=rows[2]["idx"])
    broken.steps[0].payload["text"] = "okapi sighting"
    broken.remarks = [Remark("ann", kind="teleport")]  # (refused once its events are queued)
    found = {}
    for index in (True, False):
        with Store(tmp_path / f"{index}.db") as store:
            writer = TrajectoryWriter(store, tasks=TaskMatcher(source), index=index)
            refused: list[EntryError] = []
            readers = [(file, lambda t=t: [t], "t") for t in (good[0], broken, good[1])]
            assert writer.write_files(readers, refused.append).imported == 2
            assert [e.entry for e in refused] == ["samples[0]"]
            pending = store.read("SELECT COUNT(*) FROM search_pending")[0][0]
            if index:  # (nothing left for the first search to index)
                assert pending == 0
            else:
                from crmarena_tui.storage.search_index import catch_up

                assert pending == 1
                catch_up(store)
            phrases = ('"zebra"', '"okapi"', '"<k:query>"', '"<o:case>"', '"hello"')
            found[index] = [_hits(store, p) for p in phrases]
    zebra, okapi, queries, cases, hello = found[True]
    assert okapi == [] and zebra == [(2 << 24) | 3]  # (the refused file's text is not indexed)
    assert queries == cases == [(1 << 24) | 2, (2 << 24) | 2] and len(hello) == 2
    assert found[True] == found[False]  # the same index as the first search's catch-up makes


@pytest.mark.parametrize(
    "value",
    [
        {"text": "SELECT Id FROM Case", "n": 3, "ok": True, "none": None},
        {"cost": 1e-05, "tiny": -9.4e-07, "small": 0.00012, "big": 1e16, "half": 0.5},
        {"text": "note 0.00001 and 1e-5 as text", "x": 1.0},
        {"api_key": "sk-1", "nested": {"password": "p", "keep": [1, {"token": "t"}]}},
        {"big": 2**70, "neg": -(2**64)},
        {"text": 'caf\u00e9 \u2028 \x00\x1f\x7f "q" \\', "emoji": "\U0001f600"},
        {"lone": "\ud800 surrogate"},
        {"nan": float("nan"), "inf": float("inf")},
        {"b": [1, [2, [3, {"z": "y", "a": "b"}]]], "a": []},
    ],
)
def test_payload_stored_as_the_store_writes_it(value: object) -> None:
    from crmarena_tui.interchange.trajectory import json_text, stored_json
    from crmarena_tui.storage.convert import dumps, scrubbed_json

    assert stored_json(value) == scrubbed_json(value)
    assert json_text(value) == dumps(value)  # (a task's row: nothing scrubbed)
