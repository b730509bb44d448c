"""Errors the sessions database raises, each with a message a user can act on."""

from __future__ import annotations

from crmarena_tui.errors import UserError


class StorageError(UserError):
    """Any problem opening or writing the sessions database."""


class NotASessionsDatabase(StorageError):
    """The file is not a SQLite database, is corrupt, or holds someone else's tables."""


def damage_advice(path: object) -> str:
    return (
        f"save what can still be read with `sqlite3 {path} .recover | sqlite3 recovered.db` "
        "and go on with --db recovered.db"
    )


class DamagedDatabase(NotASessionsDatabase):
    """The sessions database's pages are damaged (`PRAGMA quick_check` or an SQLite error said
    so); found before anything more was written."""

    def __init__(self, path: object, problem: str) -> None:
        problem = " ".join(problem.replace("*** in database main ***", "").split())
        self.path, self.problem = str(path), problem
        super().__init__(
            f"{path} is damaged ({problem}); it was left untouched: " + damage_advice(path)
        )


class SchemaTooNew(StorageError):
    """The database was written by a newer crmarena-tui than this one."""

    def __init__(self, path: str, found: int, known: int) -> None:
        self.path = path
        self.found = found
        self.known = known
        super().__init__(
            f"{path} has schema version {found}, but this crmarena-tui understands schema versions "
            f"up to {known}. It was written by a newer crmarena-tui: upgrade crmarena-tui, or use "
            f"another database with --db. The file was left untouched."
        )


class NotFound(StorageError, LookupError):
    """No row with that id."""
