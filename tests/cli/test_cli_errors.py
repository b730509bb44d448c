"""The command line's one error path (issue 28, items 4 and 7): an expected failure is one line
and a non-zero exit; an unexpected one is one line naming a crash log that holds the traceback,
for every command and the app; a bad setting names its file and line, or its variable."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.errors import ExitCode
from crmarena_tui.settings import locations


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _crash_log(err: str) -> Path:
    """The crash log the one line names."""
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    words = [w.rstrip(".;,") for w in err.split()]
    logs = [Path(w) for w in words if w.endswith(".log")]
    assert logs, err
    return logs[0]


def test_an_unexpected_error_is_one_line_and_a_crash_log(
    sample_rows_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(src: str, *rules: object) -> list:
        raise ZeroDivisionError("a bug deep inside")

    monkeypatch.setattr("crmarena_tui.tasks.loaders.load_tasks", broken)
    code, out, err = _run(capsys, "tasks", "list", "--tasks", str(sample_rows_path))
    assert code == ExitCode.CRASH and out == ""
    log = _crash_log(err)
    assert "ZeroDivisionError: a bug deep inside" in err
    assert log.parent == locations.crash_dir() and log.exists()
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "a bug deep inside" in text
    assert "tasks list --tasks" in text  # the command that crashed


def test_a_deeply_nested_task_file_is_a_row_error_not_a_recursion_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    row = '{"idx": 1, "task": "handle_time", "query": ' + deep + "}"
    for name, text in (("deep.json", f"[{row}]"), ("deep.jsonl", f'{{"idx": 0}}\n{row}\n')):
        path = tmp_path / name
        path.write_text(text)
        code, _, err = _run(capsys, "tasks", "list", "--tasks", str(path))
        assert code == 1, err
        assert err.count("\n") == 1 and "Traceback" not in err and "RecursionError" not in err
        assert err.startswith(f"error: {path}") and "nested too deeply" in err
    assert "line 2" in err  # the .jsonl file's line


def test_the_app_crashing_restores_the_terminal_then_prints_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from textual.app import App

    from crmarena_tui.app import app as app_module

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the first frame broke")

    monkeypatch.setattr(app_module, "ready_table", boom)
    monkeypatch.setattr(
        app_module.CrmArenaApp, "run", lambda self: App.run(self, headless=True, size=(80, 24))
    )
    code, _, err = _run(capsys, "play", "--tasks", "demo:small", "--db", str(tmp_path / "s.db"))
    assert code == ExitCode.CRASH
    log = _crash_log(err)
    assert "RuntimeError: the first frame broke" in err
    assert "the first frame broke" in log.read_text() and "Traceback" in log.read_text()


def test_serve_on_a_port_in_use_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = _run(capsys, "serve", "--port", str(port), "--tasks", "demo:small")
    assert code == 1
    assert (
        err == f"error: port {port} on 127.0.0.1 is in use: stop what listens there or pick "
        "another --port\n"
    )


# ---------------------------------------------------------------- settings (item 7)

QUERY = ("query", "SELECT Id FROM Account LIMIT 1", "--org", "demo")


def _config(text: str) -> Path:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_config_file_that_is_not_toml_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    path = _config('protocol = "upstream"\nblind = [\n')
    code, _, err = _run(capsys, *QUERY)
    assert code == 2 and err.count("\n") == 1  # a bad setting: a usage error
    assert err.startswith(f"error: {path}: not valid TOML") and "at end of document" in err


def test_a_bad_value_in_the_config_file_names_its_line_and_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _config('participant = "ana"\n\nprotocol = "paper"\n')
    code, _, err = _run(capsys, *QUERY)
    assert code == 2 and err.count("\n") == 1  # a bad setting: a usage error
    assert f"{path}, line 3: setting 'protocol'" in err and "'upstream' or 'workbench'" in err
    assert "pydantic" not in err and "Settings" not in err


def test_a_bad_variable_is_named_without_pydantics_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_KEYMAP", "f5")
    code, _, err = _run(capsys, *QUERY)
    assert code == 2 and err.count("\n") == 1  # a bad setting: a usage error
    assert "the variable CRMARENA_TUI_KEYMAP (setting 'keymap')" in err and "JSON object" in err
    assert "EnvSettingsSource" not in err and "pydantic" not in err
    monkeypatch.setenv("CRMARENA_TUI_KEYMAP", json.dumps({"workspace.run-query": 5}))
    code, _, err = _run(capsys, *QUERY)
    assert "the variable CRMARENA_TUI_KEYMAP: setting 'keymap' (entry workspace.run-query)" in err
    assert "errors.pydantic.dev" not in err
