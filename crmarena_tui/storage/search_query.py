"""The text of a search across trajectories, parsed: what a session's steps must hold, in which
order, what none of them may hold, and facts of the session. Pure: no database.

Syntax (docs/research.md, "Syntax"): terms separated by spaces; `"a phrase"` keeps its spaces;
`field:value` is a filter (`field:"a value"` too); a filter's value may list alternatives with
commas (`kind:query,search`). Words, phrases, event filters (`kind:`, `actor:`, `error:`,
`object:`) and regular expressions (`re:PATTERN`) side by side describe one step: they must all
hold for the same event. `A then B`: a step matching A and a later step of the same session
matching B. `not A` or `-A`: no step of the session matches A (`not (A then B)`: the session has
no such pair). Session facts (`participant:`, `type:`, `reward:`, `trial:`, `ended:`, `label:`,
`source:`, `split:`) keep sessions, wherever they are written; `-label:x` drops them. A word or
phrase matches the event's text wherever it occurs, case folded (`case` finds `CaseNumber`); it
needs at least 3 characters (the index is of trigrams). `@NAME` alone runs the search saved as
NAME (storage/search.py). A form the language does not have is an error naming its column.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from crmarena_tui.storage.search_values import PROMPT as PROMPT
from crmarena_tui.storage.search_values import SearchSyntaxError as SearchSyntaxError
from crmarena_tui.storage.search_values import checked as _checked

EVENT_FILTERS = ("kind", "actor", "error", "object")  # one event's own fields
SESSION_FILTERS = (  # the session's facts
    "participant",
    "type",
    "reward",
    "trial",
    "ended",
    "label",
    "source",
    "split",
)
PATTERN = "re"  # `re:PATTERN`, a regular expression on a step's text
FILTERS = EVENT_FILTERS + SESSION_FILTERS + (PATTERN,)
MIN_TERM = 3
_KEYWORDS = {"not": "not", "then": "then"}  # (and `AND`, the default: a no-op)


def _at(message: str, column: int) -> SearchSyntaxError:
    return SearchSyntaxError(f"{message} at column {column}")


@dataclass(frozen=True)
class Step:
    """What one step (event) must hold: every word or phrase (`terms`), every event filter
    (`filters`: each a tuple of alternatives) and every regular expression (`patterns`)."""

    terms: tuple[str, ...] = ()
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    patterns: tuple[str, ...] = ()

    @property
    def prompt(self) -> bool:
        """Whether the step is a system prompt (`kind:prompt`: not in the full-text index)."""
        return any(PROMPT in values for key, values in self.filters if key == "kind")

    @property
    def scanned(self) -> bool:
        """Whether the step is read from the events themselves, not the index alone."""
        return bool(self.patterns) or self.prompt


@dataclass(frozen=True)
class Chain:
    """Steps in order (`A then B`: one step each, each later than the one before), found in a
    session (or, `negated`, in none of its steps)."""

    steps: tuple[Step, ...]
    negated: bool = False
    unless: Step | None = None  # `A then not B`: no step matching it after the chain's last


@dataclass(frozen=True)
class SearchQuery:
    """The parsed search: `chains` of steps, session facts (`facts`, and `excluded`: those
    written negated), each a (field, alternatives); `terms` and `filters` gather the words and
    filters written positively (for snippets, and what a simple search reads as before)."""

    text: str = ""
    terms: tuple[str, ...] = ()
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    saved: str | None = None  # `@NAME`: the saved search to run instead
    chains: tuple[Chain, ...] = field(default=(), compare=False)
    excluded: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), compare=False)

    def of(self, name: str) -> list[tuple[str, ...]]:
        return [values for key, values in self.facts if key == name]

    @property
    def facts(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((k, v) for k, v in self.filters if k in SESSION_FILTERS)

    @property
    def positive(self) -> tuple[Chain, ...]:
        return tuple(c for c in self.chains if not c.negated)

    @property
    def empty(self) -> bool:
        return not self.chains and not self.filters and not self.excluded and self.saved is None

    @property
    def event_level(self) -> bool:
        """Whether something names the events (else every step of the sessions kept matches)."""
        return bool(self.positive)

    @property
    def simple(self) -> bool:
        """One step, found in the index alone, and facts: the search as it was before chains."""
        return (
            len(self.chains) == 1
            and not self.chains[0].negated
            and len(self.chains[0].steps) == 1
            and self.chains[0].unless is None
            and not self.chains[0].steps[0].scanned
            and not self.excluded
        )


def _split(text: str) -> list[str]:
    """Space-separated pieces; double quotes keep spaces (`""` inside quotes is one quote)."""
    pieces: list[str] = []
    current: list[str] = []
    quoted = in_piece = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            if quoted and text[i + 1 : i + 2] == '"':
                current.append('"')
                i += 2
                continue
            quoted, in_piece = not quoted, True
        elif ch.isspace() and not quoted:
            if in_piece:
                pieces.append("".join(current))
            current, in_piece = [], False
        else:
            current.append(ch)
            in_piece = True
        i += 1
    if quoted:
        raise SearchSyntaxError('a quote is not closed: add the closing "')
    if in_piece:
        pieces.append("".join(current))
    return pieces


def _reward(value: str) -> float | None:
    if value.lower() in ("none", "ungraded"):
        return None
    try:
        reward = float(value)
    except ValueError:
        raise SearchSyntaxError(
            f"reward:{value} is not a number (use reward:0, reward:1 or reward:none)"
        ) from None
    if not math.isfinite(reward):
        raise SearchSyntaxError(f"reward:{value} is not a number")
    return reward


def reward_values(values: tuple[str, ...]) -> tuple[float | None, ...]:
    return tuple(_reward(v) for v in values)


@dataclass
class _Atom:
    column: int
    fact: tuple[str, tuple[str, ...]] | None = None  # a session fact
    terms: tuple[str, ...] = ()
    event: tuple[str, tuple[str, ...]] | None = None  # an event filter
    pattern: str | None = None


def _atom(raw: str, column: int) -> _Atom:
    # a filter's name is read before the quotes are: `kind:"a b"` and `"kind:x"` (a phrase)
    name, sep, rest = raw.partition(":")
    key = name.lower()
    if sep and not raw.startswith('"') and key in FILTERS:
        if key == PATTERN:
            pattern = " ".join(_split(rest))
            if not pattern:
                raise _at("re: needs a regular expression (re:PATTERN)", column)
            try:
                re.compile(pattern)
            except re.error as exc:
                raise _at(f"re:{pattern} is not a regular expression ({exc})", column) from None
            return _Atom(column, pattern=pattern)
        values = tuple(v for v in (p.strip() for p in " ".join(_split(rest)).split(",")) if v)
        if not values:
            raise _at(f"{key}: needs a value ({key}:VALUE)", column)
        try:
            checked = _checked(key, values)
        except SearchSyntaxError as exc:
            raise _at(str(exc), column) from None
        if key in SESSION_FILTERS:
            return _Atom(column, fact=(key, checked))
        return _Atom(column, event=(key, checked))
    terms = _split(raw)
    for term in terms:
        if len(term) < MIN_TERM:
            raise _at(
                f"{term!r} is too short to search for: a word needs at least {MIN_TERM} characters",
                column,
            )
    return _Atom(column, terms=tuple(terms))


def _tokens(text: str) -> list[tuple[int, str, str]]:
    """(column, kind, text): kind `(`, `)`, `not`, `then`, `and` or `atom`. A piece's leading
    `(` opens a group and, inside one, its trailing `)` closes it; a leading `-` negates."""
    tokens: list[tuple[int, str, str]] = []
    depth = 0
    for start, raw in _raw_pieces(text):
        column = start + 1
        while raw.startswith(("-", "(")) and len(raw) > 1 or raw == "(":
            tokens.append((column, "not" if raw[0] == "-" else "(", raw[0]))
            depth += raw[0] == "("
            raw, column = raw[1:], column + 1
            if not raw:
                break
        if not raw:
            continue
        closing = 0
        while depth and raw.endswith(")") and not raw.endswith('")"'):
            raw, closing, depth = raw[:-1], closing + 1, depth - 1
        if raw in ("OR", "or") or raw == "|":
            raise _at(
                "OR is not supported: give a filter's alternatives with commas"
                " (kind:query,search), or run two searches",
                column,
            )
        keyword = "and" if raw == "AND" else _KEYWORDS.get(raw.lower())
        if raw:
            tokens.append((column, keyword or "atom", raw))
        tokens.extend((column + len(raw) + i, ")", ")") for i in range(closing))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.chains: list[Chain] = []
        self.excluded: list[tuple[str, tuple[str, ...]]] = []
        self.filters: list[tuple[str, tuple[str, ...]]] = []
        self.terms: list[str] = []
        self.unless: Step | None = None  # `A then not B` (the top chain's)
        self.unless_at: int | None = None

    def run(self) -> None:
        top = self._steps(0, group=False)[0]
        if top:
            self.chains.insert(0, Chain(top, unless=self.unless))

    def _steps(self, i: int, group: bool) -> tuple[tuple[Step, ...], int]:
        """The steps from token `i` to the end (or, in a group, its `)`), and where they end."""
        steps: list[list[_Atom]] = [[]]
        then_at: int | None = None
        while i < len(self.tokens):
            column, kind, raw = self.tokens[i]
            if kind == ")":
                if not group:
                    raise _at("a ) closes no group", column)
                break
            if (
                self.unless_at is not None
                and kind in ("then", "(")
                or (
                    self.unless_at is not None
                    and kind == "atom"
                    and _atom(raw, column).fact is None
                )
            ):
                raise _at("then not B ends its chain: write the steps before it", column)
            if kind == "then":
                if not steps[-1]:
                    raise _at("then needs a step before it", column)
                steps.append([])
                then_at = column
            elif kind == "(":
                if group:
                    raise _at("groups do not nest", column)
                if then_at is not None and not steps[-1]:
                    raise _at("then needs a step after it, not a group", column)
                inner, i = self._steps(i + 1, group=True)
                self.chains.append(Chain(inner))
            elif kind == "not":
                if group:
                    raise _at(
                        "not inside a group is not supported: write not (...) instead", column
                    )
                if then_at is not None and not steps[-1]:
                    i = self._then_not(i + 1, column)
                    steps.pop()  # (the empty place `then` opened)
                    then_at = None
                else:
                    i = self._negated(i + 1, column)
            elif kind == "atom":
                atom = _atom(raw, column)
                if atom.fact is not None:
                    if group:
                        raise _at(
                            f"{atom.fact[0]}: is a session fact: write it outside ( )", column
                        )
                    self.filters.append(atom.fact)
                else:
                    steps[-1].append(atom)
            i += 1
        if group and i >= len(self.tokens):
            raise SearchSyntaxError("a ( is not closed: add the closing )")
        if then_at is not None and not steps[-1]:
            raise _at("then needs a step after it", then_at)
        if group and not steps[0]:
            raise _at("an empty group ( )", self.tokens[i][0])
        return tuple(self._step(atoms, positive=True) for atoms in steps if atoms), i

    def _negated(self, i: int, column: int) -> int:
        if i >= len(self.tokens):
            raise _at("not needs something after it", column)
        at, kind, raw = self.tokens[i]
        if kind == "(":
            mark = len(self.chains)
            inner, end = self._steps(i + 1, group=True)
            self.chains.insert(mark, Chain(inner, negated=True))
            self._drop_words(inner)
            return end
        if kind != "atom":
            raise _at(f"not needs a step or a fact after it, not {raw!r}", at)
        atom = _atom(raw, at)
        if atom.fact is not None:
            self.excluded.append(atom.fact)
        else:
            step = self._step([atom], positive=False)
            self.chains.append(Chain((step,), negated=True))
        return i

    def _then_not(self, i: int, column: int) -> int:
        """`A then not B`: one step (an event filter, word or phrase, or a group of them) that no
        step after the chain's last may match; it ends the chain."""
        if i >= len(self.tokens):
            raise _at("not needs something after it", column)
        at, kind, raw = self.tokens[i]
        if kind == "(":
            inner, end = self._steps(i + 1, group=True)
            if len(inner) != 1:
                raise _at("then not takes one step: then not (A then B) is not supported", at)
            self._drop_words(inner)
            self.unless, self.unless_at = inner[0], column
            return end
        if kind != "atom" or _atom(raw, at).fact is not None:
            raise _at(f"then not needs a step after it, not {raw!r}", at)
        self.unless, self.unless_at = self._step([_atom(raw, at)], positive=False), column
        return i

    def _drop_words(self, steps: tuple[Step, ...]) -> None:
        """A negated group's words and filters are no positive terms."""
        for step in steps:
            for term in step.terms:
                self.terms.remove(term)
            for item in step.filters:
                self.filters.remove(item)

    def _step(self, atoms: list[_Atom], positive: bool) -> Step:
        terms = tuple(t for a in atoms for t in a.terms)
        filters = tuple(a.event for a in atoms if a.event is not None)
        patterns = tuple(a.pattern for a in atoms if a.pattern is not None)
        step = Step(terms, filters, patterns)
        if step.prompt:
            kinds = [v for k, v in filters if k == "kind"]
            other = any(k in ("error", "object") for k, _ in filters)
            if other or any(v != (PROMPT,) for v in kinds):
                raise _at(
                    "kind:prompt takes words, phrases and re: (no other kind, error: or object:)",
                    atoms[0].column,
                )
        if positive:
            self.terms.extend(terms)
            self.filters.extend(filters)
        return step


def parse(text: str) -> SearchQuery:
    """`text` as a search; raises SearchSyntaxError with a one-line message (naming the column
    of what it cannot read)."""
    stripped = text.strip()
    if stripped.startswith("@"):
        name = stripped[1:].strip()
        if not name or any(ch.isspace() for ch in name):
            raise SearchSyntaxError("@NAME runs a saved search: give just its name")
        return SearchQuery(text=stripped, saved=name)
    parser = _Parser(stripped)
    parser.run()
    return SearchQuery(
        text=stripped,
        terms=tuple(parser.terms),
        filters=tuple(parser.filters),
        chains=tuple(parser.chains),
        excluded=tuple(parser.excluded),
    )


def _raw_pieces(text: str) -> list[tuple[int, str]]:
    """(start, piece): pieces split on spaces outside quotes, quotes kept (for `_split`)."""
    pieces: list[tuple[int, str]] = []
    start, quoted = None, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        if ch.isspace() and not quoted:
            if start is not None:
                pieces.append((start, text[start:i]))
                start = None
        elif start is None:
            start = i
    if quoted:
        raise SearchSyntaxError('a quote is not closed: add the closing "')
    if start is not None:
        pieces.append((start, text[start:]))
    return pieces
