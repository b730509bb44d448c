"""What the words around the entities of an answer say: which entities are put forward, which are
only context, whether the answer says "none", and whether it is no answer at all.

Used by `extract.extract_items`. Each rule is a regular expression over the answer text:

- Context (`mask_context`): entities that are runners-up ("TX, ahead of CA and NY", "followed by",
  "more than April", "the next lowest was X", "X came second"), alternatives set aside
  (", not X", "rather than X", "the other purchase, X"), or articles only looked at or complied
  with ("I checked X and Y", "complies with X", "X does not apply") are blanked out. A forward cue
  masks up to the end of its sentence (or a following "is"); a backward cue masks its clause.
- Answer cues (`ANSWER_CUE`): "Final answer", "the answer is", "Answer:", and labels such as
  "Top issue:", "Best agent:", "Highest:", "Agent Id:", "Unmet BANT factors:".
- Picks (`PICK_CUE`, `PICK_BEFORE`): "the highest ... is X", "assign it to X", "most likely
  means X", "so X", "X is the fastest": when several entities remain, the one the last pick
  names is the answer.
- None statements (`says_none`): "None", "nothing", "N/A", "no agent ...", "there is no ...",
  "no violation", "did not violate", "all BANT criteria are met", "the current stage is
  appropriate", "no change is needed".
- Nothing found (`_NOTHING_FOUND`): "I couldn't find any order that matches", "I could not
  identify a policy violation", "I was unable to locate any agent who ...", "the quote complies
  with all policies". These say that there is none: a "None" answer, not a non-answer.
- Non-answers (`is_non_answer`): "I don't know", "not sure", "gave up", "unable to determine",
  "no idea", "I could not complete the analysis", "ran out of time". A text without entities that
  says this is never read as "None" by the project's own reading (`workbench`).
"""

from __future__ import annotations

import re

_WORD_NEG = re.compile(r"(?:\bnot|n't)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[;!?\n]|\.(?=\s|$)|\s(?:is|are)\s")
_CLAUSE_START = re.compile(r"[.;!?\n,]|\b(?:but|while|whereas)\b", re.IGNORECASE)

_FORWARD = re.compile(
    r"\b(?:followed\s+by|ahead\s+of|(?:more|higher|greater|lower|less|fewer|longer|shorter|"
    r"faster|slower|quicker|better|worse|bigger|smaller)\s+than|compared\s+(?:to|with)|"
    r"vs\.?|versus|rather\s+than|instead\s+of|"
    r"(?:the\s+)?next(?:\s+\w+)?\s*(?:was|is|were|:|\()|second[\s-](?:place|best|highest|lowest|"
    r"longest|shortest|most|fewest)|runners?[\s-]?up|others?(?:\s+\w+)?\s*:|the\s+other\s+\w+|"
    r"check(?:ed|ing)|review(?:ed|ing)|look(?:ed|ing)\s+(?:at|through)|consult(?:ed|ing)|"
    r"compl(?:ied|ies|y|ying)\s+with|compliant\s+with|in\s+line\s+with|adher\w*\s+to)(?!\w)"
    r"|[,;(]\s*not\b",
    re.IGNORECASE,
)
_BACKWARD = re.compile(
    r"\b(?:(?:was|were|is|came|finished|ranked|placed)\s+(?:a\s+)?(?:close\s+)?(?:second|third|"
    r"runner[\s-]?up|next)|(?:was|were|is|are)\s+(?:normal|average|typical|respected|followed|"
    r"compliant|fine)|(?:is|are|was|were)\s+not\s+(?:relevant|applicable|violated)|"
    r"do(?:es)?\s*n[o']t\s+apply|(?:fits|fit|matches|match|corresponds\s+to|"
    r"aligns\s+with)\s+(?:the|its|this|that)\s+(?:\w+\s+)?stage)\b",
    re.IGNORECASE,
)

ANSWER_CUE = re.compile(
    r"final\s+answer|the\s+answer\s+(?:is|would\s+be)|\banswer\s*(?:\*\*)?\s*[:=\-]"
    r"|(?:^|\n|[.;]\s)[\s*_#>-]*(?:top|best|highest|lowest|longest|shortest|quickest|fastest|"
    r"slowest|most|(?:agent|product|issue|article|task|record)s?\s+ids?|unmet|failed|"
    r"mismatched|correct|selected|recommended|result)(?:[ \t]+[\w-]+){0,2}[ \t]*(?:\*\*)?[ \t]*[:=]",
    re.IGNORECASE,
)
PICK_CUE = re.compile(
    r"\b(?:highest|lowest|longest|shortest|most|fewest|least|quickest|fastest|slowest|best|top|"
    r"minimum|maximum|greatest|smallest|largest)\b[^.;\n]{0,60}?\b(?:is|goes\s+to|belongs\s+to)\b"
    r"|\b(?:assign|route|allocate|send)\w*\b[^.;\n]{0,30}?\bto\b"
    r"|\bshould\s+(?:go|be\s+(?:assigned|routed|allocated|given))\s+to\b"
    r"|\b(?:most\s+likely|probably)\s+(?:means|is|refers\s+to)\b"
    r"|\b(?:so|thus|therefore|hence)\b[,:]?",
    re.IGNORECASE,
)

# "X is the fastest": the entity just before a superlative is the pick.
PICK_BEFORE = re.compile(
    r"\s+(?:is|was)\s+(?:the|our)\s+(?:\w+\s+)?(?:highest|lowest|longest|shortest|fastest|"
    r"quickest|slowest|best|top|most|fewest|least|largest|smallest|greatest)\b",
    re.IGNORECASE,
)
_NONE = re.compile(
    r"\bnone\b|\bnothing\b|\bn/a\b|\bneither\b|there\s+(?:is|are|was|were)\s+no\b|"
    r"\bno\s+(?:\w+\s+){0,2}?(?:violations?|articles?|polic(?:y|ies)|agents?|issues?|match\w*|"
    r"records?|results?|breach\w*|states?|months?|regions?|products?|tasks?|cases?|"
    r"opportunit(?:y|ies)|leads?|quotes?|orders?|transfers?|one|factors?|criteri(?:on|a)|"
    r"change|contracts?|purchases?|sales|deals?|transcripts?|calls?|activit(?:y|ies)|rules?|"
    r"guidelines?)\b|"
    r"\b(?:not|n't)\s+(?:find|found|see|identify|locate)\s+any\b|"
    r"there\s+(?:(?:is|are|was|were)n't|(?:is|are|was|were)\s+not)\s+any\b|"
    r"(?:\bnot|n't)\s+(?:\w+\s+){0,2}?(?:conflict|break|contradict|breach)\w*\s+(?:with\s+)?any\b|"
    r"(?<!not\s)(?<!n't\s)\bfully\s+qualified\b|"
    r"\b(?:are|is|were)\s+all\s+(?:met|satisfied|confirmed|fulfilled)\b|"
    r"\b(?:not|n't|never)\s+(?:\w+\s+){0,2}?(?:violat\w*|breach\w*)|"
    r"\b(?:all|every|each)\s+(?:\w+\s+){0,3}?(?:criteri(?:a|on)|factors?)\s+(?:are|is|were|was)\s+"
    r"(?:\w+\s+)?(?:met|satisfied|fulfilled)|"
    r"\b(?:current|existing|present)\s+stage\b[^.;\n]{0,40}?\b(?:is|seems|looks|appears)\s+"
    r"(?:already\s+|to\s+be\s+)?(?:appropriate|correct|right|accurate|fine|valid)\b|"
    r"\b(?:stage|it)\b[^.;\n]{0,30}?\bis\s+(?:already\s+)?(?:appropriate|correct|accurate|"
    r"right|fine|valid)\b|"
    r"\bno\s+(?:stage\s+)?change\s+(?:is\s+)?(?:needed|required|necessary)\b",
    re.IGNORECASE,
)
_ENTITY_NOUN = (
    r"(?:violations?|articles?|polic(?:y|ies)|agents?|issues?|match\w*|records?|results?|"
    r"breach\w*|states?|months?|regions?|products?|tasks?|cases?|opportunit(?:y|ies)|leads?|"
    r"quotes?|orders?|transfers?|factors?|criteri(?:on|a)|contracts?|purchases?|sales|deals?|"
    r"transcripts?|calls?|activit(?:y|ies)|accounts?|contacts?|users?|reps?|representatives?|"
    r"employees?|entr(?:y|ies)|items?|one|such\s+\w+|rows?|rules?|guidelines?)"
)
_NOTHING_FOUND = re.compile(
    r"\b(?:could\s*n[o']?t|could\s+not|can'?t|cannot|can\s+not|unable\s+to|not\s+able\s+to|"
    r"did\s*n'?t|did\s+not|was\s*n'?t\s+able\s+to|was\s+not\s+able\s+to|failed\s+to)\s+"
    r"(?:\w+\s+)?(?:find|identify|locate|see|spot|detect|turn\s+up|come\s+across|uncover)\s+"
    r"(?:(?:any|a|an|a\s+single|one)\s+(?:[\w'-]+\s+){0,3}?" + _ENTITY_NOUN + r"\b|"
    r"any(?:thing|one)?\b(?!\s+(?:data|info|information|way|answer|clue|idea)\b))"
    r"|\b(?:compl(?:ies|y|ied)|in\s+line|consistent|compliant)\s+with\s+(?:all|every|each)\b"
    r"|\b(?:found|returned|shows?|showed|turned\s+up|yielded)\s+no(?:thing)?\b",
    re.IGNORECASE,
)
_NOT_NONE = re.compile(r"\bno\s+(?:idea|clue|answer)\b|\bnone\s+of\s+(?:the\s+)?queries\b", re.I)
_NON_ANSWER = re.compile(
    r"\b(?:do\s+not|don'?t|didn'?t|did\s+not)\s+know\b|\bnot\s+(?:sure|certain)\b|\bunsure\b|"
    r"\bno\s+(?:idea|clue)\b|\bg(?:ave|ive|iving)\s+up\b|"
    r"\b(?:unable|not\s+able|was\s*n'?t\s+able|could\s*(?:n'?t|not)|can'?t|cannot|failed)\s+"
    r"(?:to\s+)?"
    r"(?:\w+\s+)?(?:determine|tell|identify|figure|compute|calculate|work\s+out|answer|complete|"
    r"decide|say|find\s+(?:the|an|out|which|who))\b|"
    r"\bno\s+answer\b|\bunknown\b|\bcannot\s+be\s+determined\b|\binsufficient\s+(?:data|information)\b|"
    r"\bran\s+out\s+of\s+(?:time|turns|steps)\b",
    re.IGNORECASE,
)
_TRAILING_NONE = re.compile(r"(?:^|[\s.:;,!?\-\u2014(*\"'`])none[\s.!*\"'`)]*$", re.IGNORECASE)


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def mask_context(text: str) -> str:
    """`text` with runner-up and context stretches blanked (same length, so offsets hold)."""
    masked = text
    for cue in _FORWARD.finditer(text):
        end = _SENTENCE_END.search(text, cue.end())
        masked = _blank(masked, cue.start(), end.start() if end else len(text))
    for cue in _BACKWARD.finditer(text):
        if _WORD_NEG.search(text[max(0, cue.start() - 20) : cue.start()]):
            continue  # "do not fit the stage" is the answer's own reason, not context
        starts = [m.end() for m in _CLAUSE_START.finditer(text, 0, cue.start())]
        masked = _blank(masked, starts[-1] if starts else 0, cue.end())
    return masked


def says_none(text: str) -> bool:
    """True when the text states that there is no answer entity ("None", "no agent ..."), outside
    any non-answer wording ("no idea", "I cannot identify ...")."""
    if _NOTHING_FOUND.search(text):
        return True
    return bool(_NONE.search(_NOT_NONE.sub(" ", _NON_ANSWER.sub(" ", text))))


def is_non_answer(text: str) -> bool:
    """True when the text says it has no answer: "I don't know", "not sure", "gave up", "unable
    to determine", "no idea"; not "I couldn't find any order that matches" (nothing found, a
    "None" answer). Callers check that no entity was found as well."""
    return bool(_NON_ANSWER.search(_NOTHING_FOUND.sub(" ", text)))


def ends_with_none(text: str) -> bool:
    """True when the text's last word is a stated "None" ("... so none qualifies. None")."""
    return bool(_TRAILING_NONE.search(text.strip()))
