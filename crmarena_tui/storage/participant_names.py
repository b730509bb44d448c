"""How a name a researcher types names a configuration (`report --participant`, `search
participant:`): the configuration itself, the stored participant name, or a leading part of
the configuration ending at a `/` (`gpt-4o` names `gpt-4o/react` and `gpt-4o/tool_call/aided`),
where a model's date suffix may be left out: upstream's runs name dated models
(`gpt-4o-2024-08-06/react`, `claude-3-5-sonnet-20241022/react`), and `gpt-4o` names them too.
Nothing else is a prefix: `o1` does not name `o1x/react` nor `o1-mini/react`."""

from __future__ import annotations

import re

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
