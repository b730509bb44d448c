"""Completion of object, field and relationship names for the SOQL/SOSL editor (no textual import).

The context decides the candidates: after `FROM` or `RETURNING`, object names; after `Parent.`,
the fields of the parent object; inside `Obj(` of a SOSL `RETURNING`, the fields of `Obj`;
elsewhere, the fields of the query's `FROM` object and then keywords.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from crmarena_tui.orgs.schema import ObjectDef, Schema

KEYWORDS = (
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "LIKE",
    "INCLUDES",
    "EXCLUDES",
    "GROUP BY",
    "HAVING",
    "ORDER BY",
    "ASC",
    "DESC",
    "NULLS FIRST",
    "NULLS LAST",
    "LIMIT",
    "OFFSET",
    "COUNT()",
    "COUNT_DISTINCT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "CALENDAR_MONTH",
    "CALENDAR_YEAR",
    "DAY_ONLY",
    "TODAY",
    "YESTERDAY",
    "LAST_N_DAYS:",
    "LAST_N_MONTHS:",
    "THIS_QUARTER",
    "LAST_QUARTER",
    "THIS_YEAR",
    "LAST_YEAR",
    "null",
    "true",
    "false",
    "FIND",
    "IN ALL FIELDS",
    "IN NAME FIELDS",
    "RETURNING",
)
WORD_AT_END = re.compile(r"[A-Za-z_][\w.]*$|$")
FROM_OBJ = re.compile(r"\bFROM\s+([A-Za-z_]\w*)", re.IGNORECASE)
LAST_KEYWORD = re.compile(
    r"\b(FROM|RETURNING|SELECT|WHERE|BY|AND|OR|HAVING)\s+(?:[\w.]+\s*,\s*)*$", re.IGNORECASE
)
SOSL_OBJ = re.compile(r"([A-Za-z_]\w*)\s*\([^()]*$")


@dataclass(frozen=True, slots=True)
class Completion:
    """`prefix` is the part of the word being completed; each candidate replaces it whole."""

    prefix: str
    candidates: tuple[str, ...]

    @property
    def suggestion(self) -> str:
        """What to append to the typed prefix to reach the first candidate (ghost text)."""
        if not self.candidates or not self.prefix:
            return ""
        first = self.candidates[0]
        return first[len(self.prefix) :] if first.lower().startswith(self.prefix.lower()) else ""


class Completer:
    """Candidates for the word before the cursor, from an org's schema."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._children: dict[str, str] = {}
        for obj in schema.objects.values():
            for rel in schema.child_relationships(obj.name):
                self._children.setdefault(rel.name.lower(), rel.child_object)

    def _object(self, name: str) -> ObjectDef | None:
        obj = self.schema.object(name)
        if obj is None and name.lower() in self._children:
            obj = self.schema.object(self._children[name.lower()])
        return obj

    @staticmethod
    def _names(obj: ObjectDef) -> list[str]:
        names = [f.name for f in obj.fields]
        names += [f.relationship_name for f in obj.fields if f.relationship_name]
        return names

    def complete(self, text: str, offset: int | None = None, limit: int = 12) -> Completion:
        before = text[: len(text) if offset is None else offset]
        word = WORD_AT_END.search(before).group(0)  # type: ignore[union-attr]
        head = before[: len(before) - len(word)]
        if "." in word:
            path, _, prefix = word.rpartition(".")
            obj = self._walk(self._from_object(text, head), path.split("."))
            pool = self._names(obj) if obj else []
        else:
            prefix = word
            pool = self._pool(text, head)
        low = prefix.lower()
        starts = [c for c in pool if c.lower().startswith(low)]
        inside = [c for c in pool if low and low in c.lower() and c not in starts] if low else []
        seen: dict[str, None] = dict.fromkeys(starts + inside)
        hits = tuple(c for c in seen if c.lower() != low or len(seen) > 1)
        return Completion(prefix, hits[:limit])

    def _pool(self, text: str, head: str) -> list[str]:
        objects = list(self.schema.objects)
        pos = len(head)
        if head.strip() == "":
            return ["SELECT", "FIND"]
        if re.search(r"\bRETURNING\b", head, re.I):
            sosl_obj = SOSL_OBJ.search(head)
            if sosl_obj:
                obj = self.schema.object(sosl_obj.group(1))
                return (self._names(obj) if obj else []) + ["WHERE", "LIMIT", "ORDER BY"]
        keyword = LAST_KEYWORD.search(head)
        if keyword and keyword.group(1).upper() in ("FROM", "RETURNING"):
            start, _ = _scope(text, pos)
            children: list[str] = []
            if start > 0:  # FROM inside a subquery: the outer object's child relationships
                outer = self._scope_object(text, start - 1)
                if outer is not None:
                    children = [r.name for r in self.schema.child_relationships(outer.name)]
            return children + objects
        obj = self._scope_object(text, pos)
        fields = self._names(obj) if obj else []
        return fields + list(KEYWORDS) + ([] if obj else objects)

    def _from_object(self, text: str, head: str) -> ObjectDef | None:
        return self._scope_object(text, len(head))

    def _scope_object(self, text: str, pos: int) -> ObjectDef | None:
        """The FROM object of the (sub)query that position `pos` lies in."""
        start, end = _scope(text, pos)
        match = FROM_OBJ.search(_drop_nested(text[start:end]))
        return self._object(match.group(1)) if match else None

    def _walk(self, obj: ObjectDef | None, path: list[str]) -> ObjectDef | None:
        for part in path:
            if obj is None:
                return None
            ref = next(
                (f for f in obj.fields if (f.relationship_name or "").lower() == part.lower()), None
            )
            if ref is None or ref.reference_to is None:
                return None
            obj = self.schema.object(ref.reference_to)
        return obj


def _drop_nested(text: str) -> str:
    """`text` with every parenthesised part removed (subqueries do not count)."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _scope(text: str, pos: int) -> tuple[int, int]:
    """Start and end of the innermost `(SELECT ...)` around `pos`, or of the whole text."""
    stack: list[int] = []
    for i, ch in enumerate(text[:pos]):
        if ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            stack.pop()
    for open_at in reversed(stack):
        if re.match(r"\(\s*SELECT\b", text[open_at:], re.IGNORECASE):
            depth = 0
            for j in range(open_at, len(text)):
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        return open_at + 1, j
            return open_at + 1, len(text)
    return 0, len(text)
