"""The one base of the failures a user is expected to meet, and their exit codes.

A `UserError` is a failure whose message already says what went wrong, where and what to do
(a file that is not a sessions database, a broken task row, a bad setting, a port in use): the
command line prints it as one line and exits with its `ExitCode` (FAILED, 1, unless the raiser
names another); a command never prints its own error, it raises. Any other exception is a bug:
`settings/crash_log.py` writes its traceback to a crash log and the terminal gets one line naming
that file (docs/ARCHITECTURE.md, "Errors"). Also what a storage fault (a full disk, a read-only
or damaged file) looks like, for every layer that writes. This module is the lowest layer: it
imports nothing but the standard library.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from enum import IntEnum


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


DAMAGE_WORDS = ("malformed", "not a database", "disk image", "corrupt")


def is_damage(exc: BaseException) -> bool:
    """Whether an SQLite error says the file itself is damaged (not busy, not full)."""
    text = str(exc).lower()
    return any(word in text for word in DAMAGE_WORDS)


def storage_fault(exc: BaseException) -> str | None:
    """What is wrong with where things are written, when `exc` says the disk is full, the file
    is read-only or damaged (no task, agent or model can do anything about it), else None."""
    import errno
    import sqlite3

    text = str(exc).lower()
    if isinstance(exc, sqlite3.DatabaseError):
        if "full" in text:
            return "the disk is full"
        if "readonly" in text or "read-only" in text:
            return "the database is read-only"
        if is_damage(exc):
            return "the database is damaged"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if isinstance(exc, OSError) and exc.errno == errno.EROFS:
        return "the file system is read-only"
    return None
