"""Session-level search (issue 40): a generated set of sessions whose truth (the sessions each
query must find) is computed in Python from the raw events, checked against `search` (and, in
test_search_duckdb.py, against duckdb over the exports); `then`, negation, session facts,
`re:` and system prompts; errors with a column."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import Store, search
from crmarena_tui.storage.end_reason import end_kind
from crmarena_tui.storage.search_query import SearchSyntaxError, parse
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec

Event = tuple[str, str, dict[str, Any]]
OBJECTS = ("Case", "Account", "Contract")
MODELS = ("gpt-4o-2024-08-06", "gpt-4o-mini", "o1x", "o1-2024-12-17")


@dataclasses.dataclass
class Made:
    """One generated session: what the truth is computed from."""

    sid: int
    model: str
    source: str
    events: list[Event]
    ended: str
    labels: set[str]
    trial: int = 1


def _steps(rng: random.Random) -> list[Event]:
    events: list[Event] = []
    if rng.random() < 0.5:
        company = rng.choice(("Globex", "Initech"))
        prompt = f"You work for {company}. Answer with Salesforce Ids."
        events.append(("system", "system", {"event": "system_prompt", "text": prompt}))
    for _ in range(rng.randint(2, 7)):
        obj = rng.choice(OBJECTS)
        events.append(
            rng.choice(
                [
                    ("agent", "query", {"text": f"SELECT Id FROM {obj} LIMIT 5"}),
                    ("system", "error", {"error": f"INVALID_FIELD: No column on entity '{obj}'."}),
                    ("system", "error", {"error": f"MALFORMED_QUERY: near {obj}"}),
                    ("system", "observation", {"observation": f"500Wt{rng.randint(0, 99):04d}"}),
                    ("agent", "message", {"text": "Checking the Case status now."}),
                    ("agent", "thought", {"text": "Opportunity stages matter here."}),
                ]
            )
        )
    return events


def _generate(store: Store, n: int, seed: int = 40) -> list[Made]:
    rng = random.Random(seed)
    people = {m: store.participant("agent", m, model=m) for m in MODELS}
    made: list[Made] = []
    for i in range(n):
        model = rng.choice(MODELS)
        source = rng.choice(("test", "hf:b2c"))
        settings: dict[str, Any] = {"strategy": "react"}
        events = _steps(rng)
        end = rng.random()
        status = "in_progress"
        if end < 0.5:
            events.append(("agent", "submit", {"answer": "500Wt0001"}))
            status = "submitted"
        elif end < 0.7:
            events.append(("system", "system", {"text": "agent turn limit (20) reached"}))
            status = "abandoned"
        elif end < 0.8:
            settings["end_reason"] = {"message": "SOQL/SOSL query error", "source": "agent"}
            status = "abandoned"
        task = make_task(i + 1).model_copy(update={"source": source})
        trial = 1 + (i % 3 == 0) + (i % 7 == 0)  # (`run --trials K`'s numbers: 1, 2 or 3)
        spec = session_spec(people[model], task, settings=settings, trial=trial)
        sid = store.create_session(spec).id
        for actor, kind, payload in events:
            store.append_event(sid, actor, kind, payload)
        if status != "in_progress":
            store.set_status(sid, status)
        if status == "submitted":
            store.add_grade(
                sid,
                Grade(
                    answer="500Wt0001",
                    parsed_answer=["500Wt0001"],
                    reward=float(rng.random() < 0.5),
                    grader="exact_match",
                    extraction="deterministic",
                ),
            )
        labels = {"wrong object"} if rng.random() < 0.25 else set()
        for label in labels:
            store.annotations.add(sid, label, annotator="ana")
        ended = (
            "query-error"
            if "end_reason" in settings
            else {"submitted": "submit", "in_progress": "in-progress"}.get(status, "max-turns")
        )
        made.append(Made(sid, model, source, events, ended, labels, trial))
    return made


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Made]]:
    path = tmp_path_factory.mktemp("sessions") / "sessions.db"
    with Store(path) as store:
        made = _generate(store, 160)
    return path, made


# -- the truth: Python over the raw events ---------------------------------------------------


def err_case(e: Event) -> bool:
    return (
        e[1] == "error"
        and e[2].get("error", "").startswith("INVALID_FIELD")
        and "'Case'" in (e[2]["error"])
    )


def kind(name: str) -> Callable[[Event], bool]:
    return lambda e: e[1] == name


def names(obj: str) -> Callable[[Event], bool]:
    """The event names `obj` as the index's `object:` does (a query's FROM, an error's)."""

    def test(e: Event) -> bool:
        text = e[2].get("text", "") if e[1] == "query" else e[2].get("error", "")
        if e[1] == "query":
            return f"FROM {obj} " in text
        return e[1] == "error" and f"entity '{obj}'" in text

    return test


def both(*tests: Callable[[Event], bool]) -> Callable[[Event], bool]:
    return lambda e: all(t(e) for t in tests)


def chain(m: Made, *tests: Callable[[Event], bool]) -> bool:
    """A step for each test, in order (each later than the one before)."""
    at = 0
    for test in tests:
        while at < len(m.events) and not test(m.events[at]):
            at += 1
        if at == len(m.events):
            return False
        at += 1
    return True


def then_not(m: Made, *tests: Callable[[Event], bool], unless: Callable[[Event], bool]) -> bool:
    """A step for each test, in order, the last with no step after it that `unless` accepts."""
    at = 0
    for test in tests[:-1]:
        while at < len(m.events) and not test(m.events[at]):
            at += 1
        if at == len(m.events):
            return False
        at += 1
    return any(
        tests[-1](e) and not any(unless(f) for f in m.events[j + 1 :])
        for j, e in enumerate(m.events)
        if j >= at
    )


def text_of(e: Event) -> str:
    if e[2].get("event") == "system_prompt":
        return ""
    return "\n".join(str(e[2][k]) for k in ("text", "observation", "error", "answer") if k in e[2])


ID7 = re.compile(r"500Wt\d{3}7")
QUERIES: list[tuple[str, Callable[[Made], bool]]] = [
    (
        "error:INVALID_FIELD object:Case then kind:submit",
        lambda m: chain(m, err_case, kind("submit")),
    ),
    (
        "error:INVALID_FIELD object:Case -kind:submit",
        lambda m: chain(m, err_case) and not chain(m, kind("submit")),
    ),
    (
        "error:INVALID_FIELD object:Case then not kind:submit",
        lambda m: then_not(m, err_case, unless=kind("submit")),
    ),
    (
        "kind:query then kind:error then -object:Case",
        lambda m: then_not(m, kind("query"), kind("error"), unless=names("Case")),
    ),
    ("NOT object:Case", lambda m: not chain(m, names("Case"))),
    ("-object:Case", lambda m: not chain(m, names("Case"))),
    (
        "kind:query object:Contract then error:MALFORMED_QUERY then kind:submit",
        lambda m: chain(
            m,
            both(kind("query"), names("Contract")),
            lambda e: e[2].get("error", "").startswith("MALFORMED_QUERY"),
            kind("submit"),
        ),
    ),
    (
        "not (kind:query then error:INVALID_FIELD)",
        lambda m: (
            not chain(m, kind("query"), lambda e: e[2].get("error", "").startswith("INVALID_FIELD"))
        ),
    ),
    ("ended:max-turns", lambda m: m.ended == "max-turns"),
    ("ended:submit,query-error", lambda m: m.ended in ("submit", "query-error")),
    ("kind:error -ended:submit", lambda m: chain(m, kind("error")) and m.ended != "submit"),
    (
        'label:"wrong object" kind:thought',
        lambda m: "wrong object" in m.labels and chain(m, kind("thought")),
    ),
    ('-label:"wrong object" source:hf', lambda m: not m.labels and m.source == "hf:b2c"),
    (r're:"500Wt\d{3}7"', lambda m: any(ID7.search(text_of(e)) for e in m.events)),
    (
        r"kind:observation re:500Wt\d{3}7 then kind:submit",
        lambda m: chain(
            m, lambda e: e[1] == "observation" and bool(ID7.search(text_of(e))), kind("submit")
        ),
    ),
    (
        "kind:prompt Globex",
        lambda m: any("Globex" in e[2].get("text", "") for e in m.events if e[1] == "system"),
    ),
    ("participant:gpt-4o", lambda m: m.model == "gpt-4o-2024-08-06"),
    ("trial:2,3 kind:submit", lambda m: m.trial > 1 and chain(m, kind("submit"))),
    ("kind:error -trial:1", lambda m: m.trial != 1 and chain(m, kind("error"))),
    ("participant:o1", lambda m: m.model == "o1-2024-12-17"),
    (
        "participant:gpt-4o/react kind:submit",
        lambda m: m.model == "gpt-4o-2024-08-06" and chain(m, kind("submit")),
    ),
]


@pytest.mark.parametrize(("text", "truth"), QUERIES, ids=[q for q, _ in QUERIES])
def test_search_finds_exactly_the_truth(
    generated: tuple[Path, list[Made]], text: str, truth: Callable[[Made], bool]
) -> None:
    path, made = generated
    expected = {m.sid for m in made if truth(m)}
    assert 0 < len(expected) < len(made)  # (the generated set makes every query selective)
    with Store(path) as store:
        assert search.session_ids(store, text) == expected
        assert set(search.run(store, text).sessions) == expected


def test_the_truth_of_ended_is_what_the_export_says(
    tmp_path: Path, generated: tuple[Path, list[Made]]
) -> None:
    path, made = generated
    out = tmp_path / "all.jsonl"
    assert main(["export", "--db", str(path), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["session_id"]: end_kind(r["end_reason"]) for r in rows} == {
        m.sid: m.ended for m in made
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind:error OR kind:query", "OR is not supported.* at column 12"),
        ("then kind:submit", "then needs a step before it at column 1"),
        ("kind:error then", "then needs a step after it at column 12"),
        ("kind:error then not kind:submit kind:query", "ends its chain.* at column 33"),
        ("kind:error then not (kind:query then kind:submit)", "takes one step.* at column 21"),
        ("kind:error then not ended:submit", "needs a step after it.* at column 21"),
        ("not", "not needs something after it at column 1"),
        ("(kind:error (kind:query))", "groups do not nest at column 13"),
        ("(kind:error", r"a \( is not closed"),
        ("re:(unclosed", "is not a regular expression .* at column 1"),
        ("kind:query ended:finished", "ended:finished is not an end .* at column 12"),
        ("(kind:error ended:submit)", "ended: is a session fact: write it outside"),
        ("kind:prompt,query Globex", "kind:prompt takes words"),
        ("kind:error Id", "'Id' is too short .* at column 12"),
        ("kind:error trial:0", r"trial:0 is not a trial number \(1, 2, ...\) at column 12"),
        ("kind:error or (kind:query)", "OR is not supported.* at column 12"),
        ("kind:error | kind:query", "OR is not supported.* at column 12"),
        ("not (kind:error not kind:query)", "not inside a group .* at column 17"),
        ("kind:query then (kind:error)", "then needs a step after it, not a group at column 17"),
    ],
)
def test_an_unsupported_form_is_an_error_with_its_column(text: str, message: str) -> None:
    with pytest.raises(SearchSyntaxError, match=message):
        parse(text)


def test_simple_searches_parse_as_before() -> None:
    query = parse('kind:query,search "FROM Case" object:"Case" Status')
    assert query.simple and query.terms == ("FROM Case", "Status")
    assert not parse("error:X then kind:submit").simple


def test_labels_from_a_session_search_and_removing_them(
    tmp_path: Path, generated: tuple[Path, list[Made]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, made = generated
    copy = tmp_path / "copy.db"
    with closing(sqlite3.connect(path)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    text = "error:INVALID_FIELD object:Case -kind:submit"
    expected = {m.sid for m in made if chain(m, err_case) and not chain(m, kind("submit"))}
    args = ["search", "--db", str(copy), text, "--as", "ana", "--level", "session"]
    assert main([*args, "--label", "wrong object", "--note", "no answer after it"]) == 0
    with Store(copy) as store:
        got = store.read(
            "SELECT session_id, note FROM annotations WHERE annotator = 'ana'"
            " AND label = 'wrong object' AND event_seq IS NULL AND note != ''"
        )
    assert {sid for sid, _ in got} == expected - {m.sid for m in made if m.labels}
    assert {note for _, note in got} == {"no answer after it"}
    assert main([*args, "--unlabel", "wrong object"]) == 0
    assert f"from {len(expected)} session(s)" in capsys.readouterr().out
    with Store(copy) as store:
        assert search.session_ids(store, f'label:"wrong object" {text}') == set()
    assert (
        main(
            [
                "search",
                "--db",
                str(copy),
                "not kind:submit",
                "--label",
                "wrong object",
                "--as",
                "ana",
            ]
        )
        == 2
    )
    assert "--level session" in capsys.readouterr().err


def test_report_search_keeps_the_sessions_found(
    generated: tuple[Path, list[Made]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, made = generated
    text = "kind:error then kind:submit"  # (a submitted session is graded: every one it finds)
    expected = {m.sid for m in made if chain(m, kind("error"), kind("submit"))}
    assert main(["report", "--db", str(path), "--format", "json", "--search", text]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["filter"]["search"] == text
    assert report["graded_sessions"] == len(expected)
    assert main(["report", "--db", str(path), "--format", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["graded_sessions"] == sum(1 for m in made if m.ended == "submit")
    assert main(["report", "--db", str(path), "--search", "kind:error OR x"]) == 2
    assert "at column 12" in capsys.readouterr().err


def test_search_into_a_closed_pipe_exits_quietly(generated: tuple[Path, list[Made]]) -> None:
    import subprocess
    import sys

    path, _ = generated
    command = f"{sys.executable} -m crmarena_tui search --db {path} kind:query --limit 0 | head -1"
    done = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
    assert done.stdout.count("\n") == 1 and "step(s)" in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize(
    ("wanted", "configuration", "names"),
    [
        ("gpt-4o", "gpt-4o-2024-08-06/react", True),
        ("gpt-4o/react", "gpt-4o-2024-08-06/react", True),
        ("gpt-4o", "gpt-4o/tool_call/aided", True),
        ("claude-3-5-sonnet", "claude-3-5-sonnet-20241022/react", True),
        ("gpt-4o", "gpt-4o-mini/react", False),
        ("o1", "o1x/react", False),
        ("o1", "o1-mini/react", False),
        ("o1", "o1-2024-12-17/react", True),
        ("gpt-4o/act", "gpt-4o-2024-08-06/react", False),
    ],
)
def test_a_participant_name_names_dated_models_at_a_boundary(
    wanted: str, configuration: str, names: bool
) -> None:
    from crmarena_tui.reports.filters import names_participant

    assert names_participant(wanted, configuration, "someone") is names
