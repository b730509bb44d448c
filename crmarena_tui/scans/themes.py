"""Themes: the reasons scanners gave (suggestions') and the notes people wrote (annotations') about
a set of sessions, grouped by a model pass that names the themes and assigns each text to one
(stored by storage/themes.py, under a scan of kind `themes`).

The texts go to the model numbered, `BATCH` at a time; from the second batch on, the themes named
so far are given to it to reuse. A reply must put every text of its batch in exactly one theme;
one that does not is asked again (`retries` times), then the pass stops with what was wrong.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import UserError
from crmarena_tui.scans.prompts import BadReply, reply_object
from crmarena_tui.storage.themes import Member, Theme

if TYPE_CHECKING:
    from crmarena_tui.llm.client import LLMClient
    from crmarena_tui.storage.store import Store

BATCH = 150

THEMES_SYSTEM = """\
Below are numbered reasons and notes from failure analyses of agent sessions on CRM tasks. \
Group them into themes: give each theme a short name (a few words) and a one-sentence \
description, and put every item in exactly one theme.{known}
Reply with one JSON object and nothing else:
{{"themes": [{{"name": "<short name>", "description": "<one sentence>", "items": [<numbers>]}}]}}"""
KNOWN = "\nReuse these themes where an item fits one (same name), add new ones otherwise:\n{listed}"
THEMES_VERSION = f"themes-1-{hashlib.sha256(THEMES_SYSTEM.encode()).hexdigest()[:8]}"


def collect(
    store: Store, sessions: Sequence[int], scan_ids: Sequence[int] | None = None
) -> list[Member]:
    """The reasons (of the scans `scan_ids`, else of every labels or rubric scan) and the notes
    (annotations' notes, and labels' notes) about `sessions`, by session and step."""
    wanted = set(sessions)
    members: list[Member] = []
    scans = set(scan_ids) if scan_ids is not None else None
    for sid, scan_id, session_id, seq, label, reason in store.read(
        "SELECT g.id, g.scan_id, g.session_id, g.event_seq, g.label, g.reason FROM suggestions g"
        " JOIN scans s ON s.id = g.scan_id WHERE s.kind != 'themes' AND g.reason != ''"
        " ORDER BY g.session_id, g.event_seq, g.id"
    ):
        if session_id in wanted and (scans is None or scan_id in scans):
            text = f"{label}: {reason}" if label else str(reason)
            members.append(Member("suggestion", int(sid), int(session_id), seq, text))
    for aid, session_id, seq, label, note in store.read(
        "SELECT id, session_id, event_seq, label, note FROM annotations WHERE note != ''"
        " ORDER BY session_id, event_seq, id"
    ):
        if session_id in wanted:
            text = f"{label}: {note}" if label else str(note)
            members.append(Member("note", int(aid), int(session_id), seq, text))
    return members


@dataclass
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    seconds: float = 0.0


def _messages(batch: Sequence[Member], known: dict[str, str]) -> list[dict[str, Any]]:
    listed = "\n".join(f"- {n}: {d}" for n, d in known.items())
    system = THEMES_SYSTEM.format(known=KNOWN.format(listed=listed) if known else "")
    items = "\n".join(f"{i}. {' '.join(m.text.split())}" for i, m in enumerate(batch, start=1))
    return [{"role": "system", "content": system}, {"role": "user", "content": items}]


def _read(text: str, size: int) -> list[tuple[str, str, list[int]]]:
    found = reply_object(text).get("themes")
    if not isinstance(found, list) or not found:
        raise BadReply('the reply has no "themes" list')
    seen: set[int] = set()
    themes = []
    for theme in found:
        if not isinstance(theme, dict) or not str(theme.get("name", "")).strip():
            raise BadReply("each theme is an object with a name, a description and items")
        items = theme.get("items")
        if not isinstance(items, list) or not all(isinstance(i, int) for i in items):
            raise BadReply(f"theme {theme['name']!r} has no list of item numbers")
        mine = [i for i in items if 1 <= i <= size and i not in seen]
        seen.update(mine)
        themes.append(
            (" ".join(str(theme["name"]).split()), str(theme.get("description", "")), mine)
        )
    missing = sorted(set(range(1, size + 1)) - seen)
    if missing:
        raise BadReply(f"items {missing[:10]} are in no theme: put every item in one")
    return themes


def group(
    client: LLMClient, members: Sequence[Member], *, retries: int = 2, batch: int = BATCH
) -> tuple[list[Theme], Usage]:
    """The themes of `members` (module docstring) and what the model calls cost."""
    usage = Usage()
    known: dict[str, str] = {}
    held: dict[str, list[Member]] = {}
    started = time.perf_counter()
    for start in range(0, len(members), batch):
        part = members[start : start + batch]
        messages = _messages(part, known)
        for attempt in range(retries + 1):
            reply = client.complete(messages)
            usage.tokens_in += reply.prompt_tokens
            usage.tokens_out += reply.completion_tokens
            if reply.cost is not None:
                usage.cost = (usage.cost or 0.0) + reply.cost
            try:
                found = _read(reply.text, len(part))
            except BadReply as exc:
                if attempt == retries:
                    raise UserError(f"the themes pass failed: the model's reply: {exc}") from None
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": f"{exc}. Reply again with the JSON object only."},
                ]
                continue
            for name, description, items in found:
                known.setdefault(name, description)
                held.setdefault(name, []).extend(part[i - 1] for i in items)
            break
    usage.seconds = time.perf_counter() - started
    themes = [Theme(n, known[n], tuple(ms)) for n, ms in held.items() if ms]
    return themes, usage
