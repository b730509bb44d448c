"""The app's pure helpers, without a terminal: filtering, completion, result cells, error marker,
task panel text, the remembered participant name."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from crmarena_tui.orgs.reference_schema import reference_schema
from crmarena_tui.settings import locations
from crmarena_tui.settings.config import load_settings
from crmarena_tui.settings.config_file import remember_participant
from crmarena_tui.tasks.index import Facets, TaskIndex, TaskStatus
from crmarena_tui.tasks.model import Task
from crmarena_tui.widgets.result_rows import cell_text, looks_like_id, rows_of, table_of
from crmarena_tui.widgets.results_view import error_marker
from crmarena_tui.widgets.soql_completion import Completer
from crmarena_tui.widgets.task_panel import task_markdown
from tests.support.app_support import SAMPLE

TASKS = [Task(**row) for row in json.loads(SAMPLE.read_text())]
WORDS = ["handle", "time", "quote", "b2b", "exact", "agent", "least", "#7", "policy", "case", "xyz"]


def brute(index: TaskIndex, text: str, facets: Facets) -> list[int]:
    terms = text.lower().split()
    return [
        i
        for i, t in enumerate(index.tasks)
        if all(term in index.hay[i] for term in terms) and facets.accepts(t, index.status(t))
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), max_size=3).map(" ".join), min_size=1, max_size=6),
    st.sampled_from(["", "exact_match", "fuzzy_match"]),
)
def test_filter_matches_a_brute_force_scan_whatever_the_typing_order(texts, metric) -> None:
    """Narrowing reuses the previous matches: it must never give another answer than a scan."""
    index = TaskIndex(TASKS, {TASKS[0].key: TaskStatus("submitted", 1.0, 1)})
    facets = Facets(metric=metric)
    for text in texts:
        for cut in range(len(text) + 1):  # type it a character at a time
            assert index.filter(text[:cut], facets) == brute(index, text[:cut], facets)


def test_status_facet_and_labels() -> None:
    statuses = {
        TASKS[0].key: TaskStatus("submitted", 0.5, 1),
        TASKS[1].key: TaskStatus("in progress"),
    }
    index = TaskIndex(TASKS, statuses)
    assert index.filter("", Facets(status="submitted")) == [0]
    assert index.filter("", Facets(status="in progress")) == [1]
    assert len(index.filter("", Facets(status="new"))) == len(TASKS) - 2
    assert [statuses[TASKS[0].key].label, statuses[TASKS[1].key].label] == ["0.50", "started"]


def test_completion_by_context() -> None:
    c = Completer(reference_schema())
    assert c.complete("SELECT Id FROM Acc").candidates[0] == "Account"
    assert c.complete(
        "SELECT Id, Account.Na FROM Case", len("SELECT Id, Account.Na")
    ).candidates == ("Name",)
    sub = "SELECT Id, (SELECT Id FROM Con"
    assert c.complete(sub + ") FROM Account", len(sub)).candidates[:2] == ("Contacts", "Contracts")
    inner = "SELECT Id, (SELECT La"
    assert (
        c.complete(inner + " FROM Contacts) FROM Account", len(inner)).candidates[0] == "LastName"
    )
    assert c.complete("FIND {x} RETURNING Account(Na").candidates == ("Name",)
    assert c.complete("SELECT Id FROM Case WHERE Stat").suggestion == "us"


def test_result_cells_flatten_parents_and_count_children() -> None:
    records = [
        {
            "attributes": {"type": "Case"},
            "Id": "500000000000001AAA",
            "Account": {"attributes": {"type": "Account"}, "Name": "Acme"},
            "Subject": "line one\nline two",
            "IsEscalated": True,
            "Amount": 3.0,
            "Tasks": {"totalSize": 2, "done": True, "records": [{}, {}]},
        },
        {"Id": "500000000000002AAA", "Extra": None},
    ]
    columns, flat = table_of(records)
    assert columns == ["Id", "Account.Name", "Subject", "IsEscalated", "Amount", "Tasks", "Extra"]
    assert rows_of(columns, flat)[0] == (
        "500000000000001AAA",
        "Acme",
        "line one line two",
        "true",
        "3",
        "2 records",
        "",
    )
    assert cell_text("x" * 200).endswith("…") and len(cell_text("x" * 200)) == 80
    assert looks_like_id("500000000000001AAA", {"500"}) and not looks_like_id("Closed Won Deal")
    assert not looks_like_id("001000000000001AAA", {"500"})


def test_error_marker_points_at_the_offset() -> None:
    query = "SELECT Id\nFROM Case\nWHERE Foo = 1"
    assert (
        error_marker(query, query.index("Foo")) == "WHERE Foo = 1\n      ^\nERROR at Row:3:Column:7"
    )
    assert error_marker(query, None) == ""


def test_task_panel_shows_optional_details_only_when_aided_and_never_the_answer() -> None:
    task = next(t for t in TASKS if t.metadata.optional and t.answer[0])
    plain, aided = (
        task_markdown(task.redacted(), aided=False),
        task_markdown(task.redacted(), aided=True),
    )
    assert "Domain details" not in plain and "Domain details" in aided
    assert task.answer[0] not in aided
    chat = task.redacted().model_copy(update={"interactive": True, "query": "", "persona": "Calm."})
    text = task_markdown(chat, aided=False)
    assert "explains what they need in the chat" in text and "Calm." in text


def test_the_participant_name_is_kept_in_the_config_file() -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('judge_model = "gpt-x"\n\n[other]\nkey = 1\n')
    remember_participant("Ann O'Neil")
    remember_participant('Ann "A" O\'Neil')  # replaced, not appended
    text = path.read_text()
    assert text.count("participant =") == 1 and "[other]" in text
    settings_ = load_settings()
    assert settings_.participant == 'Ann "A" O\'Neil' and settings_.judge_model == "gpt-x"
