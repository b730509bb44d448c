"""The text of a search across trajectories, parsed: words and phrases to find in an event's text,
and field filters (`kind:error`, `object:Case`, `reward:0`, `trial:2`...). Pure: no database.

Syntax: terms separated by spaces; `"a phrase"` keeps its spaces; `field:value` is a filter
(`field:"a value"` too); a filter's value may list alternatives with commas (`kind:query,search`).
Every term and filter must hold. A word or phrase matches the event's text wherever it occurs,
case folded (`case` finds `CaseNumber`); it needs at least 3 characters (the index is of
trigrams). `@NAME` alone runs the search saved as NAME (storage/search.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from crmarena_tui.storage.models import ACTORS, EVENT_KINDS

EVENT_FILTERS = ("kind", "actor", "error", "object")  # one event's own fields
SESSION_FILTERS = ("participant", "type", "reward", "trial")  # the session's
FILTERS = EVENT_FILTERS + SESSION_FILTERS
MIN_TERM = 3


class SearchSyntaxError(ValueError):
    """A search that cannot be run; the message is one line for the user."""


class NoSavedSearch(SearchSyntaxError):
    """`@NAME` names no saved search (a search not found, where the others are not written
    right)."""


@dataclass(frozen=True)
class SearchQuery:
    """Words and phrases (`terms`) and filters (`filters[field]`: each a tuple of alternatives;
    a field named twice must satisfy both)."""

    text: str = ""
    terms: tuple[str, ...] = ()
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    saved: str | None = None  # `@NAME`: the saved search to run instead
    rewards: tuple[tuple[float | None, ...], ...] = field(default=(), compare=False)

    def of(self, name: str) -> list[tuple[str, ...]]:
        return [values for key, values in self.filters if key == name]

    @property
    def empty(self) -> bool:
        return not self.terms and not self.filters and self.saved is None


def _split(text: str) -> list[str]:
    """Space-separated pieces; double quotes keep spaces (`""` inside quotes is one quote)."""
    pieces: list[str] = []
    current: list[str] = []
    quoted = in_piece = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            if quoted and text[i + 1 : i + 2] == '"':
                current.append('"')
                i += 2
                continue
            quoted, in_piece = not quoted, True
        elif ch.isspace() and not quoted:
            if in_piece:
                pieces.append("".join(current))
            current, in_piece = [], False
        else:
            current.append(ch)
            in_piece = True
        i += 1
    if quoted:
        raise SearchSyntaxError('a quote is not closed: add the closing "')
    if in_piece:
        pieces.append("".join(current))
    return pieces


def _reward(value: str) -> float | None:
    if value.lower() in ("none", "ungraded"):
        return None
    try:
        reward = float(value)
    except ValueError:
        raise SearchSyntaxError(
            f"reward:{value} is not a number (use reward:0, reward:1 or reward:none)"
        ) from None
    if not math.isfinite(reward):
        raise SearchSyntaxError(f"reward:{value} is not a number")
    return reward


def parse(text: str) -> SearchQuery:
    """`text` as a search; raises SearchSyntaxError with a one-line message."""
    stripped = text.strip()
    if stripped.startswith("@"):
        name = stripped[1:].strip()
        if not name or any(ch.isspace() for ch in name):
            raise SearchSyntaxError("@NAME runs a saved search: give just its name")
        return SearchQuery(text=stripped, saved=name)
    # a filter's name is read before the quotes are: `kind:"a b"` and `"kind:x"` (a phrase)
    terms: list[str] = []
    filters: list[tuple[str, tuple[str, ...]]] = []
    rewards: list[tuple[float | None, ...]] = []
    for raw in _raw_pieces(stripped):
        name, sep, rest = raw.partition(":")
        if sep and not raw.startswith('"') and name.lower() in FILTERS:
            key = name.lower()
            values = tuple(v for v in (p.strip() for p in " ".join(_split(rest)).split(",")) if v)
            if not values:
                raise SearchSyntaxError(f"{key}: needs a value ({key}:VALUE)")
            filters.append((key, _checked(key, values)))
            if key == "reward":
                rewards.append(tuple(_reward(v) for v in values))
            continue
        for term in _split(raw):
            if len(term) < MIN_TERM:
                raise SearchSyntaxError(
                    f"{term!r} is too short to search for: a word needs at least {MIN_TERM}"
                    " characters"
                )
            terms.append(term)
    return SearchQuery(
        text=stripped, terms=tuple(terms), filters=tuple(filters), rewards=tuple(rewards)
    )


def _raw_pieces(text: str) -> list[str]:
    """Pieces split on spaces outside quotes, quotes kept (for `_split` to read again)."""
    pieces: list[str] = []
    start, quoted = None, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        if ch.isspace() and not quoted:
            if start is not None:
                pieces.append(text[start:i])
                start = None
        elif start is None:
            start = i
    if quoted:
        raise SearchSyntaxError('a quote is not closed: add the closing "')
    if start is not None:
        pieces.append(text[start:])
    return pieces


def _checked(key: str, values: tuple[str, ...]) -> tuple[str, ...]:
    if key == "kind":
        unknown = [v for v in values if v.lower() not in EVENT_KINDS]
        if unknown:
            raise SearchSyntaxError(
                f"kind:{unknown[0]} is not an event kind (one of {', '.join(sorted(EVENT_KINDS))})"
            )
        return tuple(v.lower() for v in values)
    if key == "actor":
        unknown = [v for v in values if v.lower() not in ACTORS]
        if unknown:
            raise SearchSyntaxError(
                f"actor:{unknown[0]} is not an actor (one of {', '.join(sorted(ACTORS))})"
            )
        return tuple(v.lower() for v in values)
    if key == "trial":
        bad = [v for v in values if not v.isdigit() or int(v) < 1]
        if bad:
            raise SearchSyntaxError(f"trial:{bad[0]} is not a trial number (1, 2, ...)")
        return tuple(str(int(v)) for v in values)
    if key in ("error", "object"):
        bad = [v for v in values if any(ch.isspace() or ch in "<>" for ch in v)]
        if bad:
            raise SearchSyntaxError(f"{key}:{bad[0]} must be one word")
        return tuple(v.lower() for v in values)
    return values
