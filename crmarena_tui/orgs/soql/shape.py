"""Rows to Salesforce-shaped records: typed values, `attributes`, nested parents and children."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from crmarena_tui.orgs.base import API_VERSION

URL_PREFIX = f"/services/data/{API_VERSION}/sobjects/"
AGGREGATE_TYPE = "AggregateResult"

Converter = Callable[[Any], Any] | None


def _to_bool(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, str):
        return v.strip().lower() in ("1", "true", "t", "yes")
    return bool(v)


def _to_int(v: Any) -> Any:
    if v is None or isinstance(v, int):
        return v
    try:
        return int(float(v))
    except (TypeError, ValueError):
        return v


def _to_float(v: Any) -> Any:
    if v is None or isinstance(v, float):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


_CONVERTERS: dict[str, Converter] = {
    "boolean": _to_bool,
    "int": _to_int,
    "double": _to_float,
    "currency": _to_float,
    "percent": _to_float,
}


def converter(field_type: str) -> Converter:
    """How a stored value of this type becomes a JSON value (None: as stored)."""
    return _CONVERTERS.get(field_type)


def attributes(type_name: str, record_id: Any) -> dict[str, str]:
    return {"type": type_name, "url": f"{URL_PREFIX}{type_name}/{record_id}"}


@dataclass(slots=True)
class FieldSlot:
    key: str
    col: int
    convert: Converter = None


@dataclass(slots=True)
class ParentSlot:
    key: str
    type_name: str
    id_col: int
    slots: list[Slot] = field(default_factory=list)


@dataclass(slots=True)
class ChildSlot:
    key: str
    index: int  # which of the plan's child queries fills it


@dataclass(slots=True)
class ConstSlot:
    """A value known when the query is compiled (the Name object's `Type` in a TYPEOF ELSE)."""

    key: str
    value: Any = None


@dataclass(slots=True)
class TypeOfSlot:
    """A TYPEOF: the first branch whose record was found gives the nested record (WHEN objects in
    order, then the objects the ELSE may read); a reference no branch reads gives attributes
    only, its type read from the Id's key prefix (`types`)."""

    key: str
    ref_col: int
    branches: list[ParentSlot]
    types: dict[str, str] = field(default_factory=dict)


Slot = FieldSlot | ParentSlot | ChildSlot | ConstSlot | TypeOfSlot


def find_slot(slots: list[Slot], key: str) -> Slot | None:
    for s in slots:
        if s.key == key:
            return s
    return None


def build_record(
    row: Sequence[Any],
    slots: list[Slot],
    type_name: str,
    id_col: int,
    children: list[dict[Any, Any]] | None = None,
) -> dict[str, Any]:
    """One record; `children[i]` maps a parent Id to the nested result of child query i."""
    rec: dict[str, Any] = {"attributes": attributes(type_name, row[id_col])}
    for s in slots:
        if type(s) is FieldSlot:
            v = row[s.col]
            rec[s.key] = s.convert(v) if s.convert is not None and v is not None else v
        elif type(s) is ParentSlot:
            rec[s.key] = (
                None if row[s.id_col] is None else build_record(row, s.slots, s.type_name, s.id_col)
            )
        elif type(s) is ConstSlot:
            rec[s.key] = s.value
        elif type(s) is TypeOfSlot:
            rec[s.key] = _typeof_record(row, s)
        else:
            rec[s.key] = children[s.index].get(row[id_col]) if children else None  # type: ignore[union-attr]
    return rec


def _typeof_record(row: Sequence[Any], s: TypeOfSlot) -> dict[str, Any] | None:
    ref = row[s.ref_col]
    if ref is None:
        return None
    for b in s.branches:
        if row[b.id_col] is not None:
            return build_record(row, b.slots, b.type_name, b.id_col)
    return {"attributes": attributes(s.types.get(str(ref)[:3], "Name"), ref)}


def build_aggregate(row: Sequence[Any], slots: list[FieldSlot]) -> dict[str, Any]:
    rec: dict[str, Any] = {"attributes": {"type": AGGREGATE_TYPE}}
    for s in slots:
        v = row[s.col]
        rec[s.key] = s.convert(v) if s.convert is not None and v is not None else v
    return rec


def child_result(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A child subquery's nested value: Salesforce gives null, not an empty list, for no rows."""
    if not records:
        return None
    return {"totalSize": len(records), "done": True, "records": records}
