"""Answer extraction with an LLM judge, as upstream does it, and the parsing of its reply.

The judge is asked for a JSON list of the entities of the task's kind. Its reply is read as JSON;
when that fails, the comma-separated items between the first `[` and the next `]` are taken, or
else the whole reply as one item (upstream's fallbacks). Items are stripped of white space and
surrounding quotes; JSON null reads as "None".
"""

from __future__ import annotations

import json
from typing import Any

# The version of the workbench judge prompts (`extraction_prompt` here, `privacy_prompt` in
# privacy_rejection), stored with each judged grade: change it when their words change.
WORKBENCH_INSTRUCTIONS = "workbench-1"

_ENTITY: dict[str, tuple[str, str, str]] = {
    # kind: (what to extract, extra rule, example reply)
    "id": (
        "Salesforce record Ids",
        "Copy each Id exactly as written: 15 or 18 letters and digits, case-sensitive.",
        '["005XX000001AbCdEAF"]',
    ),
    "ids": (
        "Salesforce record Ids",
        "Copy each Id exactly as written: 15 or 18 letters and digits, case-sensitive. "
        "Include every Id the answer gives as part of its answer, and no others.",
        '["00TXX000003AbCdEAF", "00TXX000004GhIjKAB"]',
    ),
    "state": (
        "US states",
        "Write each state as its two-letter postal code in capitals.",
        '["CA"]',
    ),
    "month": (
        "months",
        "Write each month as its full English name with a capital first letter.",
        '["June"]',
    ),
    "bant": (
        "BANT factors that the answer says are not met",
        "Use only the words Budget, Authority, Need and Timeline.",
        '["Budget", "Timeline"]',
    ),
    "stage": (
        "opportunity stage",
        "Give exactly one stage, spelled as one of Qualification, Discovery, Quote, "
        "Negotiation, Closed.",
        '["Negotiation"]',
    ),
}


def extraction_prompt(kind: str, answer: str, question: str = "") -> str:
    """The prompt asking a judge for the answer's entities of `kind` as a JSON list."""
    entity, rule, example = _ENTITY.get(kind, _ENTITY["id"])
    asked = f"The question was:\n{question.strip()}\n\n" if question.strip() else ""
    return (
        "You are reading the final answer that an assistant gave to a question about CRM data. "
        f"Your job is to pull out the {entity} that the answer puts forward as its answer.\n\n"
        f"{asked}"
        "The answer to read is between the markers:\n"
        f"<<<ANSWER\n{answer}\nANSWER>>>\n\n"
        f"Reply with a JSON list of strings and nothing else, for example {example}. {rule} "
        "Leave out anything the answer mentions only as background or rules out. "
        'If the answer gives none, or says that there is none, reply ["None"].'
    )


def _clean(item: str) -> str:
    return item.strip().strip('"').strip("'").strip()


def _as_items(value: Any) -> list[str]:
    if isinstance(value, list):
        return ["None" if v is None else _clean(str(v)) for v in value]
    if value is None:
        return ["None"]
    return [_clean(str(value))]


def parse_judge_list(reply: str) -> list[str]:
    """The judge's reply as a list of items (see the module notes)."""
    text = (reply or "").strip()
    try:
        value = json.loads(text)
    except ValueError:
        pass
    else:
        if not isinstance(value, dict):
            return _as_items(value)
    opening = text.find("[")
    closing = text.find("]", opening + 1) if opening >= 0 else -1
    if closing > opening >= 0:
        inner = text[opening + 1 : closing]
        return [item for item in (_clean(part) for part in inner.split(",")) if item]
    return [text]
