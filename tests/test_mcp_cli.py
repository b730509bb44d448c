"""`crmarena-tui mcp` on the command line: bad input stops with one line before anything is
served, a non-loopback host is warned about, `--help` gives the clients' configuration."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from crmarena_tui.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from mcp_support import free_port, server_command  # noqa: E402


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--token", "x"],
            "error: --host, --token and --allow-origin are for --http (stdio needs none)",
        ),
        (["--task", "nope"], "error: unknown task type nope; see `crmarena-tui tasks types`"),
        (["--tasks", "demo:small", "--limit", "0"], "error: no tasks selected"),
        (
            ["--task", "handle_time", "--protocol", "upstream", "--user-model", "scripted"],
            "error: under --protocol upstream a model plays the user in chat tasks",
        ),
    ],
)
def test_bad_input_gets_one_line(args, message, tmp_path: Path, capsys) -> None:
    code = main(["mcp", "--db", str(tmp_path / "s.db"), *args])
    err = capsys.readouterr().err
    assert code != 0 and err.startswith(message) and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "s.db").exists()  # nothing was served or stored


def test_help_gives_the_configuration_for_mcp_clients(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["mcp", "--help"])
    out = capsys.readouterr().out
    assert '{"mcpServers": {"crmarena": {"command": "crmarena-tui",' in out
    assert "claude mcp add crmarena -- crmarena-tui mcp --tasks demo:small" in out


def test_a_host_other_than_loopback_is_warned_about(tmp_path: Path) -> None:
    command = server_command(tmp_path / "s.db", "--tasks", "demo:small", "--limit", "1")
    proc = subprocess.Popen(
        [
            *command,
            "--protocol",
            "workbench",
            "--http",
            "--host",
            "0.0.0.0",
            "--port",
            str(free_port()),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline and "warning" not in line:
            line = proc.stderr.readline()
        assert line.startswith("warning: serving on 0.0.0.0: anyone who can reach it")
        assert "consider --token" in line
    finally:
        proc.kill()
        proc.wait(30)
