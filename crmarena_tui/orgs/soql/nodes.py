"""The parsed form of SOQL and SOSL statements (what the grammar's transformer builds)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Path:
    """A field reference: `Name`, `Owner.Name`, `Order.Account.ShippingState`."""

    parts: tuple[str, ...]
    pos: int

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@dataclass(slots=True)
class Call:
    """A function: `COUNT()`, `COUNT(Id)`, `CALENDAR_MONTH(CreatedDate)`, `toLabel(Status)`."""

    name: str
    arg: Path | Call | None
    pos: int

    @property
    def text(self) -> str:
        inner = self.arg.text if self.arg is not None else ""
        return f"{self.name}({inner})"


Expr = Path | Call


@dataclass(slots=True)
class SelectItem:
    expr: Expr
    alias: str | None = None


@dataclass(slots=True)
class TypeOf:
    """`TYPEOF What WHEN Account THEN Phone, Name ... ELSE Name END`: the fields to read from a
    polymorphic reference, chosen by the type of the record it points to."""

    field: str
    pos: int
    whens: list[tuple[str, int, list[Path]]]  # (object, its position, its fields)
    otherwise: list[Path] | None = None  # the ELSE fields


@dataclass(slots=True)
class ChildSelect:
    query: Query
    pos: int


@dataclass(slots=True)
class Value:
    """A literal: kind is string, number, date, datetime or word (TRUE, NULL, TODAY, LAST_N_DAYS)."""

    kind: str
    value: Any
    raw: str
    pos: int
    n: int | None = None  # the :n of LAST_N_DAYS:n


@dataclass(slots=True)
class Compare:
    """`lhs op value`; op is = != < <= > >= like in includes excludes. `negated` for NOT IN/LIKE."""

    lhs: Expr
    op: str
    value: Value | list[Value] | Query
    pos: int
    negated: bool = False


@dataclass(slots=True)
class BoolOp:
    op: str  # "and" | "or"
    items: list[Condition]
    op_pos: int = 0  # where its first operator is
    grouped: bool = False  # written inside parentheses


@dataclass(slots=True)
class Not:
    item: Condition
    pos: int = 0
    grouped: bool = False


Condition = Compare | BoolOp | Not


@dataclass(slots=True)
class OrderItem:
    expr: Expr
    desc: bool = False
    nulls: str | None = None  # "first" | "last" | None (Salesforce's default)


@dataclass(slots=True)
class Query:
    select: list[SelectItem | ChildSelect | TypeOf]
    object: str
    object_pos: int
    where: Condition | None = None
    group_by: list[Expr] = field(default_factory=list)
    having: Condition | None = None
    order_by: list[OrderItem] = field(default_factory=list)
    limit: int | None = None
    offset: int | None = None


@dataclass(slots=True)
class Returning:
    """One `Obj(fields WHERE ... ORDER BY ... LIMIT n)` of a SOSL RETURNING clause."""

    object: str
    object_pos: int
    select: list[SelectItem | ChildSelect | TypeOf] | None = None
    where: Condition | None = None
    order_by: list[OrderItem] = field(default_factory=list)
    limit: int | None = None
    offset: int | None = None


@dataclass(slots=True)
class Search:
    term: str
    term_pos: int
    quoted: bool = False  # written 'term' (Apex's form) rather than {term} (the API's)
    scope: str = "ALL"  # ALL | NAME | EMAIL | PHONE
    returning: list[Returning] = field(default_factory=list)
    limit: int | None = None
