"""The transcript a scanner reads (scans/transcript.py): a large observation cut with its size
kept, steps left out only behind a marker that names them, never a silent truncation; and the
suggestions an annotator may see in hidden-labels mode."""

from __future__ import annotations

import json
from pathlib import Path

from crmarena_tui.reports.trajectory import load_trajectory
from crmarena_tui.scans.scanner import transcript_of
from crmarena_tui.scans.transcript import compact
from crmarena_tui.settings.config import load_settings
from crmarena_tui.storage import Store
from crmarena_tui.storage.suggestions import Proposal, Reading
from tests.support.scan_support import failed_sessions


def _events(*bodies: tuple[str, str, dict]) -> list[tuple[int, str, str, str]]:
    return [(i, a, k, json.dumps(p)) for i, (a, k, p) in enumerate(bodies, start=1)]


def test_a_large_observation_keeps_its_start_end_and_size() -> None:
    rows = "".join(f"row {i:05d};" for i in range(2_000))  # 20,000 characters
    events = _events(
        ("agent", "query", {"text": "SELECT Id FROM Case"}),
        ("system", "observation", {"observation": rows, "total_size": 2000}),
        ("agent", "usage", {"prompt_tokens": 10}),
        ("agent", "submit", {"answer": "x"}),
    )
    found = compact(7, "Session 7: header", events)
    assert "[1] agent query: SELECT Id FROM Case" in found.text
    assert "row 00000;" in found.text and "row 01999;" in found.text  # start and end kept
    assert "of 20,000 characters cut …]" in found.text
    assert found.cut == 20_000 - 2_000
    assert found.seqs == {1, 2, 4}  # the usage event is left out, as documented
    assert "[4] agent submit: answer x" in found.text


def test_a_transcript_over_the_limit_names_the_steps_it_leaves_out() -> None:
    events = _events(*[("agent", "thought", {"text": f"thinking {i} " * 40}) for i in range(200)])
    found = compact(1, "Session 1: header", events, limit=8_000)
    assert len(found.text) <= 8_000 + 200
    marker = next(line for line in found.text.splitlines() if "left out:" in line)
    assert marker.startswith("[steps ") and f"{found.left_out} events" in marker
    assert "[1] agent thought" in found.text and "[200] agent thought" in found.text
    assert found.left_out + len(found.seqs) == 200


def test_the_transcript_holds_the_task_and_the_answer_only_when_asked(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        (sid,) = failed_sessions(store, 1)
        text = transcript_of(store, sid).text
        asked = transcript_of(store, sid, show_answer=True).text
    assert text.startswith(f"Session {sid}: participant gpt-4o/react, ")
    assert "reward 0.0\nTask: handle_time #0\nQuery: " in text
    assert "Expected answer" not in text and '"x"' not in text
    assert asked.startswith(text.split("\n[", 1)[0]) and 'Expected answer: ["x"]' in asked


def test_hidden_labels_show_a_suggestion_only_after_the_annotators_own_label(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "s.db") as store:
        (sid,) = failed_sessions(store, 1)
        scan = store.suggestions.start("s", kind="labels", model="m", prompt_version="1")
        store.suggestions.record(
            scan.id,
            sid,
            Reading([Proposal("wrong object", 3, "The result was empty."), Proposal("gave up")]),
        )  # seq 3 is the observation of the query (seq 2): the step a label goes on is seq 2
        settings = load_settings()

        def seen(hidden: bool) -> list[str]:
            data = load_trajectory(store, sid, settings, me="ana", hidden=hidden)
            return [s.label for s in data.shown_suggestions(hidden)]

        assert seen(False) == ["wrong object", "gave up"]
        assert seen(True) == []
        store.annotations.add(sid, "wrong field", annotator="ana", event_seq=2)
        assert seen(True) == ["wrong object"]
        assert store.suggestions.visible_to(sid, "ana", hidden_labels=True)[0].event_seq == 3
        store.annotations.add(sid, "other", annotator="bob", event_seq=None)
        assert seen(True) == ["wrong object"]  # another annotator's label reveals nothing
        store.annotations.add(sid, "gave up", annotator="ana", event_seq=None)
        assert seen(True) == ["wrong object", "gave up"]


def test_a_system_prompt_is_left_out_behind_its_size_read_whole_or_sized(tmp_path: Path) -> None:
    prompt = "You work for a company whose CRM is Salesforce.\n" + "  - Field: Café\n" * 40
    whole = _events(
        ("system", "system", {"event": "system_prompt", "text": prompt}),
        ("system", "system", {"event": "task_started", "message": "handle_time #0"}),
        ("agent", "query", {"text": "SELECT Id FROM Case"}),
    )
    sized = [(1, "system", "system", json.dumps({"event": "system_prompt", "chars": len(prompt)})),
             *whole[1:]]  # fmt: skip
    marker = f"[1] system prompt ({len(prompt):,} characters) left out"
    first, again, given = (compact(1, "h", e) for e in (whole, whole, sized))  # (again: kept)
    for found in (first, again, given):
        assert found.text.splitlines()[1:] == [
            marker, "[2] system system: task_started: handle_time #0",
            "[3] agent query: SELECT Id FROM Case",
        ]  # fmt: skip
        assert found.seqs == {1, 2, 3}
    assert first == again and first.original_chars == len("h") + sum(len(e[3]) for e in whole)
    assert given.original_chars == len("h") + sum(len(e[3]) for e in sized) + len(prompt)
    tight = compact(1, "h", whole, limit=60)  # (over its limit: the marker's line stays whole)
    assert marker in tight.text.splitlines()
    with Store(tmp_path / "s.db") as store:  # the scanner's read: the same line
        (sid,) = failed_sessions(store, 1)
        store.append_event(sid, "system", "system", {"event": "system_prompt", "text": prompt})
        lines = transcript_of(store, sid).text.splitlines()
    assert lines[-1].endswith(f"system prompt ({len(prompt):,} characters) left out")
