"""`crmarena-tui mcp` on the command line: bad input stops with one line before anything is
served, a non-loopback host is warned about, `--help` gives the clients' configuration."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from tests.support.mcp_support import free_port, server_command


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


HANDSHAKE_PROBE = """
import sys
import crmarena_tui.session.mcp_server as m

def serve(server, early=None):
    heavy = [name for name in ("litellm", "datasets", "openai", "pandas") if name in sys.modules]
    print("heavy before the handshake:", ",".join(heavy) or "none", file=sys.stderr)

m.serve_stdio = serve
from crmarena_tui.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("protocol", ["workbench", "upstream"])
def test_nothing_heavy_is_imported_before_the_handshake(tmp_path: Path, protocol: str) -> None:
    """Where the server starts answering (`serve_stdio`), litellm and datasets are not loaded:
    a client's `initialize` waits on neither (pydantic-ai gives up after 5 s)."""
    args = ["mcp", "--db", str(tmp_path / "s.db"), "--tasks", "demo:small", "--limit", "2"]
    done = subprocess.run(
        [sys.executable, "-c", HANDSHAKE_PROBE, *args, "--protocol", protocol],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "heavy before the handshake: none" in done.stderr


def test_a_chat_queue_without_the_user_models_key_is_refused_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["--tasks", "demo:small", "--limit", "1", "--interactive", "--protocol", "upstream"]
    code = main(["mcp", "--db", str(tmp_path / "s.db"), *args])
    err = capsys.readouterr().err
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "OPENAI_API_KEY" in err and "--user-model" in err
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    from crmarena_tui.commands import mcp as command

    monkeypatch.setattr(command, "serve", lambda *a: 0)  # with the key it would serve
    assert main(["mcp", "--db", str(tmp_path / "s.db"), *args]) == 0


def test_report_usage_without_a_cost_is_priced_from_the_bundled_map() -> None:
    from crmarena_tui.agents.tool_env import usage_payload

    payload = usage_payload("gpt-4o", 1_000_000, 0)
    assert payload["cost"] == pytest.approx(2.5, rel=0.5)  # litellm's map, no network
    assert usage_payload("no-such-model-anywhere", 10, 10)["cost"] is None
