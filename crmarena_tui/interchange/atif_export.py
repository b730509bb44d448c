"""`export --format atif --out DIR`: one ATIF trajectory file per session (`atif_write.py`),
named `session-<id>.json` (ids zero-padded, so the files sort in session order and a fork's
parent is imported before it).

A new folder is written aside (`.DIR.<random>.part`) and renamed into place, so a failed export
leaves no half folder; into a folder that exists (`--force`) the files are moved one by one,
each replacing its namesake.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from crmarena_tui.interchange.atif_write import atif_document
from crmarena_tui.interchange.trajectory import dumps
from crmarena_tui.storage.interchange_rows import session_bundles

if TYPE_CHECKING:
    from crmarena_tui.storage.models import ListedSession, Participant
    from crmarena_tui.storage.store import Store


def file_name(session_id: int) -> str:
    return f"session-{session_id:07d}.json"


def export_atif(
    store: Store,
    out: Path,
    *,
    keep: Callable[[ListedSession, Participant], bool] | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write the ATIF trajectory of every session `keep` keeps into folder `out`; the count."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent))
    count = 0
    try:
        for bundle in session_bundles(store, keep, progress=progress):
            text = dumps(atif_document(bundle))  # (compact UTF-8 JSON, by orjson)
            (part / file_name(bundle.session["id"])).write_bytes(text)
            count += 1
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(part, 0o777 & ~mask)  # (as the user's other new folders, not mkdtemp's 0700)
        if out.exists():
            for made in sorted(part.iterdir()):
                os.replace(made, out / made.name)
            part.rmdir()
        else:
            os.replace(part, out)
    except BaseException:
        shutil.rmtree(part, ignore_errors=True)
        raise
    return count
