"""The one base of the failures a user is expected to meet, and the crash log for the others.

A `UserError` is a failure whose message already says what went wrong, where and what to do
(a file that is not a sessions database, a broken task row, a bad setting, a port in use): the
command line prints it as one line and exits with its `ExitCode` (FAILED, 1, unless the raiser
names another); a command never prints its own error, it raises. Any other exception is a bug:
`crash` writes its traceback to a crash log (`locations.crash_dir()`) and the terminal gets one
line naming that file (docs/ARCHITECTURE.md, "Layers"). Nothing here imports more than the
standard library.
"""

from __future__ import annotations

import os
import re
import sys
import time
import traceback
from collections.abc import Iterable
from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    """Every exit code a command returns (docs/commands.md, "Exit codes")."""

    OK = 0
    FAILED = 1  # found wrong while running (no such file, task, org); or work done, items left out
    USAGE = 2  # what the options or settings ask for cannot be, as argparse exits for a bad option
    CRASH = 70  # EX_SOFTWARE: an internal error (a bug), its traceback in a crash log
    INTERRUPTED = 130  # 128 + SIGINT: stopped by Ctrl+C, what was done kept


class UserError(Exception):
    """An expected failure; its message is the one line the user reads, after `error: `.
    `code` names the exit code when it is not the class's own."""

    exit_code: int = ExitCode.FAILED

    def __init__(self, *args: object, code: ExitCode | None = None) -> None:
        super().__init__(*args)
        if code is not None:
            self.exit_code = code

    def shown(self) -> str:
        """What `cli.main` prints: `error: ` and the message on one line, secrets redacted."""
        return f"error: {one_line(redact(str(self)), 2000)}"


class OutputRefused(UserError):
    """An `--out` that would destroy something (an input, a sessions database, an existing file
    without `--force`): refused before any work, exit code 2 like a bad option."""

    exit_code = ExitCode.USAGE


class Interrupted(UserError):
    """A batch stopped by Ctrl+C once it has put its work away: its message says what is left
    and how to go on (no `error: ` before it); exit code 130."""

    exit_code = ExitCode.INTERRUPTED

    def shown(self) -> str:
        return one_line(redact(str(self)), 2000)


# Environment variables that hold a credential: every provider key litellm reads
# (OPENAI_API_KEY, ANTHROPIC_API_KEY, AZURE_API_KEY, AWS_SECRET_ACCESS_KEY, HF_TOKEN, ...),
# the project's own (CRMARENA_TUI_API_KEY) and any other key, token, secret or password.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MIN_SECRET = 8  # a shorter value is not worth hiding, and would blank ordinary words
_remembered: set[str] = set()


def remember_secret(value: str | None) -> None:
    """Have `redact` hide `value` from now on (a key from the config file, `mcp --token`)."""
    if value and len(value) >= MIN_SECRET:
        _remembered.add(value)


def secrets_in_use(extra: Iterable[str | None] = ()) -> list[str]:
    """Every secret `redact` hides: the values of the credential variables of the environment,
    the remembered ones and `extra`, longest first."""
    found = {v for k, v in os.environ.items() if SECRET_NAME.search(k)} | _remembered
    found.update(v for v in extra if v)
    return sorted((v for v in found if len(v) >= MIN_SECRET), key=len, reverse=True)


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """`text` with every secret in use replaced by `***`: a provider echoes the key it was
    given in its 401, wherever that key came from."""
    for secret in secrets_in_use(extra):
        if secret in text:
            text = text.replace(secret, "***")
    return text


def one_line(text: str, limit: int = 300) -> str:
    """`text` on one line (newlines folded), at most `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def write_crash_log(exc: BaseException, argv: list[str] | None = None) -> Path | None:
    """Write `exc`'s traceback (and the command that raised it) to a new file in the crash
    folder, else in the temporary folder; its path, or None when neither can be written."""
    import tempfile

    from crmarena_tui import __version__
    from crmarena_tui.settings import locations

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    text = (
        f"crmarena-tui {__version__}, Python {sys.version.split()[0]}\n"
        f"command: {' '.join(argv if argv is not None else sys.argv)}\n"
        f"time (UTC): {stamp}\n\n"
        + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    )
    text = redact(text)
    for folder in (locations.crash_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=f"crash-{stamp}-", suffix=".log", dir=folder)
            with open(handle, "w", encoding="utf-8") as fh:
                fh.write(text)
            return Path(name)
        except OSError:
            continue
    return None


def crash(exc: BaseException, argv: list[str] | None = None) -> int:
    """Report an unexpected exception in one line on stderr, its traceback in a crash log; the
    exit code."""
    path = write_crash_log(exc, argv)
    from crmarena_tui.terminal_text import plain_text

    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    what = plain_text(one_line(redact(what), 200))
    where = f"the traceback is in {path}" if path else "no crash log could be written"
    print(
        f"crmarena-tui: unexpected error ({what}); {where}. Please report it with that file.",
        file=sys.stderr,
    )
    return ExitCode.CRASH
