"""What a command prints reaches the terminal without the control codes its data may hold.

Names and texts come from files a user imports (result files, task files, study files): an
escape sequence in them would reach the terminal raw through `print` and Rich (Rich keeps ESC in
a table cell) and could clear the screen, move the cursor, set the window title or write the
clipboard (OSC 52). `safe_text` removes every control character and escape sequence but the
colour codes (SGR, `ESC [ ... m`) Rich writes itself, plus tabs and newlines; `SafeStream` applies
it to everything a command writes to stdout (`cli.main`, for every command but those that run the
app or speak a protocol on stdout).

The app draws through Textual, which writes a cell's text to the terminal as it is (ESC
included): `pictured` shows each control character as a visible sign instead (ESC as `␛`), and
`widgets/control_pictures.py` applies it to every line the app draws.

Standard library only: the command line imports this before any command.
"""

from __future__ import annotations

import re
from typing import Any, TextIO

# An SGR colour code (kept), any other escape sequence (CSI, OSC ... BEL/ST, a two-byte ESC x),
# and any other control character: C0 but tab and newline, DEL, C1.
_CONTROL = re.compile(
    r"(\x1b\[[0-9;]*m)"
    r"|\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u009b]"
)


# One control character: C0 (tab and newline included: a drawn line holds neither), DEL, C1.
CONTROL_CHAR = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode's control pictures: ␀ ... ␛ ... ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\u241b" + chr(code - 0x40)  # a C1 code as the ESC pair it stands for: CSI as ␛[


def pictured(text: str) -> str:
    """`text` with every control character shown as a visible sign (`\\x1b` as `␛`, `\\x9b` as
    `␛[`), so that none reaches the terminal while what it was stays readable."""
    return CONTROL_CHAR.sub(_picture, text)


def _keep_colour(match: re.Match[str]) -> str:
    return match.group(1) or ""


def safe_text(text: str) -> str:
    """`text` without control characters or escape sequences, colour codes kept."""
    if text.isprintable():
        return text
    return _CONTROL.sub(_keep_colour, text)


def plain_text(text: str) -> str:
    """`text` without any control character or escape sequence, colour codes too (for a line
    built from data: an error message)."""
    return _CONTROL.sub("", text) if not text.isprintable() else text


class SafeStream:
    """A text stream that writes `safe_text` of what it is given to `stream`; everything else
    (isatty, fileno, encoding, flush) is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(safe_text(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
