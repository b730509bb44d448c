"""Opening an SQLite file read-only (an org, a snapshot, a sessions database), in one place.

Here, beside `settings/locations.py`, because every folder that reads such a file (orgs, demo, storage,
commands) may import this one and it imports nothing of the project. A read-only open needs a
`file:` URI, and a URI's path must be quoted: unquoted, a `#` or `?` in a folder's name ends the
path there, so SQLite opens another file, read-write, and creates it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote


def readonly_uri(path: str | os.PathLike[str]) -> str:
    """The `file:` URI that opens `path` read-only, its characters quoted."""
    return f"file:{quote(str(Path(path).expanduser().resolve()))}?mode=ro"


def open_readonly(path: str | os.PathLike[str], **connect: Any) -> sqlite3.Connection:
    """A read-only connection to the SQLite file at `path`; nothing is created when it does not
    exist (connecting fails: `sqlite3.OperationalError`). `connect`: `sqlite3.connect`'s other
    arguments (`check_same_thread`, `timeout`)."""
    return sqlite3.connect(readonly_uri(path), uri=True, **connect)
