"""Parse SOQL and SOSL text into `nodes` (lark LALR; the parser is built once, on first use)."""

from __future__ import annotations

import math
import re
import threading
from datetime import date
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql.dates import parse_datetime_literal
from crmarena_tui.orgs.soql.errors import SoqlError, line_col, malformed
from crmarena_tui.orgs.soql.grammar import GRAMMAR, RESERVED

MAX_SOQL_LENGTH = 100_000
MAX_SOSL_LENGTH = 20_000
MAX_INTEGER = 2**63 - 1  # a whole number in a filter (SQLite's INTEGER; Salesforce's are smaller)
MAX_LIMIT = 2**31 - 1  # LIMIT and OFFSET are Java ints on Salesforce
OUT_OF_RANGE = "NUMBER_OUTSIDE_VALID_RANGE"

_ESCAPES = {
    "n": "\n",
    "N": "\n",
    "r": "\r",
    "R": "\r",
    "t": "\t",
    "T": "\t",
    "b": "\b",
    "B": "\b",
    "f": "\f",
    "F": "\f",
    '"': '"',
    "'": "'",
    "\\": "\\",
    "%": "%",
    "_": "_",
}

# TYPEOF just before an unexpected token: read as a field name outside the SELECT list
_TYPEOF_BEFORE = re.compile(r"\bTYPEOF\s+$", re.IGNORECASE | re.ASCII)

_lock = threading.Lock()
_parser: Lark | None = None


class _Unexpected(Exception):
    def __init__(self, token: str, offset: int) -> None:
        super().__init__(token)
        self.token = token
        self.offset = offset


def unescape(raw: str, pos: int = 0) -> str:
    """The value of a quoted literal's inside, with Salesforce's backslash escapes applied."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            nxt = raw[i + 1] if i + 1 < len(raw) else ""
            if nxt not in _ESCAPES:
                raise SoqlError(
                    "MALFORMED_QUERY", f"Invalid string literal: invalid escape '\\{nxt}'", pos + i
                )
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _ident(tok: Token) -> str:
    if str(tok).upper() in RESERVED:
        raise _Unexpected(str(tok), tok.start_pos or 0)
    return str(tok)


class _OutOfRange(Exception):
    """A number the transformer cannot take (it has no query text: `_parse` positions it)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:20]}... ({len(text):,} characters)"


def _bounded_int(text: str, offset: int, maximum: int, what: str) -> int:
    """A whole number of the query, refused beyond `maximum` (`what` names it in the message:
    "LIMIT ", "number ", "LAST_N_DAYS:"). The length is looked at first: Python refuses to read
    a whole number of more than 4,300 digits."""
    if len(text.lstrip("+-").lstrip("0")) > len(str(maximum)) or abs(int(text)) > maximum:
        raise _OutOfRange(
            f"{what}{_short(text)} is outside the valid range (at most {maximum:,})", offset
        )
    return int(text)


def first_bad_character(text: str) -> int | None:
    """The offset of the first lone surrogate (no UTF-8 form: Salesforce never receives it)."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            return i
    return None


@v_args(inline=True)
class _Build(Transformer):
    # ---- select list and expressions
    def path(self, *parts: Token) -> n.Path:
        return n.Path(tuple(_ident(p) for p in parts), parts[0].start_pos or 0)

    def call(self, name: Token, arg: Any) -> n.Call:
        return n.Call(_ident(name), arg, name.start_pos or 0)

    def sel_expr(self, expr: n.Expr, alias: Token | None = None) -> n.SelectItem:
        return n.SelectItem(expr, _ident(alias) if alias is not None else None)

    def sel_child(self, query: n.Query) -> n.ChildSelect:
        return n.ChildSelect(query, query.object_pos)

    @v_args(inline=False)
    def sel_typeof(self, items: list) -> n.TypeOf:
        kw, ref = items[0], items[1]
        whens = [i for i in items[2:] if isinstance(i, tuple)]
        otherwise = items[-2] if isinstance(items[-2], list) else None
        return n.TypeOf(_ident(ref), kw.start_pos or 0, whens, otherwise)

    def when_branch(self, _when: Token, obj: Token, _then: Token, fields: list) -> tuple:
        return (_ident(obj), obj.start_pos or 0, fields)

    @v_args(inline=False)
    def typeof_fields(self, items: list) -> list:
        return items

    @v_args(inline=False)
    def select_list(self, items: list) -> list:
        return items

    # ---- conditions
    def cond_or(self, left: n.Condition, op: Token, right: n.Condition) -> n.BoolOp:
        return _merge("or", left, op, right)

    def cond_and(self, left: n.Condition, op: Token, right: n.Condition) -> n.BoolOp:
        return _merge("and", left, op, right)

    def cond_not(self, op: Token, item: n.Condition) -> n.Not:
        return n.Not(item, op.start_pos or 0)

    def paren(self, cond: n.Condition) -> n.Condition:
        if isinstance(cond, (n.BoolOp, n.Not)):
            cond.grouped = True
        return cond

    def cmp(self, lhs: n.Expr, op: Token, value: n.Value) -> n.Compare:
        return n.Compare(lhs, "!=" if op == "<>" else str(op), value, op.start_pos or 0)

    def cmp_like(self, lhs: n.Expr, op: Token, value: n.Value) -> n.Compare:
        return n.Compare(lhs, "like", value, op.start_pos or 0)

    def cmp_in(self, lhs: n.Expr, op: Token, values: Any) -> n.Compare:
        return n.Compare(lhs, "in", values, op.start_pos or 0)

    def cmp_not_in(self, lhs: n.Expr, op: Token, _in: Token, values: Any) -> n.Compare:
        return n.Compare(lhs, "in", values, op.start_pos or 0, negated=True)

    def cmp_includes(self, lhs: n.Expr, op: Token, values: list) -> n.Compare:
        return n.Compare(lhs, "includes", values, op.start_pos or 0)

    def cmp_excludes(self, lhs: n.Expr, op: Token, values: list) -> n.Compare:
        return n.Compare(lhs, "excludes", values, op.start_pos or 0)

    @v_args(inline=False)
    def value_list(self, items: list) -> list:
        return items

    # ---- values
    def v_string(self, tok: Token) -> n.Value:
        raw = str(tok)[1:-1]
        pos = tok.start_pos or 0
        return n.Value("string", unescape(raw, pos + 1), raw, pos)

    def v_number(self, tok: Token) -> n.Value:
        text = str(tok)
        pos = tok.start_pos or 0
        if any(c in text for c in ".eE"):
            num: int | float = float(text)
            if math.isinf(num):
                raise _OutOfRange(f"number {_short(text)} is outside the valid range", pos)
        else:
            num = _bounded_int(text, pos, MAX_INTEGER, "number ")
        return n.Value("number", num, text, pos)

    def v_date(self, tok: Token) -> n.Value:
        try:
            value = date.fromisoformat(str(tok))
        except ValueError:
            raise SoqlError("MALFORMED_QUERY", f"invalid date: {tok}", tok.start_pos) from None
        return n.Value("date", value, str(tok), tok.start_pos or 0)

    def v_datetime(self, tok: Token) -> n.Value:
        value = parse_datetime_literal(str(tok))
        if value is None:
            raise SoqlError("MALFORMED_QUERY", f"invalid datetime: {tok}", tok.start_pos)
        return n.Value("datetime", value, str(tok), tok.start_pos or 0)

    def v_word(self, tok: Token) -> n.Value:
        return n.Value("word", str(tok).upper(), str(tok), tok.start_pos or 0)

    def v_word_n(self, tok: Token, num: Token) -> n.Value:
        count = _bounded_int(str(num), num.start_pos or 0, MAX_INTEGER, f"{tok}:")
        return n.Value("word", str(tok).upper(), f"{tok}:{num}", tok.start_pos or 0, count)

    # ---- clauses
    def where_clause(self, _kw: Token, cond: n.Condition) -> tuple:
        return ("where", cond)

    def having_clause(self, _kw: Token, cond: n.Condition) -> tuple:
        return ("having", cond)

    @v_args(inline=False)
    def group_clause(self, items: list) -> tuple:
        return ("group", items[2:])

    @v_args(inline=False)
    def order_clause(self, items: list) -> tuple:
        return ("order", items[2:])

    def order_item(
        self, expr: n.Expr, direction: Token | None, _nulls: Token | None, which: Token | None
    ) -> n.OrderItem:
        desc = direction is not None and direction.type == "DESC"
        nulls = None if which is None else str(which.type).lower()
        return n.OrderItem(expr, desc, nulls)

    def limit_clause(self, _kw: Token, num: Token) -> tuple:
        return ("limit", _bounded_int(str(num), num.start_pos or 0, MAX_LIMIT, "LIMIT "))

    def using_clause(self, _using: Token, _scope: Token, word: Token) -> tuple:
        if str(word).lower() != "everything":  # mine, team, ...: the org has no current user
            raise malformed_scope(word)
        return ("noop", None)

    def with_clause(self, _with: Token, _mode: Token) -> tuple:
        return ("noop", None)

    def for_clause(self, _for: Token, _what: Token) -> tuple:
        return ("noop", None)

    @v_args(inline=False)
    def snippet_clause(self, _items: list) -> tuple:
        return ("noop", None)

    def offset_clause(self, _kw: Token, num: Token) -> tuple:
        return ("offset", _bounded_int(str(num), num.start_pos or 0, MAX_LIMIT, "OFFSET "))

    @v_args(inline=False)
    def soql(self, items: list) -> n.Query:
        obj: Token = items[3]
        query = n.Query(select=items[1], object=_ident(obj), object_pos=obj.start_pos or 0)
        _apply_clauses(query, items[4:])
        return query

    # ---- SOSL
    def search_text(self, tok: Token) -> tuple[str, int, bool]:
        return str(tok)[1:-1], (tok.start_pos or 0) + 1, tok.type == "STRING"

    def scope_clause(self, _in: Token, word: str, _fields: Token) -> tuple:
        return ("scope", word)

    def scope_word(self, tok: Token) -> str:
        return "NAME" if tok.type == "NAME_KW" else str(tok.type)

    @v_args(inline=False)
    def returning_clause(self, items: list) -> tuple:
        return ("returning", items[1:])

    @v_args(inline=False)
    def returning_spec(self, items: list) -> tuple:
        return ("spec", items)

    def returning_item(self, obj: Token, spec: tuple | None = None) -> n.Returning:
        item = n.Returning(_ident(obj), obj.start_pos or 0)
        if spec is not None:
            item.select = spec[1][0]
            _apply_clauses(item, spec[1][1:])
        return item

    @v_args(inline=False)
    def sosl(self, items: list) -> n.Search:
        term, pos, quoted = items[1]
        search = n.Search(term, pos, quoted)
        for kind, value in items[2:]:
            if kind == "scope":
                search.scope = value
            elif kind == "returning":
                search.returning = value
            elif kind == "limit":
                search.limit = value
        return search


def malformed_scope(word: Token) -> Exception:
    """`USING SCOPE mine` and the other scopes that need a current user: refused."""
    from crmarena_tui.orgs.soql.errors import SoqlError

    return SoqlError(
        "INVALID_FIELD",
        f"USING SCOPE {word}: this org answers only USING SCOPE everything (it has no current "
        "user whose records mine, team or delegated would keep)",
    )


def _merge(op: str, left: n.Condition, tok: Token, right: n.Condition) -> n.BoolOp:
    """`left op right`, refusing what Salesforce refuses: AND mixed with OR, or NOT beside
    either, without parentheses (`a AND b OR c`, `a AND NOT b`)."""
    pos = tok.start_pos or 0
    if not getattr(left, "grouped", True) and (
        isinstance(left, n.Not) or (isinstance(left, n.BoolOp) and left.op != op)
    ):
        raise _Unexpected(str(tok), pos)
    if isinstance(right, n.Not) and not right.grouped:
        raise _Unexpected("NOT", right.pos)
    if isinstance(right, n.BoolOp) and not right.grouped and right.op != op:
        raise _Unexpected(right.op.upper(), right.op_pos)
    if isinstance(left, n.BoolOp) and left.op == op and not left.grouped:
        left.items.append(right)
        return left
    return n.BoolOp(op, [left, right], pos)


def _apply_clauses(target: n.Query | n.Returning, clauses: list[tuple]) -> None:
    for kind, value in clauses:
        if kind == "noop":
            continue
        if kind == "group":
            target.group_by = value  # type: ignore[union-attr]
        elif kind == "order":
            target.order_by = value
        else:
            setattr(target, kind, value)


def get_parser() -> Lark:
    """The shared LALR parser (built on first use; building takes a few tens of milliseconds)."""
    global _parser
    if _parser is None:
        with _lock:
            if _parser is None:
                _parser = Lark(
                    GRAMMAR,
                    start=["soql", "sosl"],
                    parser="lalr",
                    lexer="contextual",
                    transformer=_Build(),
                    maybe_placeholders=True,
                    propagate_positions=False,
                    # ASCII only, as Salesforce reads a statement: a keyword's case folding
                    # (`ſELECT` is no SELECT) and digits (`LIMIT １` is no limit)
                    g_regex_flags=re.ASCII,
                )
    return _parser


def _parse(text: str, start: str, code: str) -> Any:
    bad = first_bad_character(text) if not text.isascii() else None
    if bad is not None:
        line, col = line_col(text, bad)
        char = f"U+{ord(text[bad]):04X}"
        raise SoqlError(code, f"invalid character {char} at line {line} column {col}", bad)
    try:
        return get_parser().parse(text, start=start)
    except _OutOfRange as exc:
        line, col = line_col(text, exc.offset)
        message = f"{exc.message} at line {line} column {col}"
        raise SoqlError(OUT_OF_RANGE, message, exc.offset) from None
    except _Unexpected as exc:
        raise malformed(text, exc.token, exc.offset, code) from None
    except UnexpectedEOF:
        raise malformed(text, "<EOF>", len(text), code) from None
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            raise malformed(text, "<EOF>", len(text), code) from None
        typeof = _TYPEOF_BEFORE.search(text, 0, tok.start_pos or 0)
        if typeof is not None and start == "soql":
            raise SoqlError(  # `WHERE TYPEOF What ...`, `ORDER BY TYPEOF ...`
                code, "TYPEOF is only allowed in the SELECT clause", typeof.start()
            ) from None
        raise malformed(text, str(tok), tok.start_pos or 0, code) from None
    except UnexpectedCharacters as exc:
        offset = exc.pos_in_stream or 0
        raise malformed(text, text[offset : offset + 1], offset, code) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark input errors
        raise SoqlError(code, str(exc).splitlines()[0]) from None
    except SoqlError as exc:
        if exc.code == "MALFORMED_QUERY" and code != exc.code:
            exc.code = code
        raise


def parse_soql(text: str) -> n.Query:
    if len(text) > MAX_SOQL_LENGTH:
        raise SoqlError(
            "MALFORMED_QUERY",
            f"SOQL statements cannot be longer than {MAX_SOQL_LENGTH:,} characters",
        )
    return _parse(text, "soql", "MALFORMED_QUERY")


def parse_sosl(text: str) -> n.Search:
    if len(text) > MAX_SOSL_LENGTH:
        raise SoqlError(
            "MALFORMED_SEARCH",
            f"SOSL statements cannot be longer than {MAX_SOSL_LENGTH:,} characters",
        )
    return _parse(text, "sosl", "MALFORMED_SEARCH")
