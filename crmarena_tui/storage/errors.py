"""Errors the sessions database raises, each with a message a user can act on."""

from __future__ import annotations

from crmarena_tui.errors import UserError


class StorageError(UserError):
    """Any problem opening or writing the sessions database."""


class NotASessionsDatabase(StorageError):
    """The file is not a SQLite database, is corrupt, or holds someone else's tables."""


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
