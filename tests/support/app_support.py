"""Helpers for the app's pilot tests (no tests here): build the app, wait for its workers."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from crmarena_tui.app.app import CrmArenaApp, PlayOptions

SAMPLE = Path(__file__).parents[1] / "data" / "crmarenapro_b2b_sample.json"
SIZE = (120, 40)


def _settling(app: App) -> bool:
    """Whether a worker of the app runs, or a callback it deferred is still to run: the app chains
    its workers through `call_after_refresh` (the task rows, then the store, then the demo orgs),
    and between two of them no worker runs for a moment."""
    if any(w.is_running for w in app.workers):
        return True
    try:
        screen = app.screen
    except Exception:  # (no screen: the app is closing)
        return False
    # Textual keeps the callbacks due after the next refresh on the screen (`_callbacks`), and
    # those due after the current message on each node (`_next_callbacks`).
    return bool(screen._callbacks) or any(node._next_callbacks for node in (app, screen))


async def wait_for_workers(pilot: Pilot, app: App, rounds: int = 50) -> None:
    """Wait until no worker of the app or any screen runs (workers may start more workers), and no
    callback that may start one is waiting: quiet before and after one more pause."""
    for _ in range(rounds):
        # A worker the app cancelled (a key pressed again) has ended too.
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause()
        if not _settling(app):
            await pilot.pause()
            if not _settling(app):
                return
    raise AssertionError(f"workers still running: {list(app.workers)}")


def make_app(
    tmp_path: Path,
    tasks: str | Path = SAMPLE,
    org: str | Path | None = None,
    participant: str | None = "ann",
    **kw,
) -> CrmArenaApp:
    return CrmArenaApp(
        PlayOptions(
            tasks=str(tasks),
            org=str(org) if org else "/nonexistent/org.db",
            participant=participant,
            db=tmp_path / "sessions.db",
            **kw,
        )
    )


def write_many_tasks(path: Path, n: int) -> Path:
    """A task file of `n` rows made from the 44 sample rows (distinct idx)."""
    rows = json.loads(SAMPLE.read_text())
    out = []
    for i in range(n):
        row = dict(rows[i % len(rows)])
        row["idx"] = 100000 + i
        out.append(row)
    path.write_text(json.dumps(out))
    return path


class FakeOrg:
    """A tiny stand-in org for screen tests: every record of the FROM object; `BAD` fails.

    It knows two objects of the reference schema (Account, Case); queries that do not start
    with SELECT or FIND fail with a positioned MALFORMED_QUERY error, as a real org does.
    """

    kind = "local"
    ref = "fake"

    def __init__(self, org_type: str = "b2b", n_cases: int = 3) -> None:
        from crmarena_tui.orgs.reference_schema import reference_schema

        self.org_type = org_type
        self.today = None
        self.schema = reference_schema()
        self.data = {
            "Account": [{"Id": "001000000000001AAA", "Name": "Acme", "ShippingState": "CA"}],
            "Case": [
                {
                    "Id": f"500000000000{i:03d}AAA",
                    "Subject": f"Broken widget {i}",
                    "Status": "Closed",
                    "AccountId": "001000000000001AAA",
                }
                for i in range(n_cases)
            ],
        }
        self.queries: list[str] = []

    def _result(self, obj: str, **kw):
        from crmarena_tui.orgs.base import QueryResult

        recs = [
            {"attributes": {"type": obj, "url": f"/{obj}/{r['Id']}"}, **r}
            for r in self.data.get(obj, [])
        ]
        return QueryResult(records=recs, total_size=len(recs), elapsed_ms=1.5, **kw)

    def query(self, soql: str, *, today=None):
        import re

        from crmarena_tui.orgs.base import QueryResult

        self.queries.append(soql)
        self.today = today  # the date the last query was asked on
        match = re.search(r"\bFROM\s+(\w+)", soql, re.IGNORECASE)
        if not soql.lstrip().upper().startswith("SELECT") or match is None:
            word = soql.split()[0] if soql.split() else ""
            return QueryResult(
                error=f"MALFORMED_QUERY: unexpected token: '{word}'",
                error_offset=soql.find(word),
                elapsed_ms=0.5,
            )
        return self._result(match.group(1))

    def search(self, sosl: str, *, today=None):
        return self._result("Account", kind="search")

    def describe(self):
        return self.schema

    def get(self, object_name: str, record_id: str):
        for r in self.data.get(object_name, []):
            if r["Id"] == record_id:
                return {"attributes": {"type": object_name}, **r}
        return None

    def related(self, object_name: str, record_id: str):
        if object_name == "Account":
            return {"Cases": [r for r in self.data["Case"] if r["AccountId"] == record_id]}
        return {}


def screen_text(app: App) -> str:
    """What the terminal shows now, as plain text (one line per row)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


async def open_task(pilot: Pilot, app: App, words: str) -> None:
    """From the browser: filter by `words`, open the first match, wait for its session.

    The filter text is set at once (typing is covered by the browser tests and costs ~60 ms a
    key under the pilot here)."""
    from textual.widgets import Input

    await wait_for_workers(pilot, app)
    await pilot.press("slash")
    app.screen.query_one("#filter", Input).value = words
    await pilot.press("enter")
    await wait_for_workers(pilot, app)


async def submit(pilot: Pilot, app: App, answer: str) -> None:
    """ctrl+s, the answer put in the focused input at once, enter; wait for the grade."""
    from textual.widgets import Input

    await pilot.press("ctrl+s")
    await wait_for_workers(pilot, app)  # the dialog opens once a worker gathered its choices
    field = app.screen.focused
    assert isinstance(field, Input) and field.id == "answer"
    field.value = answer
    await pilot.press("enter")
    await wait_for_workers(pilot, app)
