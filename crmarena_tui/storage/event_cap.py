"""The cap on a stored event's text (issue 28): a model reply of megabytes is stored cut short.

Every text of an event's payload (at any depth: a reply, a thought, a tool call's arguments) is
kept whole up to `limit` characters; a longer one keeps its first `limit` characters followed by
a marker saying how long it was, and the payload records each cut field's full length under
`truncated` (field path -> characters, e.g. `{"reply": 5000000}`), which the viewer shows. The
limit is the `event_text_limit` setting (default 1,000,000 characters, about 1 MB of text).

`cap_json` works on a payload already encoded as JSON, as the Store and the bulk writer hold it:
a payload no longer than the limit in all cannot hold a text longer than it, so the common case
costs one `len`.

An `observation` event is never cut (`WHOLE_KINDS`): it holds a query's records, which the scratch
pane's tables (`r1`, `r2`, ...) and the pick list read back after a resume or a crash. A result of
5,377 rows (about 1.5 MB of JSON) was cut, and its table was lost when the app was killed.
"""

from __future__ import annotations

import json
from typing import Any

from crmarena_tui.storage.convert import dumps

DEFAULT_LIMIT = 1_000_000  # characters of one text of one event
TRUNCATED = "truncated"  # the payload key listing the cut fields and their full lengths
WHOLE_KINDS = frozenset({"observation"})  # events stored whole at any length (see the module)


def marker(full: int) -> str:
    """What follows the kept part of a cut text."""
    return f"\n[… truncated: {full:,} characters in all]"


def text_limit() -> int:
    """The limit from the `event_text_limit` setting (a positive whole number of characters;
    anything else, or no setting, is the default), read without loading the settings, by the
    rule `load_settings` reads it by (settings/setting_rules.py)."""
    from crmarena_tui.settings.config_file import quick_setting

    return int(quick_setting("event_text_limit", DEFAULT_LIMIT))


def cap_json(body: str, limit: int, kind: str = "") -> str:
    """`body` (a JSON object) with every text over `limit` characters cut (see the module); an
    event of one of the `WHOLE_KINDS` is returned whole."""
    if len(body) <= limit or kind in WHOLE_KINDS:
        return body
    payload = json.loads(body)
    cut: dict[str, int] = {}
    capped = _cap(payload, limit, "", cut)
    if not cut or not isinstance(capped, dict):
        return body
    capped[TRUNCATED] = {**(capped.get(TRUNCATED) or {}), **cut}
    return dumps(capped)


def _cap(value: Any, limit: int, path: str, cut: dict[str, int]) -> Any:
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        cut[path] = len(value)
        return value[:limit] + marker(len(value))
    if isinstance(value, dict):
        return {k: _cap(v, limit, f"{path}.{k}" if path else str(k), cut) for k, v in value.items()}
    if isinstance(value, list):
        return [_cap(v, limit, f"{path}.{i}", cut) for i, v in enumerate(value)]
    return value
