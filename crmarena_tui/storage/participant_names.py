"""How a name a researcher types names a configuration (`report --participant`, `search
participant:`): the configuration itself, the stored participant name, or a leading part of
the configuration ending at a `/` (`gpt-4o` names `gpt-4o/react` and `gpt-4o/tool_call/aided`),
where a model's date suffix may be left out: upstream's runs name dated models
(`gpt-4o-2024-08-06/react`, `claude-3-5-sonnet-20241022/react`), and `gpt-4o` names them too.
Nothing else is a prefix: `o1` does not name `o1x/react` nor `o1-mini/react`. A name that names
no configuration at all is an error listing the closest ones (`check_named`), never a silent 0."""

from __future__ import annotations

import re
from collections.abc import Iterable

from crmarena_tui.errors import UserError

_DATE = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})(?=/|$)")


def undated(configuration: str) -> str:
    """The configuration with its model's date suffix removed (`gpt-4o-2024-08-06/react` ->
    `gpt-4o/react`); unchanged when it has none."""
    model, sep, rest = configuration.partition("/")
    return _DATE.sub("", model, count=1) + sep + rest


def names_configuration(wanted: str, configuration: str, name: str) -> bool:
    """Whether `wanted` names the configuration (with or without its date) or the participant."""
    if wanted in (configuration, name):
        return True
    head = wanted.rstrip("/")
    for candidate in dict.fromkeys((configuration, undated(configuration))):
        if candidate == head or candidate.startswith(head + "/"):
            return True
    return False


class UnknownParticipant(UserError):
    """A participant filter names no configuration of the database (exit 1, one line)."""


def check_named(wanted: Iterable[str], known: Iterable[tuple[str, str]], flag: str) -> None:
    """Raise `UnknownParticipant` for the first of `wanted` that names none of `known`
    ((configuration, participant name) pairs), listing the closest known names (difflib over
    the configurations, with and without their dates, and the names). Nothing to check when
    the database holds no configuration."""
    pairs = list(dict.fromkeys(known))
    if not pairs:
        return
    import difflib

    for name in wanted:
        if any(names_configuration(name, configuration, who) for configuration, who in pairs):
            continue
        names = list(dict.fromkeys(n for c, who in pairs for n in (c, undated(c), who) if n))
        close = difflib.get_close_matches(name, names, n=4, cutoff=0.4)
        shown = close or sorted(c for c, _ in dict.fromkeys(pairs))[:4]
        lead = "closest" if close else "known"
        raise UnknownParticipant(
            f"{flag} {name!r} names no configuration in this database; {lead}: " + ", ".join(shown)
        )
