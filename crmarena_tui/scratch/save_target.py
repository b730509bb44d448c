"""Where the scratch pane may save an output, and writing it without overwriting unasked
(issue 38).

Outside a study the path typed is the user's own machine's (`~` expanded), and an existing file
is only replaced once the user said so. In a study (`play --study`, and every connection of
`serve --study`, where the person typing is a participant, not the host's owner) a save goes
only into the study's own export folder (`export_folder`: `DATA/study-exports/<study>/`) under a
plain file name: no folder, no `~`, no `..`, no hidden name, no link followed, so a participant
cannot reach the host's files, the config file or the study's database.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


class SaveRefused(ValueError):
    """The path may not be written (one line for the user)."""


def export_folder(study: str) -> Path:
    """The study's export folder (not created here)."""
    from crmarena_tui.settings.locations import data_dir

    name = _SAFE.sub("_", study).strip("._") or "study"
    return data_dir() / "study-exports" / name


def save_target(typed: str, folder: Path | None) -> Path:
    """The file `typed` names: the user's own path (`folder` None), else a plain file name inside
    `folder`. Raises `SaveRefused`."""
    typed = typed.strip()
    if not typed:
        raise SaveRefused("give a file name to save to")
    if folder is None:
        return Path(typed).expanduser()
    name = Path(typed)
    if (
        typed.startswith("~")
        or name.is_absolute()
        or len(name.parts) != 1
        or "\\" in typed
        or typed.startswith(".")
        or any(ord(c) < 32 for c in typed)
        or len(typed) > 200
    ):
        raise SaveRefused(f"in a study a scratch output is saved by file name only, into {folder}")
    return folder / name


def write_output(target: Path, text: str, *, overwrite: bool, confined: bool) -> None:
    """Write `text` to `target`: a new file unless `overwrite` (`FileExistsError` otherwise);
    `confined` (a study's folder): the folder is created, and a link at `target` is never
    followed."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    if confined:
        target.parent.mkdir(parents=True, exist_ok=True)
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(target, flags, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
        out.write(text)
