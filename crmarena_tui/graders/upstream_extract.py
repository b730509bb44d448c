"""exact_match extraction under the `upstream` protocol: what upstream's evaluator effectively does.

Facts reproduced (CRMARENA_PRO.md section 8), each a worked example in
`tests/graders/test_graders_upstream.py`:

- The judge is instructed (system message) to return `{"extracted_answers": [...]}` and, when the
  reply gives several entities, all of them; the user message is the agent's answer alone. The
  instructions and worked examples are the project's words teaching what upstream's teach (per
  kind: an entity in a sentence, a bare one, several, and "None" when the reply gives none; for
  states, names written as codes; for BANT factors, only the unmet ones, also when a sentence
  only implies one; one stage).
- A reply that is not that JSON object is taken whole, stripped, as the one extracted item; an
  empty reply or `none` (any case) becomes `["None"]`. Upstream has bracket-parsing heuristics for
  this case, but they never run (they raise before doing anything), so they are not reproduced.
- Items are compared as returned: not stripped, not turned into text (`[5]` is not `["5"]`).
- Only item 0 is looked at for null: a null first item makes the whole list `["None"]`.
- Where upstream's evaluation raised (an empty extracted list, a non-list value, items that
  cannot be sorted together, an empty ground truth), its batch runner recorded reward 0: so does
  this module, with the reason in `UpstreamReading.error`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

# The version of the paraphrased judge instructions (these and privacy_rejection's
# UPSTREAM_PRIVACY_INSTRUCTIONS), stored with each judged grade: change it when their words change.
PARAPHRASED_INSTRUCTIONS = "paraphrased-1"
_SHAPE = '{"extracted_answers": [...]}'
_BASE = (
    "You will be shown the final reply an AI agent gave to a user of a CRM system. Pull out the "
    "{entities} that the reply gives.\n\n"
    "Rules:\n"
    "- Take only {what}.\n"
    "- When the reply gives several {entities}, take every one of them.\n"
    '- When the reply gives no {entities}, the answer is "None".\n'
    "{extra}"
    "- Write no explanation and no other text.\n"
    "- Reply with JSON that json.loads() can read, shaped as {shape}.\n\n"
    "Examples:\n{examples}"
)
_NONE_EXAMPLE = (
    'Reply: "Nothing in the records matches what you asked for."\n'
    'Output: {"extracted_answers": ["None"]}'
)
_KINDS: dict[str, tuple[str, str, str, list[tuple[str, str]]]] = {
    # kind: (entities, what to take, extra rules, examples as (reply, extracted list))
    "id": (
        "record Ids",
        "Salesforce record Ids (of cases, accounts, users, articles and so on)",
        "",
        [
            ("That request is tracked as case 500Hs00001XyZaBIAV.", '["500Hs00001XyZaBIAV"]'),
            ("005Hs00000QrStUIA1", '["005Hs00000QrStUIA1"]'),
        ],
    ),
    "month": (
        "months",
        "month names (for example March, October)",
        "",
        [
            ("Complaints peaked in October.", '["October"]'),
            ("Both February and August stand out.", '["February", "August"]'),
        ],
    ),
    "state": (
        "US states",
        "US states (for example WA, GA)",
        "- Write each state as its two-letter code (for example WA, GA).\n",
        [
            ("Cases closed fastest in Oregon and in Georgia.", '["OR", "GA"]'),
            ("MI", '["MI"]'),
            ("The quickest regions are AZ and OH.", '["AZ", "OH"]'),
        ],
    ),
    "bant": (
        "BANT factors",
        "BANT factors, that is Budget, Authority, Need and Timeline",
        "- When the reply names factors that are met and factors that are not, take only those "
        "that are not met.\n",
        [
            ("Need and Timeline.", '["Need", "Timeline"]'),
            (
                "Budget and Need check out, but the contact cannot sign off on the purchase.",
                '["Authority"]',
            ),
            (
                "Noted. The lead is probably not fully qualified, since the contact has no say "
                "over the final purchase decision.",
                '["Authority"]',
            ),
        ],
    ),
    "stage": (
        "opportunity stages",
        "opportunity stages, that is Qualification, Discovery, Quote, Negotiation or Closed",
        "- Take the stage the agent says the opportunity belongs in; take exactly one.\n",
        [("It is past discovery already; set it to 'Quote'.", '["Quote"]')],
    ),
}


def upstream_instructions(kind: str) -> str:
    """The judge's system message for answers of `kind` (`ids` reads like `id`)."""
    entities, what, extra, examples = _KINDS.get(kind, _KINDS["id"])
    shown = [
        f'Reply: "{reply}"\nOutput: {{"extracted_answers": {items}}}' for reply, items in examples
    ]
    return _BASE.format(
        entities=entities,
        what=what,
        extra=extra,
        examples="\n\n".join([*shown, _NONE_EXAMPLE]),
        shape=_SHAPE,
    )


@dataclass(frozen=True, slots=True)
class UpstreamReading:
    """What upstream would have compared (`items`), or why its evaluation raised (`error`)."""

    items: list[object] | None
    error: str | None = None

    def shown(self) -> list[str]:
        """The items as text for display and storage (non-text items as JSON)."""
        return [i if isinstance(i, str) else json.dumps(i) for i in self.items or []]


def read_upstream_reply(reply: str | None) -> UpstreamReading:
    """The extracted items the way upstream read the judge's reply (see the module notes)."""
    try:
        value = json.loads(reply or "")["extracted_answers"]
    except (ValueError, TypeError, KeyError, IndexError):
        raw = (reply or "").strip()
        value = [raw] if raw and raw.lower() != "none" else ["None"]
    try:
        first = value[0]
    except (IndexError, KeyError, TypeError):
        if value == [] or value == "":
            return UpstreamReading(None, "the judge extracted an empty list")
        return UpstreamReading(None, f"the judge's extracted_answers is not a list: {value!r}")
    if first is None:
        value = ["None"]
    try:
        items = sorted(value)
    except TypeError:
        return UpstreamReading(None, f"extracted items of mixed types cannot be sorted: {value!r}")
    return UpstreamReading(list(items))


def upstream_gold(answer: list[str | None]) -> list[str | None] | None:
    """The ground truth as upstream compares it: `["None"]` when item 0 is null; None when the
    task has no ground truth at all (upstream's evaluation raised)."""
    if not answer:
        return None
    return ["None"] if answer[0] is None else list(answer)


def upstream_equal(items: list[object], gold: list[str | None]) -> bool:
    """Sorted items equal to the sorted ground truth; a ground truth that cannot be sorted (a null
    after item 0) never matches, as upstream's comparison raised and was caught."""
    try:
        return sorted(items) == sorted(gold)  # type: ignore[type-var]
    except TypeError:
        return False
