"""The SOSL search term (`FIND {...}`): words, "phrases", * and ? wildcards, AND / OR / AND NOT.

A term compiles to one regular expression over a record's searchable text (lookaheads for AND and
NOT, alternation for OR), evaluated by the `sosl_match(pattern, field, ...)` SQL function the local
org registers, plus `LIKE` pre-filters on literal fragments so that SQLite discards most rows early.
Words match whole words, case-insensitively; `*` stands for any run of word characters, `?` for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from crmarena_tui.orgs.soql.conditions import like_escape
from crmarena_tui.orgs.soql.errors import SoqlError

_TOKEN_RE = re.compile(r'\s*(?:(")((?:\\.|[^"\\])*)("?)|([()])|((?:\\.|[^\s()"\\])+))')
_SPECIAL_ESCAPES = re.compile(r"\\(.)")
MIN_TERM = 2


@dataclass(slots=True)
class _Atom:
    words: list[str]


@dataclass(slots=True)
class _Op:
    op: str  # "and" | "or" | "not"
    items: list


@dataclass(slots=True)
class CompiledTerm:
    pattern: str  # the regular expression sosl_match evaluates
    prefilter: Prefilter | None  # literal fragments a match contains (LIKE pre-filters)


def _tokens(term: str, pos: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(term):
        if term[i:].strip() == "":
            break
        m = _TOKEN_RE.match(term, i)
        if m is None:
            raise SoqlError(
                "MALFORMED_SEARCH",
                f"cannot read the search term near '{term[i : i + 10]}'",
                pos + i,
            )
        quote, phrase, close, paren, word = m.groups()
        if quote:
            if not close:
                raise SoqlError(
                    "MALFORMED_SEARCH", "unterminated quoted phrase in search term", pos + i
                )
            out.append(("phrase", _SPECIAL_ESCAPES.sub(r"\1", phrase)))
        elif paren:
            out.append((paren, paren))
        elif word in ("AND", "OR", "NOT"):
            out.append((word, word))
        else:
            out.append(("word", _SPECIAL_ESCAPES.sub(r"\1", word)))
        i = m.end()
    return out


class _TermParser:
    def __init__(self, tokens: list[tuple[str, str]], pos: int) -> None:
        self.tokens = tokens
        self.i = 0
        self.pos = pos

    def _peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def _fail(self, what: str) -> SoqlError:
        return SoqlError("MALFORMED_SEARCH", f"unexpected {what} in search term", self.pos)

    def parse(self) -> _Atom | _Op:
        node = self._or()
        if self.i != len(self.tokens):
            raise self._fail(repr(self.tokens[self.i][1]))
        return node

    def _or(self) -> _Atom | _Op:
        items = [self._and()]
        while self._peek() == "OR":
            self.i += 1
            items.append(self._and())
        return items[0] if len(items) == 1 else _Op("or", items)

    def _and(self) -> _Atom | _Op:
        items = [self._unary()]
        while self._peek() not in (None, "OR", ")"):
            if self._peek() == "AND":
                self.i += 1
            items.append(self._unary())
        return items[0] if len(items) == 1 else _Op("and", items)

    def _unary(self) -> _Atom | _Op:
        kind = self._peek()
        if kind is None:
            raise self._fail("end")
        if kind == "NOT":
            self.i += 1
            return _Op("not", [self._unary()])
        if kind == "(":
            self.i += 1
            node = self._or()
            if self._peek() != ")":
                raise self._fail("end (missing ')')")
            self.i += 1
            return node
        if kind in ("word", "phrase"):
            text = self.tokens[self.i][1]
            self.i += 1
            words = text.split() if kind == "phrase" else [text]
            if not words:
                raise self._fail("empty phrase")
            return _Atom(words)
        raise self._fail(repr(self.tokens[self.i][1]))


def _word_regex(word: str) -> str:
    body = "".join(r"\w*" if ch == "*" else r"\w" if ch == "?" else re.escape(ch) for ch in word)
    start = r"(?<!\w)" if (word[0].isalnum() or word[0] in "*?_") else ""
    end = r"(?!\w)" if (word[-1].isalnum() or word[-1] == "_") else ""
    return start + body + end


def _regex(node: _Atom | _Op) -> str:
    if isinstance(node, _Atom):
        return r"(?=[\s\S]*?" + r"\W+".join(_word_regex(w) for w in node.words) + ")"
    if node.op == "and":
        return "".join(_regex(i) for i in node.items)
    if node.op == "or":
        return "(?:" + "|".join(_regex(i) for i in node.items) + ")"
    return "(?!" + _regex(node.items[0]) + ")"


Prefilter = tuple  # ("frag", text) | ("and", [Prefilter]) | ("or", [Prefilter])


def _prefilter(node: _Atom | _Op) -> Prefilter | None:
    """Literal pieces a match must contain, as an AND/OR tree (None: nothing to require)."""
    if isinstance(node, _Atom):
        pieces = [p for w in node.words for p in re.split(r"[*?]", w) if p]
        best = max(pieces, key=len, default="")
        return ("frag", best) if len(best) >= MIN_TERM else None
    if node.op == "not":
        return None
    parts = [_prefilter(i) for i in node.items]
    if node.op == "and":
        kept = [p for p in parts if p is not None]
        return ("and", kept) if kept else None
    return None if any(p is None for p in parts) else ("or", parts)


def _literal_length(node: _Atom | _Op) -> int:
    if isinstance(node, _Atom):
        return sum(len(w.replace("*", "").replace("?", "")) for w in node.words)
    return max((_literal_length(i) for i in node.items), default=0)


def compile_term(term: str, pos: int = 0) -> CompiledTerm:
    tokens = _tokens(term, pos)
    if not tokens:
        raise SoqlError("MALFORMED_SEARCH", "search term must be longer than one character", pos)
    node = _TermParser(tokens, pos).parse()
    if _literal_length(node) < MIN_TERM:
        raise SoqlError("MALFORMED_SEARCH", "search term must be longer than one character", pos)
    return CompiledTerm("^" + _regex(node), _prefilter(node))


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def sosl_match(pattern: str, *values: object) -> int:
    """The SQL function: 1 when the record's searchable text matches the compiled term."""
    text = "\n".join(str(v) for v in values if v is not None)
    return 1 if text and _compiled(pattern).search(text) else 0


def _prefilter_sql(pre: Prefilter, columns: list[str], params: list[object]) -> str:
    kind, body = pre
    if kind == "frag":
        params.extend([f"%{like_escape(body)}%"] * len(columns))
        return "(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns) + ")"
    joiner = " AND " if kind == "and" else " OR "
    return "(" + joiner.join(_prefilter_sql(p, columns, params) for p in body) + ")"


def search_condition(term: CompiledTerm, columns: list[str]) -> tuple[str, list[object]]:
    """SQL that keeps the records whose `columns` match `term` (LIKE pre-filter, then the regex)."""
    params: list[object] = []
    parts = [] if term.prefilter is None else [_prefilter_sql(term.prefilter, columns, params)]
    parts.append(f"sosl_match(?, {', '.join(columns)})")
    params.append(term.pattern)
    return " AND ".join(parts), params
