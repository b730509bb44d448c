"""Search across trajectories (issue 30): the full-text index finds exactly what a `LIKE` over the
same events finds, field filters included; saved searches; labels for every match; the command."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import Store, search
from crmarena_tui.storage import schema as schema_mod
from crmarena_tui.storage.search_query import SearchSyntaxError, parse
from crmarena_tui.storage.upstream import UpstreamImporter
from tests.support.agents_llm_support import make_task
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"
TEXT_KEYS = ("text", "observation", "error", "answer")

NATIVE = [  # (actor, kind, payload) of hand-made sessions, beside the imported upstream runs
    [
        ("agent", "thought", {"text": "I should look at the Case object first."}),
        ("agent", "query", {"text": "SELECT Id, Subject FROM Case WHERE Status = 'New'"}),
        ("system", "error", {"error": "INVALID_FIELD: No such column 'Subjct' on entity 'Case'."}),
        ("agent", "query", {"text": "```sql\nSELECT Id\nFROM Account LIMIT 5\n```"}),
        ("system", "observation", {"observation": "[{'Id': '001Wt00000Q1CaseAAA'}]"}),
        ("agent", "submit", {"answer": "001Wt00000Q1CaseAAA"}),
    ],
    [
        ("human", "search", {"text": "FIND {Acme} IN ALL FIELDS RETURNING Account(Id), Case"}),
        ("system", "error", {"error": "INVALID_TYPE: sObject type 'Cases' is not supported."}),
        ("human", "query", {"text": "SELECT COUNT() FROM Case"}),
        ("system", "error", {"error": "INVALID_FIELD: field 'Foo' can not be grouped"}),
        ("human", "message", {"text": "Could you give me the Case Id, please?"}),
        ("user", "message", {"text": "It is 500Wt00000DDq1AAA; the invalid_field one."}),
        ("human", "note", {"text": "asked the customer for an Id"}),
        ("human", "submit", {"answer": "500Wt00000DDq1AAA 500Wt00000DDq2AAA"}),
    ],
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("search") / "sessions.db"
    with Store(path) as store:
        UpstreamImporter(store, index=True).import_paths([UPSTREAM])  # (indexed as written)
        agent = store.participant("agent", "gpt-4o", model="gpt-4o")
        human = store.participant("human", "ana")
        for n, (who, task_type, reward) in enumerate(
            [
                (agent, "handle_time", 0.0),
                (human, "knowledge_qa", 1.0),
                (agent, "handle_time", None),
            ]
        ):
            events = NATIVE[n % 2]
            sid = store.create_session(
                session_spec(
                    who,
                    make_task(n + 1, task=task_type),
                    "local",
                    "demo",
                    settings={"strategy": "react"} if who is agent else {},
                )
            ).id
            for actor, kind, payload in events:
                store.append_event(sid, actor, kind, payload)
            if reward is not None:
                grade = Grade(
                    answer="x",
                    parsed_answer=["x"],
                    reward=reward,
                    grader="exact_match",
                    extraction="deterministic",
                )
                store.add_grade(sid, grade)
    return path


def _object(kind: str, payload: dict) -> str | None:
    """The object an event names, as the search documents it (the reference)."""
    text, error = payload.get("text") or "", payload.get("error") or ""
    patterns = {
        "query": (text, r"(?:^|\s)from\s+([^\s()`,;]+)"),
        "search": (text, r"(?:^|\s)returning\s+([^\s()`,;]+)"),
    }
    if kind in patterns:
        source, pattern = patterns[kind]
        found = re.search(pattern, source, re.I)
        return found.group(1).lower() if found else None
    if kind == "error":
        for pattern in (r"\sentity '([^'\s]*)", r"\ssobject type '([^'\s]*)"):
            found = re.search(pattern, error, re.I)
            if found:
                return found.group(1).lower()
    return None


def _like(value: str) -> str:
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def reference(path: Path, terms: list[str], **filters: list[str]) -> set[tuple[int, int]]:
    """The (session, seq) pairs a plain SQL LIKE over the events finds (the filters in SQL, the
    object read by a regular expression)."""
    where, params = [], []
    if terms:  # an imported run's system prompt is not searched
        where.append("COALESCE(e.payload ->> '$.event', '') != 'system_prompt'")
    for term in terms:
        where.append(
            "(" + " OR ".join(f"e.payload ->> '$.{k}' LIKE ? ESCAPE '\\'" for k in TEXT_KEYS) + ")"
        )
        params += [_like(term)] * len(TEXT_KEYS)
    for column, key in (("e.kind", "kind"), ("e.actor", "actor"), ("s.task_type", "type")):
        if key in filters:
            where.append(f"{column} IN ({', '.join('?' * len(filters[key]))})")
            params += filters[key]
    if "error" in filters:
        where.append(
            "e.kind = 'error' AND ("
            + " OR ".join("e.payload ->> '$.error' LIKE ? ESCAPE '\\'" for _ in filters["error"])
            + ")"
        )
        params += [v.replace("_", "\\_") + ":%" for v in filters["error"]]
    if "reward" in filters:
        latest = (
            "(SELECT g.reward FROM grades g WHERE g.session_id = s.id ORDER BY g.id DESC LIMIT 1)"
        )
        where.append(
            " OR ".join(
                f"{latest} IS NULL" if v == "none" else f"{latest} = {float(v)}"
                for v in filters["reward"]
            )
        )
    if "participant" in filters:
        where.append(f"p.name IN ({', '.join('?' * len(filters['participant']))})")
        params += filters["participant"]
    sql = (
        "SELECT e.session_id, e.seq, e.kind, e.payload FROM events e JOIN sessions s"
        " ON s.id = e.session_id JOIN participants p ON p.id = s.participant_id"
        + (" WHERE " + " AND ".join(f"({w})" for w in where) if where else "")
    )
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(sql, params).fetchall()
    wanted = [o.lower() for o in filters.get("object", [])]
    return {
        (sid, seq)
        for sid, seq, kind, payload in rows
        if not wanted or _object(kind, json.loads(payload)) in wanted
    }


CASES = [
    ("Case", ["Case"], {}),
    ("case", ["Case"], {}),
    ('"FROM Case"', ["FROM Case"], {}),
    ("invalid_field", ["invalid_field"], {}),
    ("error:INVALID_FIELD", [], {"error": ["INVALID_FIELD"]}),
    ("error:INVALID_FIELD object:Case", [], {"error": ["INVALID_FIELD"], "object": ["Case"]}),
    ("object:Case", [], {"object": ["Case"]}),
    ("object:account kind:query", [], {"object": ["account"], "kind": ["query"]}),
    ("object:Cases", [], {"object": ["Cases"]}),
    ("kind:query,search actor:agent", [], {"kind": ["query", "search"], "actor": ["agent"]}),
    ("kind:submit reward:0", [], {"kind": ["submit"], "reward": ["0"]}),
    ("kind:submit reward:none", [], {"kind": ["submit"], "reward": ["none"]}),
    ("kind:submit reward:1,none", [], {"kind": ["submit"], "reward": ["1", "none"]}),
    ("type:handle_time kind:thought", [], {"type": ["handle_time"], "kind": ["thought"]}),
    ("participant:ana kind:message Id", None, {}),  # (too short: refused, below)
    (
        'participant:ana kind:message "customer for an"',
        ["customer for an"],
        {"participant": ["ana"], "kind": ["message"]},
    ),
    (
        "participant:ana kind:note customer",
        ["customer"],
        {"participant": ["ana"], "kind": ["note"]},
    ),
    ("kind:message actor:user 500Wt", ["500Wt"], {"kind": ["message"], "actor": ["user"]}),
    ("type:knowledge_qa reward:1", [], {"type": ["knowledge_qa"], "reward": ["1"]}),
    ('"FROM Account" LIMIT', ["FROM Account", "LIMIT"], {}),
    ("SELECT kind:query", ["SELECT"], {"kind": ["query"]}),
    ("kind:observation 001Wt", ["001Wt"], {"kind": ["observation"]}),
]


@pytest.mark.parametrize(("text", "terms", "filters"), [c for c in CASES if c[1] is not None])
def test_a_search_finds_exactly_what_like_finds(
    db: Path, text: str, terms: list[str], filters: dict[str, list[str]]
) -> None:
    expected = reference(db, terms, **filters)
    with Store(db) as store:
        found = search.run(store, text)
        assert set(found.hits) == expected
        assert found.sessions == sorted({sid for sid, _ in expected})


def test_the_cases_are_not_empty_and_tell_events_apart(db: Path) -> None:
    """The comparisons above mean something: most find events, and the filters narrow."""
    found = {text: reference(db, terms, **f) for text, terms, f in CASES if terms is not None}
    assert sum(1 for hits in found.values() if hits) >= len(found) - 2
    assert found["error:INVALID_FIELD object:Case"] < found["error:INVALID_FIELD"]
    assert len(found["Case"]) > 20  # the upstream runs' observations and queries too


def test_an_upstream_participant_is_named_by_its_configuration(db: Path) -> None:
    with Store(db) as store:
        names = {p.name for p in store.participants("agent")}
        upstream = next(n for n in names if "/" in n)
        whole = search.run(store, f"participant:{upstream} kind:submit")
        model = upstream.split("/")[0]
        leading = search.run(store, f"participant:{model} kind:submit")
        assert whole.hits and set(whole.hits) <= set(leading.hits)


def test_every_event_is_indexed_once_whoever_wrote_it(db: Path) -> None:
    """Once a search has run: the import's bulk writer leaves its sessions to it, and the
    trigger stays in place for other writes."""
    with Store(db) as store:
        search.run(store, "kind:query")
    with closing(sqlite3.connect(db)) as conn:
        keys = [  # (every event's facets hold its kind's marker)
            r[0]
            for r in conn.execute(
                "SELECT rowid FROM event_search WHERE event_search MATCH 'facets : \"<k:\"'"
                " ORDER BY rowid"
            )
        ]
        events = conn.execute("SELECT (session_id << 24) | seq FROM events ORDER BY 1").fetchall()
        trigger = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'events_searchable'"
        ).fetchall()
    assert keys == [e[0] for e in events] and trigger == [(1,)]


def test_events_written_later_are_found(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        who = store.participant("human", "bo")
        sid = store.create_session(session_spec(who, make_task(1), "local", "demo")).id
        assert search.run(store, "Zebrafish").hits == []
        store.append_event(sid, "human", "note", {"text": "a zebrafish appears"})
        fork = store.create_session(session_spec(who, make_task(1), "local", "demo")).id
        store.copy_events(sid, fork, 1)
        assert search.run(store, "Zebrafish").hits == [(sid, 1), (fork, 1)]


def test_the_migration_indexes_the_events_already_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v7.db"
    with monkeypatch.context() as old:
        old.setattr(schema_mod, "MIGRATIONS", schema_mod.MIGRATIONS[:7])
        old.setattr(schema_mod, "SCHEMA_VERSION", 7)
        with Store(path) as store:
            who = store.participant("human", "ana")
            sid = store.create_session(session_spec(who, make_task(1), "local", "d")).id
            store.append_event(sid, "human", "query", {"text": "SELECT Id FROM Case"})
            store.append_event(sid, "system", "error", {"error": "INVALID_FIELD: bad"})
            assert store.schema_version == 7
    with Store(path) as store:
        assert store.schema_version == schema_mod.SCHEMA_VERSION
        assert search.run(store, "error:invalid_field").hits == [(sid, 2)]
        assert search.run(store, "object:case").hits == [(sid, 1)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Id", "too short"),
        ("kind:querry", "not an event kind"),
        ("actor:robot", "not an actor"),
        ("reward:high", "not a number"),
        ('"unclosed', "not closed"),
        ("kind:", "needs a value"),
        ("", "empty search"),
        ("@nothing", "no saved search named 'nothing'"),
    ],
)
def test_bad_searches_say_what_is_wrong(db: Path, text: str, message: str) -> None:
    with Store(db) as store, pytest.raises(SearchSyntaxError, match=message):
        search.run(store, text)


def test_parse_reads_quotes_and_alternatives() -> None:
    query = parse('kind:query,search "FROM Case" object:"Case" Status')
    assert query.terms == ("FROM Case", "Status")
    assert query.filters == (("kind", ("query", "search")), ("object", ("case",)))


def test_a_saved_search_runs_by_name_and_labels_its_matches(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    with closing(sqlite3.connect(db)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    with Store(copy) as store:
        search.save(store, "field-on-case", "error:INVALID_FIELD object:Case")
        assert [n for n, _, _ in search.saved(store)] == ["field-on-case"]
        result = search.run(store, "@field-on-case")
        assert result.hits and set(result.hits) == reference(
            copy, [], error=["INVALID_FIELD"], object=["Case"]
        )
        assert store.annotations.label_many(list(result.hits), "wrong field", "cy") == len(
            result.hits
        )
        assert (
            store.annotations.label_many(list(result.hits), "wrong field", "cy") == 0
        )  # once each
        labels = store.annotations.find(annotator="cy")
        assert {(a.session_id, a.event_seq) for a in labels} == set(result.hits)
        assert {a.label for a in labels} == {"wrong field"}


def test_the_search_command(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "cli.db"
    with closing(sqlite3.connect(db)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    expected = reference(copy, [], error=["INVALID_FIELD"])
    code = main(["search", "error:INVALID_FIELD", "--db", str(copy), "--save", "fields"])
    out = capsys.readouterr().out
    assert code == 0
    sessions = {sid for sid, _ in expected}
    assert f"{len(expected):,} step(s) in {len(sessions):,} session(s)" in out
    assert "No such column 'Subjct'" in out and "saved as @fields" in out
    code = main(
        [
            "search",
            "@fields",
            "--db",
            str(copy),
            "--label",
            "wrong field",
            "--as",
            "dee",
            "--level",
            "session",
            "--format",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["labelled"] == len(sessions) == data["sessions"]
    assert {m["session"] for m in data["matches"]} <= sessions
    with Store(copy) as store:
        marks = store.annotations.find(annotator="dee")
    assert {(a.session_id, a.event_seq) for a in marks} == {(s, None) for s in sessions}
    assert main(["search", "--saved", "--db", str(copy)]) == 0
    assert "@fields  error:INVALID_FIELD" in capsys.readouterr().out


def test_the_search_command_refuses_bad_input_in_one_line(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "kind:nope", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: kind:nope is not an event kind") and err.count("\n") == 1
    assert main(["search", "Case", "--db", str(db), "--label", "not a label", "--as", "x"]) == 2
    assert "not in the failure taxonomy" in capsys.readouterr().err
    assert main(["search", "Case", "--db", str(db), "--label", "wrong field"]) == 2
    assert "--as" in capsys.readouterr().err
    assert (
        main(["search", "Case", "--db", str(db), "--save", "a b", "--label", "other", "--as", "x"])
        == 2
    )
    assert "one word" in capsys.readouterr().err
    assert main(["search", "Case", "--db", str(tmp_path / "none.db")]) == 1
    assert "no sessions database" in capsys.readouterr().err
