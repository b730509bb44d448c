"""What an empty list says: what matched nothing, and how to undo it (issue 36)."""

from __future__ import annotations

from rich.markup import escape


def no_match(noun: str, typed: str, *, total: int, faceted: bool | None = None) -> str:
    """The line for a filter that left none of `total` rows: "No task matches 'x y z': escape
    clears the filter" (markup); "" when nothing narrows the list (it is empty by itself).
    `faceted` None: the choices narrowed it when no text did."""
    typed = typed.strip()
    faceted = not typed if faceted is None else faceted
    if not total or not (typed or faceted):
        return ""
    if typed:
        what = f"No {noun} matches {typed!r}" + (" with these choices" if faceted else "")
        return f"{escape(what)}: escape clears the filter"
    return f"No {noun} has these choices: set one back to any"
