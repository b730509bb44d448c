"""One error path for commands (issue 39, item 4): a command raises `UserError` with a named exit
code and `cli.main` prints it; no command prints its own error on stderr, and nothing catches
`Exception` to call it the user's fault. The source checks read the syntax tree (as
test_pilot_wait.py reads the tests), and are shown to catch a planted offence; the runs below
pin a few failures' exact line and exit code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from crmarena_tui import cli, commands
from crmarena_tui.cli import main
from crmarena_tui.errors import ExitCode, Interrupted, UserError
from crmarena_tui.settings import config

PACKAGE = Path(cli.__file__).parent
COMMANDS = Path(commands.__file__).parent

# Where catching every exception is right, and why (file, function).
BROAD_CATCHES = {
    ("cli.py", "main"): "the top level: a bug is one line and a crash log",
    ("cli.py", "_sessions_db"): "naming the database in a fault's line is a courtesy",
    ("_serve_guard.py", "handle_websocket"): "one connection ends, as in textual-serve; the "
    "server goes on",
}
# The places a failure reaches the terminal: `main`, and the crash line it has printed for a bug.
PRINTERS = {("cli.py", "main"), ("crash_log.py", "crash")}


def _text(node: ast.expr) -> str:
    """The literal start of a message: a string, or an f-string's leading text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _text(node.values[0])
    return ""


def _to_stderr(call: ast.Call) -> bool:
    """`print(..., file=sys.stderr)`, `sys.stderr.write(...)` or `note(...)`."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "note":
        return True
    if isinstance(func, ast.Attribute) and func.attr == "write":
        return ast.unparse(func.value) == "sys.stderr"
    if isinstance(func, ast.Name) and func.id == "print":
        return any(k.arg == "file" and ast.unparse(k.value) == "sys.stderr" for k in call.keywords)
    return False


def _quits(stmt: ast.stmt) -> bool:
    """`return` of a non-zero code (a number or an `ExitCode`), `sys.exit(...)` or
    `raise SystemExit(...)`: a failure's exit."""
    if isinstance(stmt, ast.Return) and stmt.value is not None:
        value = stmt.value
        if isinstance(value, ast.Constant):
            return isinstance(value.value, int) and value.value != 0
        return ast.unparse(value).startswith("ExitCode.") and ast.unparse(value) != "ExitCode.OK"
    return ast.unparse(stmt).startswith(("sys.exit(", "raise SystemExit"))


def problems(source: str, name: str) -> list[str]:
    """What in a command module's `source` bypasses the one error path."""
    tree = ast.parse(source)
    found = []
    functions = {}  # each node's innermost function (an outer one is walked first)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                functions[id(inner)] = node.name
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        printer = (name, functions.get(id(node))) in PRINTERS
        if isinstance(node, ast.FunctionDef) and node.name == "fail":
            found.append(f"{where}: defines fail(): raise UserError instead")
        if isinstance(node, ast.Call):
            callee = node.func
            if (isinstance(callee, ast.Name) and callee.id == "fail") or (
                isinstance(callee, ast.Attribute) and callee.attr == "fail"
            ):
                found.append(f"{where}: calls fail(): raise UserError instead")
            elif (
                not printer
                and _to_stderr(node)
                and node.args
                and _text(node.args[0]).lower().startswith("error")
            ):
                found.append(f"{where}: prints an error on stderr: raise UserError instead")
        if isinstance(node, ast.ExceptHandler):
            kinds = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            caught = {ast.unparse(k) if k is not None else "everything" for k in kinds}
            if caught & {"Exception", "BaseException", "everything"}:
                function = functions.get(id(node), "")
                if (name, function) not in BROAD_CATCHES:
                    found.append(f"{where}: catches {caught} in {function}(): name the errors")
        body_lists = [
            getattr(node, field)
            for field in ("body", "orelse", "finalbody")
            if isinstance(getattr(node, field, None), list) and not printer
        ]
        for body in body_lists:
            for first, then in zip(body, body[1:], strict=False):
                if (
                    isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Call)
                    and _to_stderr(first.value)
                    and _quits(then)
                ):
                    found.append(
                        f"{name}:{first.lineno}: prints on stderr, then exits non-zero: "
                        "raise UserError instead"
                    )
    return found


def _sources() -> list[Path]:
    return [
        *sorted(COMMANDS.glob("*.py")),
        PACKAGE / "cli.py",
        *sorted(PACKAGE.glob("settings/*.py")),
    ]


def test_no_command_prints_its_own_error() -> None:
    found = [p for path in _sources() for p in problems(path.read_text(), path.name)]
    assert found == []


@pytest.mark.parametrize(
    ("planted", "what"),
    [
        ('def run(args):\n    return fail("error: no such file")\n', "calls fail()"),
        ("def fail(message, code=1):\n    return code\n", "defines fail()"),
        (
            'def run(args):\n    print(f"error: {args.x}", file=sys.stderr)\n    return 0\n',
            "prints an error on stderr",
        ),
        (
            'def run(args):\n    print("no tasks", file=sys.stderr)\n    return 2\n',
            "then exits non-zero",
        ),
        (
            "def run(args):\n    try:\n        go()\n    except Exception as exc:\n"
            '        raise UserError(f"bad settings: {exc}")\n',
            "in run(): name the errors",
        ),
    ],
)
def test_the_source_check_finds_a_planted_offence(planted: str, what: str) -> None:
    found = problems(planted, "planted.py")
    assert len(found) == 1 and what in found[0], found
    clean = 'def run(args):\n    note("note: kept 3")\n    raise UserError("none", code=2)\n'
    assert problems(clean, "clean.py") == []


def test_exit_codes_are_named_once_with_the_values_scripts_rely_on() -> None:
    assert {code.name: int(code) for code in ExitCode} == {
        "OK": 0,
        "FAILED": 1,
        "USAGE": 2,
        "CRASH": 70,
        "INTERRUPTED": 130,
    }
    assert UserError("x").exit_code == ExitCode.FAILED
    assert UserError("x", code=ExitCode.USAGE).exit_code == ExitCode.USAGE
    assert Interrupted("x").exit_code == ExitCode.INTERRUPTED


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_usage_refusal_keeps_its_line_and_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "search", "--db", str(tmp_path / "s.db"))
    assert (code, out) == (2, "")
    assert err == "error: give a QUERY (or --saved to list the saved searches)\n"


def test_a_missing_database_keeps_its_line_and_code_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "none.db"
    code, out, err = _run(capsys, "report", "--db", str(path))
    assert (code, out) == (1, "")
    assert err == (
        f"error: no sessions database at {path} (pass --db, or play, run or import first)\n"
    )


def test_a_bad_task_type_is_one_usage_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "tasks", "list", "--task", "nope")
    assert (code, out) == (2, "")
    assert err == "error: unknown task type 'nope'; see `crmarena-tui tasks types`\n"


def test_a_bad_setting_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMARENA_TUI_PROTOCOL", "paper")
    code, out, err = _run(capsys, "run", "--agent", "reference", "--tasks", "demo:small")
    assert (code, out) == (2, "")
    assert err.startswith("error: bad settings: ") and err.count("\n") == 1
    assert "CRMARENA_TUI_PROTOCOL" in err


def test_a_bug_while_reading_settings_is_a_crash_not_bad_settings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(**overrides: object) -> None:
        raise KeyError("a bug in the settings code")

    monkeypatch.setattr(config, "load_settings", broken)
    for argv in (
        ("run", "--agent", "reference", "--tasks", "demo:small"),
        ("grade", "--tasks", "demo:small", "--idx", "0", "--answer", "x"),
        ("mcp", "--tasks", "demo:small"),
    ):
        code, _, err = _run(capsys, *argv)
        assert code == ExitCode.CRASH, (argv, err)
        assert "bad settings" not in err and "unexpected error (KeyError" in err


def test_an_org_that_cannot_open_is_a_line_and_a_bug_there_a_crash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmarena_tui.session import org_resolve as resolve

    argv = ("run", "--agent", "reference", "--tasks", "demo:small", "--task", "handle_time")

    def unreadable(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", "/orgs/b2b.db")

    monkeypatch.setattr(resolve, "open_task_org", unreadable)
    code, out, err = _run(capsys, *argv)
    assert code == 1 and err.startswith("error: cannot open the org for b2b tasks: ")
    assert "Permission denied" in err and err.count("\n") == 1

    def buggy(*args: object, **kwargs: object) -> None:
        raise AttributeError("a bug in routing")

    monkeypatch.setattr(resolve, "open_task_org", buggy)
    code, _, err = _run(capsys, *argv)
    assert code == ExitCode.CRASH and "cannot open the org" not in err
