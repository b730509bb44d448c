"""The crash log: an exception that is not a `UserError` is a bug; its traceback goes to a new file
in the crash folder (`locations.crash_dir()`), and the terminal gets one line naming that file
(docs/ARCHITECTURE.md, "Layers"). Here, above `errors.py`, because the crash folder is a setting's
location."""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

from crmarena_tui.errors import ExitCode, one_line, redact


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
