"""Salesforce-style record Ids: 15 case-sensitive characters plus the 3-character case-safety suffix.

An Id is `<key prefix (3)><pod (2)><counter (10, base 62)>` and then the suffix Salesforce computes
from the 15-character form: the Id is cut into three chunks of five characters; in each chunk, bit
`i` is set when character `i` is an upper-case letter A-Z; the 5-bit number picks one character of
`A-Z0-5`. The key prefix tells an Id's object (005 User, 500 Case, ...).
"""

from __future__ import annotations

from crmarena_tui.orgs.salesforce_ids import to_18

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
COUNTER_WIDTH = 10
COUNTER_START = 3 * 62**6  # "0000300000": looks like a young org's counters


def base62(n: int, width: int) -> str:
    chars = []
    while n:
        n, r = divmod(n, 62)
        chars.append(BASE62[r])
    text = "".join(reversed(chars)) or "0"
    if len(text) > width:
        raise ValueError(f"{n} does not fit in {width} base-62 digits")
    return text.rjust(width, "0")


class IdFactory:
    """Hands out Ids per key prefix, in order, for one org (`pod` tells orgs apart)."""

    def __init__(self, pod: str) -> None:
        if len(pod) != 2 or any(c not in BASE62 for c in pod):
            raise ValueError(f"pod must be two base-62 characters, got {pod!r}")
        self.pod = pod
        self._next: dict[str, int] = {}

    def new(self, key_prefix: str) -> str:
        n = self._next.get(key_prefix, COUNTER_START)
        # A stride of 37 makes neighbouring Ids differ in more than their last character.
        self._next[key_prefix] = n + 37
        return to_18(key_prefix + self.pod + base62(n, COUNTER_WIDTH))
