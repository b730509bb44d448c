"""The bytes of an export (issue 30, fast exports): compact JSON with each event's payload the text
the database stores, spliced in, not decoded and encoded again (README, "Exports")."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.storage import Store, convert
from crmarena_tui.storage.upstream import UpstreamImporter
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"
QUERY = 'Qui est le plus "rapide",\nici ?'  # a quote, a comma, a line break: CSV quotes it
PAYLOAD = {"text": "SELECT Id FROM Case WHERE Subject = 'Café «x»'", "b": {"z": 1, "a": [1.5]}}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "b.db"
    with Store(path) as store:
        UpstreamImporter(store).import_paths([UPSTREAM])
        ana = store.participant("human", "ana")
        task = Task(
            idx=883, task="handle_time", query=QUERY, answer=["x"],
            reward_metric="exact_match", source="hf:b2b",
        )  # fmt: skip
        sid = store.create_session(
            session_spec(ana, task, "demo", "demo:b2b"), started_at=1700000000.0
        ).id
        store.append_event(sid, "human", "query", PAYLOAD, duration_ms=12.25, ts=1_700_000_001.5)
        store.append_event(sid, "system", "observation", {"rows": []}, ts=1_700_000_002.0)
        store.set_status(sid, "submitted", ended_at=1_700_000_090.0, active_seconds=75.5)
        store.annotations.add(
            sid, "wrong_filter", note='missed "the" date', annotator="bo", event_seq=1
        )
    return path


def _stored_payloads(db: Path) -> list[str]:
    with Store(db) as store:
        return [
            text for (text,) in store.read("SELECT payload FROM events ORDER BY session_id, seq")
        ]


def test_a_jsonl_line_is_compact_json_with_the_stored_payload_text(
    db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "s.jsonl"
    assert main(["export", "--out", str(out), "--db", str(db)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    for line in lines:  # the documented form: compact, text as it is, columns in order
        assert line == json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False)
    spliced = [
        json.dumps(event["payload"], separators=(",", ":"), ensure_ascii=False)
        for line in lines
        for event in json.loads(line)["events"]
    ]
    assert spliced == _stored_payloads(db)  # every payload, byte for byte, keys sorted
    human = json.loads(lines[-1])
    assert human["events"][0]["payload"] == PAYLOAD
    assert '"payload":{"b":{"a":[1.5],"z":1},"text":"SELECT Id FROM Case' in lines[-1]
    assert [(e["ts"], e["duration_ms"]) for e in human["events"]] == [
        ("2023-11-14T22:13:21.500000Z", 12.25),
        ("2023-11-14T22:13:22Z", None),  # microseconds only when there are some, as before
    ]
    assert human["query"] == QUERY and human["annotations"][0]["event_seq"] == 1


def test_csv_cells_hold_the_jsonl_text_of_lists_and_events(db: Path, tmp_path: Path) -> None:
    assert main(["export", "--out", str(tmp_path / "s.jsonl"), "--db", str(db)]) == 0
    assert main(["export", "--out", str(tmp_path / "s.csv"), "--db", str(db)]) == 0
    lines = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    with (tmp_path / "s.csv").open(newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    text = (tmp_path / "s.csv").read_bytes().decode("utf-8")
    with (tmp_path / "s.csv").open(newline="", encoding="utf-8") as fh:
        again = io.StringIO()
        csv.writer(again).writerows(csv.reader(fh))
    assert text == again.getvalue()  # quoted as the stdlib's writer quotes
    assert table[-1]["query"] == QUERY
    for line, cells in zip(lines, table, strict=True):
        row = json.loads(line)
        assert f'"events":{cells["events"]},"annotations":{cells["annotations"]}}}' in line
        for name in ("gold_answer", "parsed_answer"):
            as_json = json.dumps(row[name], separators=(",", ":"), ensure_ascii=False)
            assert cells[name] == ("" if row[name] is None else as_json)


def test_parquet_payloads_are_the_stored_text(db: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "s.parquet"
    assert main(["export", "--out", str(out), "--db", str(db)]) == 0
    rows = pq.read_table(out).to_pylist()
    assert [e["payload"] for r in rows for e in r["events"]] == _stored_payloads(db)
    human = rows[-1]["events"]
    assert [(e["seq"], e["ts"].isoformat(), e["duration_ms"]) for e in human] == [
        (1, "2023-11-14T22:13:21.500000+00:00", 12.25),
        (2, "2023-11-14T22:13:22+00:00", None),
    ]


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_the_export_decodes_only_the_payloads_a_column_reads(
    db: Path, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token and cost columns read the usage events, the end reason a log back to its last
    submit (the human session has none: its two events); every other payload goes out as it is
    stored, undecoded (before: all of them were decoded and encoded again)."""
    with Store(db) as store:
        read = "SELECT payload FROM events WHERE kind = 'usage' OR session_id = ?"
        human = store.read("SELECT MAX(id) FROM sessions")[0][0]
        wanted = sorted(text for (text,) in store.read(read, (human,)))
    stored = set(_stored_payloads(db))
    assert len(stored) > 3 * len(wanted)
    decoded: list[str] = []
    loads = convert.loads

    def counting(text, default=None):
        decoded.append(text)
        return loads(text, default)

    monkeypatch.setattr(convert, "loads", counting)
    assert main(["export", "--out", str(tmp_path / f"s.{fmt}"), "--db", str(db)]) == 0
    assert sorted(text for text in decoded if text in stored) == wanted


def test_a_timestamp_not_in_the_stored_form_is_written_as_the_rest(
    db: Path, tmp_path: Path
) -> None:
    """A timestamp another tool wrote in another ISO form comes out as the schema says, like the
    stored form next to it."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        sid = conn.execute("SELECT MAX(id) FROM sessions").fetchone()[0]
        conn.execute(
            "INSERT INTO events (session_id, seq, ts, actor, kind, payload) VALUES"
            " (?, 3, '2023-11-14 22:13:23+00:00', 'human', 'note', '{}'),"
            " (?, 4, '2023-11-14T22:13:24.250000Z', 'human', 'note', '{\"a\":1}')",
            (sid, sid),
        )
    out = tmp_path / "s.jsonl"
    assert main(["export", "--out", str(out), "--db", str(db)]) == 0
    line = out.read_text(encoding="utf-8").splitlines()[-1]
    assert (
        '{"seq":3,"ts":"2023-11-14T22:13:23Z","actor":"human","kind":"note","payload":{},'
        '"duration_ms":null},{"seq":4,"ts":"2023-11-14T22:13:24.250000Z","actor":"human",'
        '"kind":"note","payload":{"a":1},"duration_ms":null}],"annotations":'
    ) in line
    pq = pytest.importorskip("pyarrow.parquet")
    assert main(["export", "--out", str(tmp_path / "s.parquet"), "--db", str(db)]) == 0
    events = pq.read_table(tmp_path / "s.parquet").to_pylist()[-1]["events"]
    assert [e["ts"].isoformat() for e in events[2:]] == [
        "2023-11-14T22:13:23+00:00",
        "2023-11-14T22:13:24.250000+00:00",
    ]
