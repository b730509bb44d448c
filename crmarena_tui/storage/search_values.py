"""The values a search's filters accept, checked and folded as the index stores them (an event
kind or actor of the vocabulary, an end `search ended:` names, a trial number, one word for an
error code or an object), and the error a search that cannot be run raises
(storage/search_query.py parses the rest)."""

from __future__ import annotations

from crmarena_tui.storage.models import ACTORS, EVENT_KINDS


class SearchSyntaxError(ValueError):
    """A search that cannot be run; the message is one line for the user."""


PROMPT = "prompt"  # `kind:prompt`: a run's system prompt (a `system` event of its own)
KINDS = EVENT_KINDS | {PROMPT}
ENDINGS = (  # `ended:` (storage/end_reason.end_kind)
    "submit",
    "max-turns",
    "query-error",
    "invalid-action",
    "user-stop",
    "api-error",
    "run-error",
    "taken-over",
    "infrastructure",
    "in-progress",
    "abandoned",
    "other",
)


def checked(key: str, values: tuple[str, ...]) -> tuple[str, ...]:
    """A filter's values checked (SearchSyntaxError naming the first it refuses) and folded."""
    if key == "kind":
        unknown = [v for v in values if v.lower() not in KINDS]
        if unknown:
            raise SearchSyntaxError(
                f"kind:{unknown[0]} is not an event kind (one of {', '.join(sorted(KINDS))})"
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
    if key == "ended":
        unknown = [v for v in values if v.lower() not in ENDINGS]
        if unknown:
            raise SearchSyntaxError(
                f"ended:{unknown[0]} is not an end (one of {', '.join(ENDINGS)})"
            )
        return tuple(v.lower() for v in values)
    if key == "split":
        return tuple(v.lower().replace(" ", "-") for v in values)
    if key in ("error", "object"):
        bad = [v for v in values if any(ch.isspace() or ch in "<>" for ch in v)]
        if bad:
            raise SearchSyntaxError(f"{key}:{bad[0]} must be one word")
        return tuple(v.lower() for v in values)
    return values
