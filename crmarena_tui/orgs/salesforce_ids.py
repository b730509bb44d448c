"""Salesforce record Ids: 15 case-sensitive characters, or 18 with the case-safety suffix.

The suffix is computed from the 15-character form: the Id is cut into three chunks of five
characters; in each chunk, bit `i` is set when character `i` is an upper-case letter A-Z; the
5-bit number picks one character of `A-Z0-5`. The one definition used by the SOQL engine (Id
comparisons), the graders (Ids in answers) and the demo org generator.
"""

from __future__ import annotations

SUFFIX_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"


def checksum(id15: str) -> str:
    """The 3-character case-safety suffix of a 15-character Id."""
    if len(id15) != 15:
        raise ValueError(f"expected a 15-character Id, got {id15!r}")
    out = []
    for start in (0, 5, 10):
        bits = 0
        for i, ch in enumerate(id15[start : start + 5]):
            if "A" <= ch <= "Z":
                bits |= 1 << i
        out.append(SUFFIX_CHARS[bits])
    return "".join(out)


def to_18(record_id: str) -> str:
    """The 18-character form of a 15-character Id; any other text is returned unchanged."""
    return record_id + checksum(record_id) if len(record_id) == 15 else record_id
