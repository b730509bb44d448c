"""As a study host would (issue 38, "done when"): `serve --study` on loopback, participants
joining at once in headless chromium (one browser, a tab each: the page's own terminal sends the
keys; three, and eight), each typing a query, running it and submitting an answer, while a page
of another origin in the same browser tries to open the app's websocket and is refused. Nothing
may be lost and nobody may see `database is locked`. A full run's (`--full`, or CI): the default
run serves four participants over the app's own websocket (test_serve_study.py), a chat task in
chromium (test_serve_chat_keys.py) and another origin refused (test_serve_browser_origin.py)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

import pytest

from crmarena_tui.storage import Store
from tests.commands.test_serve import _free_port
from tests.commands.test_serve_browser_origin import _evil_site
from tests.support.chromium_support import CHROMIUM, Page, aiohttp, chromium, open_page
from tests.support.serve_guard_support import serving
from tests.support.soql_fixture_support import build_fixture_org
from tests.support.study_app_support import make_study

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

PEOPLE = [f"expert{n}" for n in range(1, 9)]
AT_ONCE = [pytest.param(3, id="three"), pytest.param(8, id="eight", marks=pytest.mark.full)]
QUERY = "SELECT Id, Subject FROM Case"


async def participant(page: Page, name: str, code: str) -> float:
    """Join as `name`, open the first task, run one query, submit; the seconds it took."""
    started = time.monotonic()
    await page.wait_for("Study pilot", "join code")
    await page.focus_terminal()
    await page.type(name)
    await page.key("tab")
    await page.wait_for("▶ Join code")
    await page.type(code)
    await page.key("enter")
    await page.wait_for(f"as {name}", "left")
    await page.key("enter")  # the first task of the queue
    await page.wait_for("Task 1", "session started")
    await page.type(QUERY)
    await page.key("ctrl+r")
    await page.wait_for("1 queries")
    await page.key("ctrl+s")
    await page.wait_for("Submit your final answer", "▶ Your answer")
    await page.type("None")
    await page.key("enter")
    await page.wait_for("Reward")
    return time.monotonic() - started


@pytest.mark.full(
    sample="tests/commands/test_serve_study.py::test_participants_at_once_lose_nothing"
)
@pytest.mark.parametrize("count", AT_ONCE)
def test_participants_in_chromium_and_a_page_of_another_origin(tmp_path: Path, count: int) -> None:
    people = PEOPLE[:count]
    path = tmp_path / "sessions.db"
    org = build_fixture_org(tmp_path / "org.db")
    codes = make_study(path, "--org", str(org), participants=",".join(people), sample=count)
    evil_port = _free_port()
    with serving(tmp_path, "--study", "pilot", "--db", str(path)) as server:

        async def host() -> tuple[list[float], object]:
            runner = await _evil_site(evil_port, server.port)
            try:
                with chromium(tmp_path / "profile") as devtools:
                    async with aiohttp.ClientSession() as http:
                        tabs = [await open_page(http, devtools, server.url + "/") for _ in people]
                        evil = await open_page(http, devtools, f"http://127.0.0.1:{evil_port}/")
                        took = await asyncio.gather(
                            *(
                                participant(t, n, codes[n])
                                for t, n in zip(tabs, people, strict=True)
                            )
                        )
                        verdict = await evil.value("window.result")
                        for _ in range(300):  # decided long before, normally: a look, not a wait
                            if verdict != "pending":
                                break
                            await asyncio.sleep(0.1)
                            verdict = await evil.value("window.result")
                        return list(took), verdict
            finally:
                await runner.cleanup()  # type: ignore[attr-defined]

        started = time.monotonic()
        took, verdict = asyncio.run(asyncio.wait_for(host(), timeout=240))
        print(
            f"{count} participants in chromium: {time.monotonic() - started:.1f} s, slowest "
            f"{max(took):.1f} s"
        )
        log = server.log.read_text(errors="replace")
    assert verdict == "refused"  # the page's socket never opened (its page loaded first)
    assert f"Origin 'http://127.0.0.1:{evil_port}' is not this server" in log
    assert "locked" not in log and "Traceback" not in log, log[-3000:]
    with Store(path) as store:
        names = {p.id: p.name for p in store.participants("human")}
        sessions = store.sessions()
        assert Counter((names[s.participant_id], s.status) for s in sessions) == Counter(
            {(name, "submitted"): 1 for name in people}
        )
        for session in sessions:
            assert [e.text for e in store.events(session.id) if e.kind == "query"] == [QUERY]
