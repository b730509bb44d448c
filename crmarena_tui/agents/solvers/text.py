"""Plain text handling for the solvers: word sets, masking names, overlap scores."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_STOP_TEXT = """
a about above after again all also am an and any are as at be been before being below between both
but by can could did do does doing down during each few for from further had has have having he her
here hers him his how i if in into is it its itself just me more most my no nor not now of off on
once only or other our ours out over own same she should so some such than that the their them then
there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours us get got please tell know
"""
STOPWORDS = frozenset(_STOP_TEXT.split())

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude English stem: plural and common verb endings removed."""
    word = word.lower().removesuffix("'s")
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + repl
    return word


def tokens(text: str) -> list[str]:
    """Lower-case word stems of `text`, stop words left out."""
    return list(_tokens(text))


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:  # the same texts come back often (past cases)
    return tuple(stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS)


def words(text: str) -> set[str]:
    return set(tokens(text))


def mask(text: str, names: Iterable[str], placeholder: str = " ") -> str:
    """`text` with every occurrence of the given names (longest first) replaced."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = re.sub(re.escape(name), placeholder, text, flags=re.I)
    return text


def related(a: str, b: str) -> bool:
    """Two word stems name the same thing: equal, one a prefix of the other (4+ letters), one
    inside the other (5+ letters, "security" in "cybersecurity"), or a shared 6-letter start."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 4 and long_.startswith(short):
        return True
    if len(short) >= 5 and short in long_:
        return True
    return len(short) >= 6 and long_[:6] == short[:6]
