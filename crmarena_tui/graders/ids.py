"""Salesforce record Ids found in free text.

An Id is 15 characters (case-sensitive) or 18 (the 15 plus a three-character case checksum). Its
first three characters are the object's key prefix (005 User, ka0 Knowledge__kav, ...).
"""

from __future__ import annotations

import re

from crmarena_tui.orgs.salesforce_ids import checksum

_ID_RE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]{18}|[A-Za-z0-9]{15})(?![A-Za-z0-9])")
_PREFIX_SHAPE = re.compile(r"[0-9][0-9A-Za-z]{2}|[a-z][0-9][0-9A-Za-z]|k[aA][0-9A-Za-z]")

KNOWN_PREFIXES = frozenset(
    {
        "001",
        "003",
        "005",
        "006",
        "00Q",
        "00T",
        "00U",
        "00D",
        "00G",
        "00e",
        "01s",
        "01t",
        "02i",
        "0Q0",
        "0QL",
        "0TT",
        "0ZS",
        "0Zq",
        "0Mw",
        "0MX",
        "0LE",
        "0PS",
        "500",
        "570",
        "800",
        "801",
        "802",
        "02s",
        "ka0",
        "kA0",
        "a00",
        "a01",
        "a02",
        "a03",
        "a04",
        "a05",
        "a0x",
    }
)

# The object whose Id each task type asks for, as key-prefix starts (docs/ARCHITECTURE.md, "Benchmark rules the code reproduces").
_AGENT = ("005",)
EXPECTED_PREFIXES: dict[str, tuple[str, ...]] = {
    "handle_time": _AGENT,
    "transfer_count": _AGENT,
    "case_routing": _AGENT,
    "sales_amount_understanding": _AGENT,
    "sales_cycle_understanding": _AGENT,
    "conversion_rate_comprehension": _AGENT,
    "lead_routing": _AGENT,
    "top_issue_identification": ("a0",),
    "policy_violation_identification": ("ka",),
    "quote_approval": ("ka",),
    "invalid_config": ("ka",),
    "named_entity_disambiguation": ("01t",),
    "activity_priority": ("00T",),
}


def is_plausible_id(token: str) -> bool:
    """True when `token` looks like a Salesforce Id rather than a word or a number."""
    if len(token) not in (15, 18) or not token.isascii() or not token.isalnum():
        return False
    if token.isdigit() or token.isalpha():
        return False
    prefix = token[:3]
    if prefix in KNOWN_PREFIXES:
        return True
    if not _PREFIX_SHAPE.fullmatch(prefix):
        return False
    # An unknown prefix of the right shape: demand a valid checksum on 18-character tokens.
    return len(token) == 15 or token[15:] == checksum(token[:15])


def find_ids(text: str) -> list[str]:
    """Plausible Ids in order of first appearance, without repeats.

    A 15-character Id is dropped when the text also gives its 18-character form.
    """
    seen: dict[str, None] = {}
    for match in _ID_RE.finditer(text):
        token = match.group(0)
        if is_plausible_id(token):
            seen.setdefault(token, None)
    long_heads = {token[:15] for token in seen if len(token) == 18}
    return [token for token in seen if len(token) == 18 or token not in long_heads]
