"""One FROM object during translation: its table alias, parent joins and typed expressions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from crmarena_tui.orgs.schema import FieldDef, ObjectDef
from crmarena_tui.orgs.soql import nodes as n
from crmarena_tui.orgs.soql import rules
from crmarena_tui.orgs.soql.errors import SoqlError, bad_relationship, no_such_column
from crmarena_tui.orgs.soql.functions import AGGREGATES, DATE_FUNCTIONS, PASSTHROUGH
from crmarena_tui.orgs.soql.schema_index import NUMBER_TYPES, SchemaIndex, quote_ident

MAX_PATH_DEPTH = 5


@dataclass(slots=True)
class Column:
    """A typed SQL expression: a field (maybe through parents), a date function or an aggregate."""

    sql: str
    type: str
    fdef: FieldDef | None = None
    chain: list[tuple[str, ObjectDef, str]] = field(
        default_factory=list
    )  # (relationship, object, alias)
    aggregate: bool = False
    label: str = ""


class Scope:
    def __init__(
        self,
        index: SchemaIndex,
        obj: ObjectDef,
        alias: str,
        new_alias: Callable[[], str],
        *,
        strict: bool = False,
    ) -> None:
        self.ix = index
        self.obj = obj
        self.strict = strict
        self.alias = alias
        self._new_alias = new_alias
        self._joins: dict[tuple[str, ...], tuple[str, ObjectDef]] = {}
        self.join_sql: list[str] = []

    @property
    def from_sql(self) -> str:
        head = f"{quote_ident(self.obj.name)} AS {self.alias}"
        return " ".join([head, *self.join_sql])

    def resolve(self, path: n.Path) -> Column:
        parts = path.parts
        rels = parts[:-1]
        if (
            rels
            and rels[0].lower() == self.obj.name.lower()
            and self.ix.parent(self.obj, rels[0]) is None
        ):
            rels = rels[1:]
        if len(rels) > MAX_PATH_DEPTH:
            raise SoqlError(
                "MALFORMED_QUERY",
                f"relationship path '{path.text}' is deeper than {MAX_PATH_DEPTH} levels",
                path.pos,
            )
        obj, alias = self.obj, self.alias
        chain: list[tuple[str, ObjectDef, str]] = []
        key: tuple[str, ...] = ()
        polymorphic = False
        for rel in rels:
            hit = None if polymorphic else self.ix.parent(obj, rel)
            if hit is None:
                raise bad_relationship(rel, path.pos)
            ref, target = hit
            polymorphic = self.strict and bool(ref.polymorphic)
            rel_name = ref.relationship_name or rel
            key = (*key, rel_name)
            joined = self._joins.get(key)
            if joined is None:
                joined = (self._new_alias(), target)
                self._joins[key] = joined
                self.join_sql.append(
                    f"LEFT JOIN {quote_ident(target.name)} AS {joined[0]} "
                    f'ON {joined[0]}."Id" = {alias}.{quote_ident(ref.name)}'
                )
            chain.append((rel_name, target, joined[0]))
            alias, obj = joined[0], target
        if polymorphic:  # a parent that may be of several types is read as the Name object
            rules.check_name_field(parts[-1], path.pos)
        leaf = self.ix.field(obj, parts[-1])
        if leaf is None:
            raise no_such_column(parts[-1], obj.name, path.pos)
        return Column(f"{alias}.{quote_ident(leaf.name)}", leaf.type, leaf, chain, label=leaf.name)

    def expr(self, e: n.Expr, *, allow_aggregate: bool = False) -> Column:
        """A typed SQL expression for a path or a function call."""
        if isinstance(e, n.Path):
            return self.resolve(e)
        name = e.name.upper()
        if name in PASSTHROUGH:
            if e.arg is None:
                raise SoqlError("MALFORMED_QUERY", f"{e.name}() needs a field", e.pos)
            return self.expr(e.arg, allow_aggregate=allow_aggregate)
        if name in DATE_FUNCTIONS:
            template, typ, needs_datetime = DATE_FUNCTIONS[name]
            arg = self._arg(e)
            if (
                arg.aggregate
                or arg.type not in ("date", "datetime")
                or (needs_datetime and arg.type != "datetime")
            ):
                kind = "datetime" if needs_datetime else "date or datetime"
                raise SoqlError(
                    "INVALID_FIELD", f"{name} can only be used with a {kind} field: {e.text}", e.pos
                )
            return Column(template.format(x=arg.sql), typ, label=e.text)
        if name in AGGREGATES:
            if not allow_aggregate:
                raise SoqlError(
                    "MALFORMED_QUERY", f"aggregate function {name} is not allowed here", e.pos
                )
            return self._aggregate(e, name)
        raise SoqlError("MALFORMED_QUERY", f"unknown function '{e.name}'", e.pos)

    def _arg(self, e: n.Call) -> Column:
        if e.arg is None:
            raise SoqlError("MALFORMED_QUERY", f"{e.name}() needs a field", e.pos)
        return self.expr(e.arg)

    def _aggregate(self, e: n.Call, name: str) -> Column:
        if name == "COUNT" and e.arg is None:
            return Column("COUNT(*)", "int", aggregate=True, label="COUNT()")
        arg = self._arg(e)
        if arg.aggregate:
            raise SoqlError("MALFORMED_QUERY", f"nested aggregate in {e.text}", e.pos)
        if self.strict:
            rules.check_aggregate(arg.fdef, e)
        if name == "COUNT":
            return Column(f"COUNT({arg.sql})", "int", aggregate=True, label=e.text)
        if name == "COUNT_DISTINCT":
            return Column(f"COUNT(DISTINCT {arg.sql})", "int", aggregate=True, label=e.text)
        if name in ("SUM", "AVG"):
            if arg.type not in NUMBER_TYPES:
                raise SoqlError(
                    "INVALID_FIELD",
                    f"field {e.arg.text} does not support aggregate operator {name}",  # type: ignore[union-attr]
                    e.pos,
                )
            typ = "int" if name == "SUM" and arg.type == "int" else "double"
            return Column(f"{name}({arg.sql})", typ, aggregate=True, label=e.text)
        if arg.type == "textarea":
            raise SoqlError(
                "INVALID_FIELD",
                f"field {e.arg.text} does not support aggregate operator {name}",  # type: ignore[union-attr]
                e.pos,
            )
        return Column(f"{name}({arg.sql})", arg.type, arg.fdef, aggregate=True, label=e.text)
