"""Task loading: the real sample rows, local file formats, broken files, the hub offline."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from crmarena_tui.tasks.catalog import BY_NAME, TASK_TYPES, task_type
from crmarena_tui.tasks.loaders import TaskLoadError, load_schema_rows, load_tasks
from crmarena_tui.tasks.model import Task


def _raw(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def test_the_44_real_rows_load_exactly(sample_rows_path: Path) -> None:
    raw = _raw(sample_rows_path)
    tasks = load_tasks(str(sample_rows_path))
    assert len(tasks) == 44
    for row, task in zip(raw, tasks, strict=True):
        for field in ("idx", "task", "query", "answer", "reward_metric", "persona"):
            assert getattr(task, field) == row[field], field
        assert task.metadata.required == row["metadata"]["required"]
        assert task.metadata.optional == row["metadata"]["optional"]
        assert task.org_type == "b2b" and task.interactive is False
        assert task.source == str(sample_rows_path.resolve())
    assert {t.task for t in tasks} == set(BY_NAME)


def test_none_answers_read_as_none_for_grading(sample_rows_path: Path) -> None:
    tasks = load_tasks(str(sample_rows_path))
    none_rows = [t for t in tasks if t.answer == [None]]
    assert none_rows, "the sample has [null] answers"
    assert all(t.gold == ["None"] for t in none_rows)


def test_a_file_whose_every_answer_is_null_loads(tmp_path: Path, sample_rows_path: Path) -> None:
    rows = [dict(r, answer=[None]) for r in _raw(sample_rows_path)]
    path = tmp_path / "all_null.json"
    path.write_text(json.dumps(rows))
    tasks = load_tasks(str(path))
    assert len(tasks) == 44 and all(t.answer == [None] for t in tasks)


def test_jsonl_and_parquet_match_json(tmp_path: Path, sample_rows_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _raw(sample_rows_path)
    jsonl = tmp_path / "rows_b2c_interactive.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    parquet = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet)
    base = load_tasks(str(sample_rows_path))
    from_jsonl = load_tasks(str(jsonl))
    from_parquet = load_tasks(str(parquet))
    strip = lambda ts: [t.model_dump(exclude={"source", "org_type", "interactive"}) for t in ts]  # noqa: E731
    assert strip(from_jsonl) == strip(base)
    assert strip(from_parquet) == strip(base)
    # org type and interactivity follow the file name when the rows do not say
    assert all(t.org_type == "b2c" and t.interactive for t in from_jsonl)


def test_full_size_file_of_2140_rows_loads(tmp_path: Path, sample_rows_path: Path) -> None:
    rows = _raw(sample_rows_path)
    big = [dict(rows[i % 44], idx=i) for i in range(2140)]
    path = tmp_path / "b2b.json"
    path.write_text(json.dumps(big))
    tasks = load_tasks(str(path))
    assert [t.idx for t in tasks] == list(range(2140))
    assert sum(len(t.answer) > 1 for t in tasks) == sum(len(r["answer"]) > 1 for r in big)


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda rows: rows[7].update(idx="seven"), "row 7"),
        (lambda rows: rows[3].update(reward_metric="close_enough"), "row 3 (idx"),
        (lambda rows: rows[5].update(answer="005Wt000003NIvNIAW"), "row 5"),
        (lambda rows: rows[9].update(metadata="just text"), "row 9"),
        (lambda rows: rows[2].pop("task"), "field 'task' is missing"),
    ],
)
def test_a_broken_file_names_the_row_and_field(
    tmp_path: Path, sample_rows_path: Path, mutate, expected: str
) -> None:
    rows = _raw(sample_rows_path)
    mutate(rows)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(TaskLoadError) as err:
        load_tasks(str(path))
    message = str(err.value)
    assert expected in message
    assert "field '" in message
    assert str(path) in message


def test_broken_field_names_the_field(tmp_path: Path, sample_rows_path: Path) -> None:
    rows = _raw(sample_rows_path)
    rows[3]["reward_metric"] = "close_enough"
    path = tmp_path / "broken.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(TaskLoadError, match=r"row 3 .*field 'reward_metric'"):
        load_tasks(str(path))


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[{"idx": 1,\n "task": }]')
    with pytest.raises(TaskLoadError, match="line 2"):
        load_tasks(str(path))


def test_missing_file_and_unknown_type(tmp_path: Path) -> None:
    with pytest.raises(TaskLoadError, match="no such task file"):
        load_tasks(str(tmp_path / "nope.json"))
    other = tmp_path / "rows.csv"
    other.write_text("idx,task\n")
    with pytest.raises(TaskLoadError, match="unsupported file type"):
        load_tasks(str(other))


def test_offline_hub_fails_fast_naming_local_alternatives() -> None:
    start = time.monotonic()
    with pytest.raises(TaskLoadError) as err:
        load_tasks("hf:b2b")
    assert time.monotonic() - start < 5
    assert "--tasks demo" in str(err.value) and ".jsonl" in str(err.value)


def test_unknown_hub_split_is_named() -> None:
    with pytest.raises(TaskLoadError, match="hf:b2b_interactive"):
        load_tasks("hf:b3b")


def test_schema_rows_drop_null_padding(tmp_path: Path) -> None:
    rows = [
        {"object": "Case", "fields": {"Subject": "Subject of the case", "Name": None}},
        {"object": "Issue__c", "fields": {"Subject": None, "Name": "Name of the issue"}},
    ]
    path = tmp_path / "b2b_schema.json"
    path.write_text(json.dumps(rows))
    loaded = load_schema_rows(str(path))
    assert loaded == [
        {"object": "Case", "fields": {"Subject": "Subject of the case"}},
        {"object": "Issue__c", "fields": {"Name": "Name of the issue"}},
    ]


def test_catalogue_has_the_22_types_with_metrics() -> None:
    assert len(TASK_TYPES) == 22
    assert task_type("knowledge_qa").metric == "fuzzy_match"
    assert task_type("knowledge_qa").facing == "external"
    assert {t.name for t in TASK_TYPES if t.metric == "privacy_rejection"} == {
        "private_customer_information",
        "internal_operation_data",
        "confidential_company_knowledge",
    }
    with pytest.raises(KeyError, match="known types"):
        task_type("nope")


def test_task_redaction_hides_the_ground_truth(sample_rows_path: Path) -> None:
    task = load_tasks(str(sample_rows_path))[0]
    assert task.answer
    assert task.redacted().answer == []
    assert isinstance(task.redacted(), Task)


def test_json_and_jsonl_files_load_without_datasets(tmp_path: Path, sample_rows_path: Path) -> None:
    import subprocess
    import sys

    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in _raw(sample_rows_path)))
    probe = (
        "import sys\nfrom crmarena_tui.tasks.loaders import load_tasks\n"
        f"assert len(load_tasks({str(sample_rows_path)!r})) == 44\n"
        f"assert len(load_tasks({str(jsonl)!r})) == 44\n"
        "print(sorted(m for m in ('datasets', 'pyarrow', 'pandas', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_broken_row_is_named_with_its_idx(tmp_path: Path, sample_rows_path: Path) -> None:
    rows = _raw(sample_rows_path)
    rows[4]["difficulty"] = "hard"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(TaskLoadError) as err:
        load_tasks(str(path))
    assert str(err.value) == f"{path}: row 4 (idx {rows[4]['idx']}): unknown field 'difficulty'"


def test_a_broken_jsonl_line_is_named(tmp_path: Path, sample_rows_path: Path) -> None:
    lines = [json.dumps(r) for r in _raw(sample_rows_path)[:5]]
    lines[3] = lines[3][:-1]  # the closing brace lost
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TaskLoadError, match=r"not valid JSON at line 4 "):
        load_tasks(str(path))


def test_numbers_in_an_answer_list_read_as_text(tmp_path: Path, sample_rows_path: Path) -> None:
    rows = _raw(sample_rows_path)[:3]
    rows[1]["answer"] = [3, 2.5]
    path = tmp_path / "numbers.json"
    path.write_text(json.dumps(rows))
    assert load_tasks(str(path))[1].answer == ["3", "2.5"]


def test_repeated_text_is_held_once(tmp_path: Path, sample_rows_path: Path) -> None:
    rows = _raw(sample_rows_path)
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows))
    tasks = load_tasks(str(path))
    # the split's domain text is the same in every row: one copy for all tasks
    assert len(tasks[0].metadata.optional) > 500
    assert len({id(t.metadata.optional) for t in tasks}) == 1
    assert tasks[0].metadata.optional == rows[0]["metadata"]["optional"]
