"""`Store.append_event` returns the event as stored without decoding the JSON it has just written
(issue 39, "one of each"): the payload it encoded is kept when it reads back as itself, and the
stored text is decoded only when encoding changed it (a text cut at the cap, a value JSON holds
otherwise). Either way the event returned equals the one read back."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from crmarena_tui.storage import Store, convert
from crmarena_tui.tasks.model import Task


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "s.db", durability="normal", text_limit=50) as s:
        yield s


def _session(store: Store, sample_rows_path: Path) -> int:
    from crmarena_tui.storage.models import SessionSpec
    from crmarena_tui.tasks.loaders import load_tasks

    task: Task = load_tasks(str(sample_rows_path))[0]

    class Named:
        kind, ref, org_type = "local", "tiny", "b2b"

    spec = SessionSpec(task, Named(), store.participant("human", "a"))  # type: ignore[arg-type]
    return store.create_session(spec, settings_key="k", started_at=0.0).id


def test_a_payload_that_reads_back_is_not_decoded(
    store: Store, sample_rows_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = _session(store, sample_rows_path)
    decoded = [0]
    real = convert.loads

    def counted(*args, **kwargs):
        decoded[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(convert, "loads", counted)
    payload = {"observation": "[" + "x" * 5_000 + "]", "total_size": 2, "rows": [[1, 2.5, None]]}
    event = store.append_event(sid, "system", "observation", payload)
    assert decoded[0] == 0  # (it decoded the payload it had just encoded)
    assert event.payload == payload and event.payload is not payload
    monkeypatch.setattr(convert, "loads", real)
    assert store.events(sid)[-1] == event


@pytest.mark.parametrize(
    "payload",
    [
        {"text": "y" * 80},  # cut at the store's cap (50 characters)
        {"score": math.nan, "pair": (1, 2)},  # NaN is stored as null, a tuple as a list
        {"nested": {1: "a"}},  # a key JSON writes as text
    ],
    ids=["cut", "nan-and-tuple", "int-key"],
)
def test_a_payload_changed_by_encoding_is_returned_as_stored(
    payload: dict, store: Store, sample_rows_path: Path
) -> None:
    sid = _session(store, sample_rows_path)
    event = store.append_event(sid, "human", "note", payload)
    assert store.events(sid)[-1] == event
    assert event.payload != payload
