"""Helpers for the review queue's tests (no tests here): the research seed with a scan's
suggestions, and the review app on it."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.storage import Store
from crmarena_tui.storage.suggestions import Proposal, Reading
from tests.support.app_support import SAMPLE, FakeOrg
from tests.support.app_trajectory_support import T0, seed


def seed_scanned(db: Path) -> dict[str, int]:
    """The research seed (tests/support/app_trajectory_support.py) and a labels scan `s1` that
    suggested: step 3 of the agent's session 1 "unrecovered tool error", session 4 "wrong
    field", session 6 "gave up" (and read session 8, finding nothing)."""
    ids = seed(db)
    with Store(db) as store:
        error_seq = [e.seq for e in store.events(ids["agent"]) if e.kind == "query"][2]
        scan = store.suggestions.start("s1", kind="labels", model="scripted/m", prompt_version="1")
        reads = {
            ids["agent"]: [Proposal("unrecovered tool error", error_seq, "guessed a field")],
            ids["b_agent"]: [Proposal("wrong field", None, "used the wrong owner field")],
            ids["c_agent"]: [Proposal("gave up", None, "stopped after one query")],
            ids["d_agent"]: [],
        }
        for sid, proposals in reads.items():
            store.suggestions.record(scan.id, sid, Reading(proposals, cost=0.001))
    return ids


def review_app(db: Path, queue: str, participant: str = "ann", **kw):
    from crmarena_tui.app.app import PlayOptions
    from crmarena_tui.commands.review import make_app

    options = PlayOptions(tasks=str(SAMPLE), participant=participant, db=db, clock=lambda: T0, **kw)
    return make_app(options, queue, org_factory=lambda _: FakeOrg())
