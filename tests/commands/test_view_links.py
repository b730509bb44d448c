"""Links to a step (issue 41): `crmarena-tui view SESSION:STEP` opens the viewer at that step, a
bad link is one line, and `serve` takes the same link as a URL (`/view/SESSION:STEP`)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from crmarena_tui.cli import build_parser, main
from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer
from crmarena_tui.storage.step_links import StepLink, parse_link
from tests.support.app_support import SAMPLE, SIZE, FakeOrg, screen_text
from tests.support.app_trajectory_support import T0, seed
from tests.support.pilot_wait_support import wait_until


def test_a_link_is_a_session_and_maybe_a_step() -> None:
    assert parse_link("12") == StepLink(12) and str(parse_link(" 12 : 3 ")) == "12:3"
    for bad, said in (("12:0", "numbered from 1"), ("x:3", "SESSION:STEP"), ("1:2:3", "e.g.")):
        with pytest.raises(ValueError, match=said):
            parse_link(bad)


@pytest.mark.parametrize(
    ("link", "said", "code"),
    [
        ("1:9", "error: no step 9 in session 1 (it has 4 steps)", 1),
        ("99:1", "error: no session 99 in ", 1),
        ("1:two", "error: '1:two' is not SESSION or SESSION:STEP (e.g. 12 or 12:3)", 2),
    ],
)
def test_a_bad_link_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], link: str, said: str, code: int
) -> None:
    seed(tmp_path / "sessions.db")
    assert main(["view", "--db", str(tmp_path / "sessions.db"), link]) == code
    err = capsys.readouterr().err
    assert err.startswith(said) and err.count("\n") == 1, err


def test_a_step_goes_with_one_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(tmp_path / "sessions.db")
    assert main(["view", "--db", str(tmp_path / "sessions.db"), "1:2", "3"]) == 2
    assert "a step (SESSION:STEP) opens one session only" in capsys.readouterr().err


async def test_the_viewer_opens_at_the_step_of_the_link(tmp_path: Path) -> None:
    from crmarena_tui.app.app import PlayOptions
    from crmarena_tui.commands.view import make_app, parse_links

    ids = seed(tmp_path / "sessions.db")
    (link,) = parse_links([f"{ids['agent']}:2"])
    options = PlayOptions(
        tasks=str(SAMPLE), participant="ann", db=tmp_path / "sessions.db", clock=lambda: T0
    )
    app = make_app(options, [link.session_id], org_factory=lambda _: FakeOrg(), step=link.step)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, TrajectoryViewer) and app.screen.ready
        )
        viewer = app.screen
        assert isinstance(viewer, TrajectoryViewer)
        assert viewer.step_list.cursor == 1
        await wait_until(pilot, lambda: "Step 2 of 4" in screen_text(app), "step 2 shown")
        assert "thought: Who owned them before?" in screen_text(app)  # step 2's
        await pilot.press("l")  # and moves on from there as ever
        assert viewer.step_list.cursor == 2


def _serve_args(tmp_path: Path):
    return build_parser().parse_args(
        ["serve", "--tasks", "demo:small", "--db", str(tmp_path / "sessions.db"), "--as", "ann"]
        + ["--pace", "0.5", "--blind"]
    )


def test_a_link_connection_runs_view_with_serve_s_options(tmp_path: Path) -> None:
    from crmarena_tui.commands.serve import view_command

    argv = shlex.split(view_command(_serve_args(tmp_path), "1:3", python="py"))
    assert argv == ["py", "-m", "crmarena_tui", "view", "--tasks", "demo:small"] + [
        "--db",
        str((tmp_path / "sessions.db").resolve()),
        "--as",
        "ann",
        "1:3",
    ]
    assert build_parser().parse_args(argv[3:]).sessions == ["1:3"]  # `view` takes every one


async def test_serve_takes_the_link_as_a_url(tmp_path: Path) -> None:
    from crmarena_tui.commands._serve_links import _LINK, linked_server
    from crmarena_tui.commands.serve import view_command

    ids = seed(tmp_path / "sessions.db")
    args = _serve_args(tmp_path)
    server = linked_server(
        "play-command",
        view_command=lambda link: view_command(args, link, python="py"),
        db=tmp_path / "sessions.db",
        allowed=frozenset(),
        host="127.0.0.1",
        port=8000,
        title="crmarena-tui",
        public_url="http://127.0.0.1:8000",
    )
    async with TestClient(TestServer(await server._make_app())) as client:
        host = f"{client.host}:{client.port}"
        server.allowed = frozenset({host})
        page = await client.get(f"/view/{ids['agent']}:3", headers={"Host": host})
        assert page.status == 200
        assert f'data-session-websocket-url="ws://127.0.0.1:8000/ws/view/{ids["agent"]}:3"' in (
            await page.text()
        )
        whole = await client.get(f"/view/{ids['agent']}", headers={"Host": host})
        assert whole.status == 200
        for link, said in (
            (f"{ids['agent']}:9", f"no step 9 in session {ids['agent']} (it has 4 steps)\n"),
            ("99:1", f"no session 99 in {tmp_path / 'sessions.db'}\n"),
            ("1:x", "'1:x' is not SESSION or SESSION:STEP (e.g. 12 or 12:3)\n"),
        ):
            for path in (f"/view/{link}", f"/ws/view/{link}"):
                refused = await client.get(path, headers={"Host": host})
                assert (refused.status, await refused.text()) == (404, said)
        other = await client.get(f"/view/{ids['agent']}:3", headers={"Host": "evil.example:80"})
        assert other.status == 403  # the guard's checks hold for links too
    assert server.process_command().endswith("play-command")
    token = _LINK.set(f"{ids['agent']}:3")  # as a connection at /ws/view/LINK sets it
    try:
        argv = shlex.split(server.process_command())
    finally:
        _LINK.reset(token)
    assert argv[1:5] == ["py", "-m", "crmarena_tui", "view"] and argv[-1] == f"{ids['agent']}:3"
