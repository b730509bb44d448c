"""Finders for the non-Id answer kinds: US states, months, failed BANT factors, one stage.

Each finder takes a piece of text and returns canonical items (`"OR"`, `"June"`, `"Authority"`,
`"Quote"`) in order of first appearance, or an empty list when it finds none.
"""

from __future__ import annotations

import re

STATES: dict[str, str] = {
    "Alabama": "AL",
    "Alaska": "AK",
    "Arizona": "AZ",
    "Arkansas": "AR",
    "California": "CA",
    "Colorado": "CO",
    "Connecticut": "CT",
    "Delaware": "DE",
    "Florida": "FL",
    "Georgia": "GA",
    "Hawaii": "HI",
    "Idaho": "ID",
    "Illinois": "IL",
    "Indiana": "IN",
    "Iowa": "IA",
    "Kansas": "KS",
    "Kentucky": "KY",
    "Louisiana": "LA",
    "Maine": "ME",
    "Maryland": "MD",
    "Massachusetts": "MA",
    "Michigan": "MI",
    "Minnesota": "MN",
    "Mississippi": "MS",
    "Missouri": "MO",
    "Montana": "MT",
    "Nebraska": "NE",
    "Nevada": "NV",
    "New Hampshire": "NH",
    "New Jersey": "NJ",
    "New Mexico": "NM",
    "New York": "NY",
    "North Carolina": "NC",
    "North Dakota": "ND",
    "Ohio": "OH",
    "Oklahoma": "OK",
    "Oregon": "OR",
    "Pennsylvania": "PA",
    "Rhode Island": "RI",
    "South Carolina": "SC",
    "South Dakota": "SD",
    "Tennessee": "TN",
    "Texas": "TX",
    "Utah": "UT",
    "Vermont": "VT",
    "Virginia": "VA",
    "Washington": "WA",
    "West Virginia": "WV",
    "Wisconsin": "WI",
    "Wyoming": "WY",
    "District of Columbia": "DC",
}
STATE_CODES = frozenset(STATES.values())
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
BANT = ("Budget", "Authority", "Need", "Timeline")
STAGES = ("Qualification", "Discovery", "Quote", "Negotiation", "Closed")

# ---------------------------------------------------------------- states
_DC_RE = r"washington,?\s*d\.?\s*c\.?(?![a-z])"
_NAMES = sorted(STATES, key=len, reverse=True)
_STATE_RE = re.compile(
    rf"(?P<dc>{_DC_RE})|(?P<name>\b(?:{'|'.join(re.escape(n) for n in _NAMES)})\b)"
    r"|(?<![A-Za-z0-9])(?P<code>[A-Z]{2})(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_BY_LOWER_NAME = {name.lower(): code for name, code in STATES.items()}
_WORDLIKE_CODES = frozenset(
    {
        "IN",
        "OR",
        "ME",
        "OK",
        "HI",
        "AL",
        "ID",
        "DE",
        "PA",
        "MA",
        "LA",
        "CO",
        "OH",
        "MD",
        "MS",
        "MT",
        "NE",
        "SC",
        "GA",
        "VA",
    }
)
_SHOUTED_WORD = re.compile(r"[A-Z]{3,}")
_ID_WORD = re.compile(
    r"(?:account|case|record|user|owner|agent|contact|lead|opportunity|quote|order|product|"
    r"article|salesforce|object|issue|task|the|an|its|their|your)\s+$",
    re.IGNORECASE,
)


def _is_word_not_state(text: str, start: int, end: int, code: str) -> bool:
    """An upper-case two-letter token used as an English word ("ID", "IN PROGRESS")."""
    if code == "ID":
        after = text[end : end + 3]
        if after[:1] in ("s", ":", "=", "#") or _ID_WORD.search(text[max(0, start - 20) : start]):
            return True
    if code in _WORDLIKE_CODES:
        before = text[max(0, start - 20) : start].split()
        after_words = text[end : end + 20].split()
        neighbours = [w.strip(".,;:()") for w in (before[-1:] + after_words[:1])]
        for word in neighbours:
            if _SHOUTED_WORD.fullmatch(word) and word.title() not in STATES:
                return True
    return False


def find_states(text: str) -> list[str]:
    found: dict[str, None] = {}
    for match in _STATE_RE.finditer(text):
        if match.group("dc"):
            found.setdefault("DC", None)
        elif match.group("name"):
            found.setdefault(_BY_LOWER_NAME[" ".join(match.group("name").lower().split())], None)
        else:
            code = match.group("code")
            if code in STATE_CODES and not _is_word_not_state(text, *match.span(), code):
                found.setdefault(code, None)
    return list(found)


# ---------------------------------------------------------------- months
_MONTH_RE = re.compile(
    r"\b(?:(?i:january|february|march|april|june|july|august|september|october|november|december)"
    r"|May|MAY|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)(?![a-z]))\b"
)
_MONTH_BY_KEY = {m[:3].lower(): m for m in MONTHS}


def find_months(text: str) -> list[str]:
    found: dict[str, None] = {}
    for match in _MONTH_RE.finditer(text):
        found.setdefault(_MONTH_BY_KEY[match.group(0)[:3].lower()], None)
    return list(found)


# ---------------------------------------------------------------- BANT
_FACTOR_RE = re.compile(
    r"\b(?P<f>budgets?|authority|needs?(?!\s+to\b)|timelines?|timing|time\s*frames?|time\s+line)\b",
    re.IGNORECASE,
)
_NOT = (
    r"(?:\b(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would)(?:\s+|(?=n't)))?"
    r"(?:\bnot|n't|\bnever|\bcannot)\s+(?:\w+\s+){0,2}?"
)
_MET_WORDS = (
    r"(?:met|meets?|satisf(?:ied|ies|y)|qualif(?:ied|ies|y)|confirmed|established|"
    r"clear(?:ly\s+defined)?|defined|identified|present|sufficient|adequate|"
    r"demonstrated|validated|verified|aligned|in\s+place|acceptable)"
)
# "lacks a defined timeline": the words after a lack are part of the lack, not a "met" cue.
_LACKED = (
    r"(?:\s+(?:a|an|any|the|clear(?:ly)?|defined|confirmed|firm|specific|sufficient|adequate|"
    r"established|identified|verified))*"
)
_CUE_RE = re.compile(
    rf"(?P<fail>{_NOT}{_MET_WORDS}|\bun(?:met|satisfied|qualified|confirmed|clear|defined|known|"
    rf"verified|established)\b|\bfail\w*|\black\w*{_LACKED}|\bmissing{_LACKED}|\binsufficient\b|"
    rf"\binadequate\b|\babsent\b|\bweak\b|\bno{_LACKED}\b|\bnot\b|\bdoes\s*n[o']t\b|\bisn't\b|"
    rf"\baren't\b|\bwithout{_LACKED}|"
    r"\bconcern\w*|[\u2717\u2718\u274c]|\bx\b)"
    rf"|(?P<met>\b{_MET_WORDS}\b|\bstrong\b|\bgood\b|\bfine\b|\bok(?:ay)?\b|\bpass(?:ed|es)?\b|"
    r"\byes\b|[\u2713\u2714\u2705])",
    re.IGNORECASE,
)
_SENTENCE_SPLIT = re.compile(
    r"[.;!?\n]+|\b(?:but|however|whereas|while|although|though|except)\b", re.IGNORECASE
)


# "they need approval", "we need more calls": the verb, not the factor (unlike "no need", "does
# not need it", "the need is unclear").
_NEED_SUBJECT = re.compile(
    r"\b(?:i|we|you|they|he|she|it|who|will|would|may|might|still|also|really|only|just)\s+$",
    re.IGNORECASE,
)


def _verb_need(sentence: str, factor: re.Match[str]) -> bool:
    return factor.group("f").lower().startswith("need") and bool(
        _NEED_SUBJECT.search(sentence, 0, factor.start())
    )


def _canonical_factor(word: str) -> str:
    word = word.lower()
    if word.startswith("budget"):
        return "Budget"
    if word.startswith("authority"):
        return "Authority"
    if word.startswith("need"):
        return "Need"
    return "Timeline"


def _spans(text: str, splitter: re.Pattern[str]) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in splitter.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def _polarity(cues: list[tuple[int, int, str]], start: int, end: int) -> str | None:
    """The nearest cue's polarity; a following cue wins a tie."""
    best: tuple[int, int, str] | None = None
    for cue_start, cue_end, kind in cues:
        if cue_start >= end:
            distance, rank = cue_start - end, 0
        elif cue_end <= start:
            distance, rank = start - cue_end, 1
        else:
            continue
        if best is None or (distance, rank) < best[:2]:
            best = (distance, rank, kind)
    return best[2] if best else None


def find_failed_bant(text: str) -> list[str]:
    """BANT factors the text presents as failed; a factor only named in passing counts as failed."""
    verdicts: dict[str, list[str | None]] = {}
    for s_start, s_end in _spans(text, _SENTENCE_SPLIT):
        sentence = text[s_start:s_end]
        factors = [f for f in _FACTOR_RE.finditer(sentence) if not _verb_need(sentence, f)]
        if not factors:
            continue
        cues = [
            (m.start(), m.end(), "fail" if m.group("fail") else "met")
            for m in _CUE_RE.finditer(sentence)
        ]
        for c_start, c_end in _spans(sentence, re.compile(",")):
            for factor in factors:
                if not (c_start <= factor.start() < c_end):
                    continue
                in_chunk = [c for c in cues if c_start <= c[0] and c[1] <= c_end]
                verdict = _polarity(in_chunk, *factor.span())
                if verdict is None:
                    following = [c for c in cues if c[0] >= factor.end()]
                    preceding = [c for c in cues if c[1] <= factor.start()]
                    if following:
                        verdict = following[0][2]
                    elif preceding:
                        verdict = preceding[-1][2]
                verdicts.setdefault(_canonical_factor(factor.group("f")), []).append(verdict)
    failed: list[str] = []
    for name, marks in verdicts.items():
        decided = [m for m in marks if m is not None]
        if not decided or "fail" in decided:
            failed.append(name)
    return failed


# ---------------------------------------------------------------- stage
_STAGE_RE = re.compile(
    r"\b(?P<s>qualification|discovery|quote|negotiation|closed)(?:[\s/-]+(?:won|lost|review))?\b",
    re.IGNORECASE,
)
_POS_BEFORE = re.compile(
    r"should\s+(?:be|have\s+been)|correct(?:ed)?|actual(?:ly)?|right|proper|appropriate|"
    r"suitable|accurate|true|(?:move|update|change|set|revert|advance|progress)\w*\s+(?:it\s+)?"
    r"(?:back\s+)?(?:to|into)|belongs?\s+(?:in|to)|answer|\bto\b|->|\u2192|=>",
    re.IGNORECASE,
)
_NEG_BEFORE = re.compile(
    r"\bnot\b|n't|current(?:ly)?|\bfrom\b|instead\s+of|rather\s+than|incorrect(?:ly)?|wrong(?:ly)?|"
    r"(?:listed|marked|recorded|shown|labell?ed|set)\s+as|still\s+in|remains?\s+in|\bwas\b",
    re.IGNORECASE,
)
_ARTICLE_BEFORE = re.compile(r"\b(?:a|an|the|this|that|our|their)\s+$", re.IGNORECASE)
_NEG_AFTER = re.compile(
    r"^\W*(?:stage\s+)?(?:is|was|seems|appears)?\s*(?:incorrect|wrong|inaccurate|outdated|"
    r"not\s+(?:the\s+)?(?:correct|right|appropriate|accurate|suitable))",
    re.IGNORECASE,
)
_POS_AFTER = re.compile(
    r"^\W*(?:stage\s+)?(?:is|would\s+be)\s+(?:the\s+)?(?:correct|right|appropriate|accurate|suitable)",
    re.IGNORECASE,
)


def find_stage(text: str) -> list[str]:
    """The one stage the text puts forward, judged by the words around each stage it names."""
    mentions = list(_STAGE_RE.finditer(text))
    if not mentions:
        return []
    best_score, best_stage = None, ""
    previous_end = 0
    for mention in mentions:
        start, end = mention.span()
        window_start = max(previous_end, start - 40)
        window = text[window_start:start]
        boundary = max(window.rfind("."), window.rfind("\n"), window.rfind(";"))
        window = window[boundary + 1 :]
        if mention.group("s")[0].isupper():
            score = 1
        else:
            score = -2 if _ARTICLE_BEFORE.search(window) else 0
        last_pos = max((m.end() for m in _POS_BEFORE.finditer(window)), default=-1)
        last_neg = max((m.end() for m in _NEG_BEFORE.finditer(window)), default=-1)
        if last_pos > last_neg:
            score += 2
        elif last_neg > last_pos:
            score -= 2
        after = text[end : end + 40]
        if _NEG_AFTER.search(after):
            score -= 3
        elif _POS_AFTER.search(after):
            score += 3
        if best_score is None or score > best_score:
            best_score, best_stage = score, mention.group("s").title()
        previous_end = end
    return [best_stage]
