"""`serve --study` cannot be blocked without a join code (issue 38): connections still on the
join screen are bounded apart from the joined ones (`--max-joining`) and closed after
`--join-timeout` seconds, so idle connections neither take a participant's place nor stay."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.commands.test_serve_study import Tab
from tests.commands.test_serve_study_guard import _served, _tab, _try

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("pyte")

pytestmark = pytest.mark.slow

TIMEOUT = 8  # seconds a connection may stay on its join screen, counted from its first output
# (a loaded machine can take 10 s to start a tab's app: that time does not count against it)


async def _closed(tab: Tab, seconds: float) -> bool:
    """Whether the server closes `tab` within `seconds`."""
    try:
        await asyncio.wait_for(asyncio.shield(tab.reader), seconds)
    except TimeoutError:
        return False
    return True


@pytest.mark.full(sample="test_a_silent_connection_gives_its_place_to_a_newcomer")
def test_idle_connections_are_bounded_closed_and_block_no_participant(tmp_path: Path) -> None:
    # silent tabs are not given away here: that is the next test's
    args = ("--max-joining", "2", "--join-timeout", str(TIMEOUT), "--join-grace", "600")
    with _served(tmp_path, {}, *args) as served:

        async def browse() -> None:
            async with aiohttp.ClientSession() as http:
                # both at once, so the first one's time is not spent starting the second
                idle = list(await asyncio.gather(_tab(http, served.url), _tab(http, served.url)))
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(served.url.replace("http", "ws") + "/ws")
                assert refused.value.status == 503  # a third one on the join screen
                started = time.monotonic()
                assert all([await _closed(t, TIMEOUT + 30) for t in idle])
                assert time.monotonic() - started < TIMEOUT + 30
                ann = await _tab(http, served.url)  # their places are free again
                await _try(ann, "ann", served.codes["ann"], "as ann", "left")
                # a joined connection is not joining: two more idle ones still get in
                more = await asyncio.gather(_tab(http, served.url), _tab(http, served.url))
                assert all([await _closed(t, TIMEOUT + 30) for t in more])
                assert not ann.reader.done()  # ann, joined, is not closed with them
                await ann.ws.close()

        asyncio.run(asyncio.wait_for(browse(), timeout=180))
        log = served.log.read_text(errors="replace")
    assert f"not joined within {TIMEOUT} s" in log
    assert "refused a connection from 127.0.0.1: 0 joined and 2 joining open" in log
    assert "Traceback" not in log


def test_a_silent_connection_gives_its_place_to_a_newcomer(tmp_path: Path) -> None:
    args = ("--max-joining", "2", "--join-timeout", "600")  # a timeout the test never reaches
    with _served(tmp_path, {}, *args) as served:

        async def browse() -> float:
            async with aiohttp.ClientSession() as http:
                typing = await _tab(http, served.url)
                await typing.keys("an")  # a person typing on the join screen keeps their place
                idle = await _tab(http, served.url)
                started = time.monotonic()
                while True:  # a participant trying again, as a person reloading the page would
                    try:
                        ann = await _tab(http, served.url)
                        break
                    except aiohttp.WSServerHandshakeError as refused:
                        assert refused.status == 503
                        assert time.monotonic() - started < 60, "never let in"
                        await asyncio.sleep(0.5)
                took = time.monotonic() - started
                assert await _closed(idle, 30)  # the silent one gave its place
                assert not typing.reader.done()
                await _try(ann, "ann", served.codes["ann"], "as ann", "left")
                for tab in (typing, ann):
                    await tab.ws.close()
                return took

        took = asyncio.run(asyncio.wait_for(browse(), timeout=180))
        log = served.log.read_text(errors="replace")
    assert took < 60  # within the silent grace, not the 600 s join timeout
    assert "on the join screen, its place given to a connection from 127.0.0.1" in log
    assert "Traceback" not in log
