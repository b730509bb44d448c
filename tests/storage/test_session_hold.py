"""A session another live process works is not opened a second time (issue 38): the app names
that process, and opens (resumes) the session once the process has ended."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
from pathlib import Path

from crmarena_tui.storage import Store
from crmarena_tui.storage.leases import LeaseBook
from tests.screens.test_app_workspace import fake_app
from tests.support.app_support import SIZE, open_task, screen_text, wait_for_workers

TESTS = Path(__file__).parents[1]

# Another app process on the same database: it opens the same participant's task and keeps it
# open until its stdin closes (as a connection's `play` process orphaned by a killed `serve`).
HOLDER = """
import asyncio, sys
from pathlib import Path
from tests.support.app_support import SIZE, open_task
from tests.screens.test_app_workspace import fake_app

async def main() -> None:
    app = fake_app(Path(sys.argv[1]))
    async with app.run_test(size=SIZE) as pilot:
        await open_task(pilot, app, "quote approval")
        print("open", app.screen.episode.session.id, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

asyncio.run(main())
"""


def read_line(proc: subprocess.Popen[str], timeout: float = 60.0) -> str:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as chosen:
        chosen.register(proc.stdout, selectors.EVENT_READ)
        if not chosen.select(timeout):
            proc.kill()
            raise AssertionError(f"the holder printed nothing in {timeout:g} s")
    return proc.stdout.readline()


async def test_a_session_open_in_a_live_process_is_refused_then_resumed(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)],
        cwd=TESTS.parent,
        env={**os.environ, "PYTHONPATH": str(TESTS.parent)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = read_line(holder)
        assert line.startswith("open "), line
        held = int(line.split()[1])
        app = fake_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await open_task(pilot, app, "quote approval")
            refusal = app.screen.state.open_error
            assert f"session #{held} is open in another crmarena-tui process" in refusal
            assert f"(pid {holder.pid}, since" in refusal and "open the task again" in refusal
            assert f"cannot open the session: This task's session #{held}" in screen_text(app)
            assert app.screen.episode is None  # nothing opened, nothing written

            holder.kill()  # as kill -9: the process ends holding its lease
            holder.wait()
            await pilot.press("escape")
            await wait_for_workers(pilot, app)
            await open_task(pilot, app, "quote approval")
            assert app.screen.episode.session.id == held  # taken over at once: resumed
            attempt = app._hold.attempt
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    with Store(tmp_path / "sessions.db") as store:  # released as the app ended
        assert LeaseBook(store).process_of(attempt) is None
