"""One rule for exit codes (docs/commands.md, "Exit codes"): what the command line or the settings
ask for and cannot be (a bad option value, options that do not go together, a missing option, a
bad setting in the config file or the environment) is a usage error, exit code 2, as argparse
exits for an option it refuses; a command that ran and found something wrong (no such file, task
or database, an org that cannot open) exits 1. Each row is one command line, run through
`cli.main`, with the code and the start of the one line it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.cli import main
from crmarena_tui.errors import ExitCode
from crmarena_tui.storage import Store

USAGE, FAILED = ExitCode.USAGE, ExitCode.FAILED
TASKS = ("--tasks", "demo:small")
RUN = ("run", "--agent", "reference", *TASKS)
VARIABLE = "error: the variable CRMARENA_TUI_"  # then its name, the setting and what it must be

# (command line, environment, exit code, start of the line on stderr); {tmp} is a fresh folder
# and {db} an empty sessions database in it
ROWS: list[tuple[tuple[str, ...], dict[str, str], int, str]] = [
    # a bad option value, options that do not go together, an option missing: exit code 2
    (("play", "--pace", "-1"), {}, USAGE, "error: --pace must be 0 or more seconds"),
    (("tasks", "list", "--task", "nope"), {}, USAGE, "error: unknown task type 'nope'"),
    (("tasks", "types", "--format", "xml"), {}, USAGE, "usage: "),  # argparse's own
    (("org", "build", "--scale", "0"), {}, USAGE, "error: --scale must be positive"),
    (
        ("org", "import", "{tmp}/snap.db", "--org-type", "b2b", "--today", "2024-13-40"),
        {},
        USAGE,
        "error: --today: not a date",
    ),
    (("org", "import", "{tmp}/snap.db"), {}, USAGE, "error: cannot tell the org type"),
    (("org", "snapshot", "demo", "--out", "{tmp}/o.db"), {}, USAGE, "error: org snapshot takes"),
    (("org", "verify", "demo:b2b", "demo:b2b", "--today", "x"), {}, USAGE, "error: ORG_A: --today"),
    (("query", "SELECT Id FROM Account", "--format", "xml"), {}, USAGE, "usage: "),
    (("run", "--agent", "reference", "--concurrency", "0"), {}, USAGE, "error: --concurrency"),
    (("run", "--agent", "reference", "--trials", "0"), {}, USAGE, "error: --trials must be"),
    (("run", "--agent", "reference", "--pace", "-2"), {}, USAGE, "error: --pace must be 0"),
    (("run", *TASKS, "--db", "{db}"), {}, USAGE, "error: --agent is required"),
    (
        (*RUN, "--protocol", "workbench", "--upstream-prompts", "{tmp}"),
        {},
        USAGE,
        "error: --upstream-prompts needs --protocol upstream",
    ),
    ((*RUN, "--model-proxy"), {}, USAGE, "error: --model-proxy is for a Python agent"),
    (("mcp", "--workers", "0"), {}, USAGE, "error: --workers must be at least 1"),
    (("mcp", "--trials", "0"), {}, USAGE, "error: --trials must be at least 1"),
    (("mcp", "--host", "0.0.0.0"), {}, USAGE, "error: --host, --token and --allow-origin"),
    (("agents", "--format", "xml"), {}, USAGE, "usage: "),
    (("import", "{tmp}", "--org-type", "b2x"), {}, USAGE, "usage: "),
    (("export", "--out", "{tmp}/s.txt", "--db", "{db}"), {}, USAGE, "error: pass --format"),
    (("scan", "--db", "{db}"), {}, USAGE, "error: pass --model MODEL"),
    (("scan", "--model", "m", "--concurrency", "0", "--db", "{db}"), {}, USAGE, "error: --concurr"),
    (("review", "create", "q", "--reviews", "0", "--db", "{db}"), {}, USAGE, "error: --reviews"),
    (("review", "release", "q", "--all-stale", "-1", "--db", "{db}"), {}, USAGE, "error: --all-st"),
    (("review", "release", "q", "--db", "{db}"), {}, USAGE, "usage: "),  # argparse's own
    (("report", "--k", "0", "--db", "{db}"), {}, USAGE, "error: --k 0: whole numbers"),
    (("report", "--cluster", "colour", "--db", "{db}"), {}, USAGE, "error: --cluster colour"),
    (("report", "--fuzzy-threshold", "2", "--db", "{db}"), {}, USAGE, "error: --fuzzy-threshold"),
    (("search", "x", "--limit", "-1", "--db", "{db}"), {}, USAGE, "error: --limit must be 0"),
    (("search", "--db", "{db}"), {}, USAGE, "error: give a QUERY"),
    (("search", "kind:querry", "--db", "{db}"), {}, USAGE, "error: kind:querry is not an event"),
    (("view", "1", "2", "3", "4"), {}, USAGE, "error: compare at most three sessions"),
    (("view", "1", "--report"), {}, USAGE, "error: --report takes no session ids"),
    (("serve", "--port", "0"), {}, USAGE, "error: --port must be between 1 and 65535"),
    (("serve", "--max-connections", "3"), {}, USAGE, "error: --max-connections goes with"),
    (("serve", "--join-grace", "5"), {}, USAGE, "error: --join-grace goes with"),
    (
        ("sessions", "merge", "{db}", "{tmp}/b.db", "--out", "{tmp}/c.db", "--prefer", "ask"),
        {},
        USAGE,
        "error: --prefer ask reads your choices from a terminal",
    ),
    (
        ("study", "create", "s", *TASKS, "--per-task", "3", "--participants", "a,b"),
        {},
        USAGE,
        "error: --per-task 3 needs at least 3 participants",
    ),
    (
        ("study", "create", "s", *TASKS, "--per-task", "0", "--participants", "a,b"),
        {},
        USAGE,
        "error: --per-task must be at least 1",
    ),
    (
        ("study", "create", "s", *TASKS, "--per-task", "1", "--participants", "a", "--time-limit")
        + ("0",),
        {},
        USAGE,
        "error: --time-limit must be more than 0 minutes",
    ),
    (("study", "report", "s", "--fuzzy-threshold", "2"), {}, USAGE, "error: --fuzzy-threshold"),
    (
        ("grade", *TASKS, "--idx", "0", "--answer", "x", "--show-gold"),
        {"CRMARENA_TUI_BLIND": "1"},
        USAGE,
        "error: --show-gold is refused while the blind setting is on",
    ),
    # a bad setting, in the environment or the config file: exit code 2 in every command
    (("query", "SELECT Id FROM Account"), {"CRMARENA_TUI_PROTOCOL": "paper"}, USAGE, VARIABLE),
    (("query", "SELECT Id FROM Account"), {"CRMARENA_TUI_LENIENT": "maybe"}, USAGE, VARIABLE),
    (("play",), {"CRMARENA_TUI_BLIND": "maybe"}, USAGE, VARIABLE),
    (("tasks", "list"), {"CRMARENA_TUI_BLIND": "maybe"}, USAGE, VARIABLE),
    (RUN, {"CRMARENA_TUI_PROTOCOL": "paper"}, USAGE, "error: bad settings: "),
    (RUN, {"CRMARENA_TUI_BLIND": "maybe"}, USAGE, VARIABLE),
    (("regrade", "--db", "{db}"), {"CRMARENA_TUI_PROTOCOL": "paper"}, USAGE, "error: bad settings"),
    # found something wrong while running: exit code 1
    (("report", "--db", "{tmp}/none.db"), {}, FAILED, "error: no sessions database at"),
    (("regrade", "--db", "{tmp}/none.db"), {}, FAILED, "error: no sessions database at"),
    (("tasks", "list", "--tasks", "{tmp}/none.json"), {}, FAILED, "error: no such task file"),
    (("grade", *TASKS, "--idx", "99999", "--answer", "x"), {}, FAILED, "error: no task with idx"),
    (("import", "{tmp}/none.json"), {}, FAILED, "error: no such file or folder"),
    (("org", "info", "{tmp}/none.db"), {}, FAILED, "error: {tmp}/none.db is not an org"),
    (
        ("query", "SELECT Id FROM Account", "--org", "{tmp}/none.db"),
        {},
        FAILED,
        "error: no org file",
    ),
    (("study", "status", "nope", "--db", "{db}"), {}, FAILED, "error: no study named 'nope'"),
    (("study", "import", "{tmp}/none.json"), {}, FAILED, "error: no such file"),
    (("search", "@nope", "--db", "{db}"), {}, FAILED, "error: no saved search named 'nope'"),
]

# A setting's line names where it came from, whatever the command
SETTING_NAMED = {"CRMARENA_TUI_PROTOCOL", "CRMARENA_TUI_LENIENT", "CRMARENA_TUI_BLIND"}


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusal of an option
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "env", "code", "start"),
    ROWS,
    ids=[" ".join(argv) + "".join(f" {k}={v}" for k, v in env.items()) for argv, env, *_ in ROWS],
)
def test_every_command_follows_the_exit_code_rule(
    argv: tuple[str, ...],
    env: dict[str, str],
    code: int,
    start: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "s.db"
    Store(db).close()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("crmarena_tui.commands.play.run_app", _no_app)  # (never reached)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)  # (`--prefer ask` needs a terminal)
    args = [a.replace("{tmp}", str(tmp_path)).replace("{db}", str(db)) for a in argv]
    got, out, err = _cli(args, capsys)
    assert (got, out) == (code, ""), err
    assert err.startswith(start.replace("{tmp}", str(tmp_path))), err
    if start != "usage: ":  # (argparse prints its usage, then its line)
        assert err.count("\n") == 1, err
    named = SETTING_NAMED & set(env)
    if named and code == USAGE and "error: --" not in err:
        assert all(name in err for name in named), err


def _no_app(app: object) -> int:
    raise AssertionError("the app started: the option should have been refused before")


def test_the_rule_holds_for_a_broken_config_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from crmarena_tui.settings import locations

    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    query = ["query", "SELECT Id FROM Account"]
    for text, argv in (
        ("blind = [\n", ["tasks", "types"]),  # not TOML: every command stops
        ('blind = "maybe"\n', ["tasks", "types"]),
        ('protocol = "paper"\n', query),  # read by the commands that load every setting
        ('protocol = "paper"\n', ["run", "--agent", "reference", *TASKS]),
    ):
        path.write_text(text)
        code, out, err = _cli(argv, capsys)
        assert (code, out) == (USAGE, ""), (text, argv, err)
        assert str(path) in err and err.count("\n") == 1, (text, argv, err)


def test_the_table_has_a_usage_error_of_every_command() -> None:
    import argparse

    from crmarena_tui.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    covered = {argv[0] for argv, _env, code, _start in ROWS if code == USAGE}
    assert set(sub.choices) - covered == set()
