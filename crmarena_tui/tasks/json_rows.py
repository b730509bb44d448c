"""The rows of a .json or .jsonl task file, parsed one at a time.

`json.loads` of a whole file is one call that holds the interpreter lock until the last row is
parsed: an 18 MB file of 10,000 rows holds it for about a tenth of a second, and the app cannot
draw meanwhile. Here a .json file's list is walked element by element (`raw_decode`), so other
threads get their turn between rows, and its first rows can be read from the start of the file
alone (`first_rows`: the browser lists them in its first frame). Where the text is not a plain
list, `json.loads` parses it again to say why, in the words it always used (line and column).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from crmarena_tui.tasks.rows import TaskLoadError, string_pool

WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, as the json module skips it
PREVIEW_CHARS = 1 << 19  # the start of a .json file read for its first rows


def list_items(text: str, decoder: json.JSONDecoder) -> Iterator[Any]:
    """The elements of the JSON list `text`, parsed one at a time; `ValueError` where the text is
    not a list or stops being one (a `JSONDecodeError` where an element breaks)."""
    pos = _skip(text, 0)
    if not text.startswith("[", pos):
        raise ValueError("not a JSON list")
    pos = _skip(text, pos + 1)
    if not text.startswith("]", pos):
        while True:
            item, pos = decoder.raw_decode(text, pos)
            yield item
            pos = _skip(text, pos)
            if text.startswith("]", pos):
                break
            if not text.startswith(",", pos):
                raise ValueError("expected ',' or ']'")
            pos = _skip(text, pos + 1)
    if _skip(text, pos + 1) != len(text):
        raise ValueError("more after the list")


def _skip(text: str, pos: int) -> int:
    """The position of the first character from `pos` on that is not whitespace."""
    space = WHITESPACE.match(text, pos)
    return space.end() if space else pos


def read_json_rows(path: Path) -> list[Any]:
    """The rows of a .json file (a list) or a .jsonl file (one row a line), as parsed JSON. Equal
    string values are one object (the rows of a split repeat kilobytes of text)."""
    share = string_pool()
    if path.suffix.lower() == ".jsonl":
        rows = []
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    rows.append(parse(path, line.strip(), lineno, share))
        return rows
    text = path.read_text(encoding="utf-8")
    try:
        return list(list_items(text, json.JSONDecoder(object_hook=share)))
    except (ValueError, RecursionError):  # not a plain list: json.loads says what is wrong
        pass
    data = parse(path, text, 1, share)
    if isinstance(data, dict):
        raise TaskLoadError(f"{path}: expected a JSON list of task rows, found an object")
    if not isinstance(data, list):
        raise TaskLoadError(f"{path}: expected a JSON list of task rows")
    return data


def parse(
    path: Path, text: str, first_line: int, share: Callable[[dict[str, Any]], dict[str, Any]]
) -> Any:
    """`text` (from line `first_line` of `path`) parsed; invalid JSON named by line and column."""
    try:
        return json.loads(text, object_hook=share)
    except RecursionError:
        where = f"{path}: line {first_line}" if path.suffix.lower() == ".jsonl" else str(path)
        raise TaskLoadError(
            f"{where}: nested too deeply to be a task row (lists or objects "
            "inside one another hundreds of levels deep); a task row is an object of plain values"
        ) from None
    except json.JSONDecodeError as exc:
        line = first_line + exc.lineno - 1
        raise TaskLoadError(
            f"{path}: not valid JSON at line {line} column {exc.colno}: {exc.msg}"
        ) from None


def first_rows(path: Path, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` rows from the start of a .json or .jsonl file, read without the rest of it,
    and whether they are all its rows: the rows before the first that does not parse as an
    object (the full read names what is wrong there), none when the file is not a list or cannot
    be read."""
    share = string_pool()
    try:
        with path.open(encoding="utf-8") as fh:
            if path.suffix.lower() == ".jsonl":
                lines = (line for line in fh if line.strip())
                return _objects((json.loads(line, object_hook=share) for line in lines), limit)
            start = fh.read(PREVIEW_CHARS)  # an element cut short does not parse (no closing
            whole = not fh.read(1)  # brace), so a row is never read from half its text
            rows, ended = _objects(list_items(start, json.JSONDecoder(object_hook=share)), limit)
            return rows, ended and whole
    except (OSError, UnicodeDecodeError, RecursionError):
        return [], False


def _objects(items: Iterator[Any], limit: int) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` items, up to the first that is not an object or does not parse, and whether
    they are all the items."""
    rows: list[dict[str, Any]] = []
    try:
        for item in items:
            if len(rows) == limit or not isinstance(item, dict):
                return rows, False
            rows.append(item)
    except (ValueError, RecursionError):
        return rows, False
    return rows, True
