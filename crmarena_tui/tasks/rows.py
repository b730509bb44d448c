"""Dataset rows to `Task` objects: field checks, pydantic validation, and shared repeated text.

Every task source (local JSON, parquet, the hub, the demo cache) ends here, so a broken row gets
the same message whatever it came from: the file, the row number, the row's idx and the field.
Besides the model's checks (tasks/model.py: idx in range, "Today's date" a date), a source is
refused when two rows share an idx (a task is known by `<source>#<idx>`: the second would never
run) or a row's task type is none of the catalogue's 22, unless its `LoadRules` allow it
(`--allow-duplicates` keeps the first row and says so in `notes`; `--allow-unknown-types`).

Rows of one source repeat long strings (the dataset's `metadata.optional` domain text is the same
few kilobytes in every row of a split): `tasks_from_rows` keeps one copy of each repeated value,
so 10,000 tasks hold that text once, not 10,000 times.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from crmarena_tui.errors import UserError

if TYPE_CHECKING:  # pydantic loads with the first row validated, not with this module
    from crmarena_tui.tasks.model import Task

T = TypeVar("T")
REQUIRED_FIELDS = ("idx", "task", "query", "answer", "reward_metric")
EXTRA_FIELDS = ("source", "org_type", "interactive")
ALLOWED_FIELDS = frozenset((*REQUIRED_FIELDS, *EXTRA_FIELDS, "metadata", "persona"))
MAX_IDX = 2**63 - 1  # the largest integer SQLite stores (a session keeps its task's idx)


class TaskLoadError(UserError, ValueError):
    """A task source could not be loaded; the message says what and where."""


@dataclasses.dataclass
class LoadRules:
    """What a task source may hold beyond the benchmark's rules, and what was let through."""

    allow_duplicates: bool = False  # rows repeating an idx are left out, the first kept
    allow_unknown_types: bool = False  # rows of a task type the catalogue does not have load
    notes: list[str] = dataclasses.field(default_factory=list)  # one line per row left out


class RowGate:
    """Admits a source's rows one at a time by their task type and idx, under `rules`."""

    def __init__(self, rules: LoadRules | None, where: str) -> None:
        self.rules = rules or LoadRules()
        self.where = where
        self.seen: dict[tuple[str, int], int] = {}  # (source, idx) -> its first row

    def admit(self, n: int, idx: int, task: str, source: str) -> bool:
        """True to keep row `n`; False to leave it out (a repeat, allowed and noted); raises
        `TaskLoadError` naming the file, row, idx and field otherwise."""
        from crmarena_tui.tasks.catalog import BY_NAME

        at = f"{self.where}: row {n} (idx {idx})"
        if task not in BY_NAME and not self.rules.allow_unknown_types:
            raise TaskLoadError(
                f"{at}: field 'task': unknown task type {task!r} (the 22 types: `crmarena-tui "
                "tasks types`); pass --allow-unknown-types to load it anyway"
            )
        first = self.seen.setdefault((source, idx), n)
        if first == n:
            return True
        if not self.rules.allow_duplicates:
            raise TaskLoadError(
                f"{at}: field 'idx': row {first} has the same idx, and a task is known by its "
                "idx, so one of them would never run; remove one, or pass --allow-duplicates "
                "to keep the first"
            )
        self.rules.notes.append(f"{at}: left out: row {first} has the same idx (kept)")
        return False


def check_fields(row: dict[str, Any]) -> None:
    """Refuse a row that lacks a dataset field or carries one the dataset does not have."""
    for field in REQUIRED_FIELDS:
        if field not in row:
            raise TaskLoadError(f"field '{field}' is missing")
    for field in row:
        if field not in ALLOWED_FIELDS:
            raise TaskLoadError(f"unknown field '{field}'")


def _text(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def validate_row(row: dict[str, Any], defaults: dict[str, Any]) -> Task:
    """One row as a Task: nulls read as the dataset means them (`answer` null is `[None]`)."""
    from pydantic import ValidationError

    from crmarena_tui.tasks.model import Task

    data = {**defaults, **{k: v for k, v in row.items() if v is not None or k == "answer"}}
    answer = data.get("answer")
    if answer is None:
        data["answer"] = [None]
    elif isinstance(answer, list):  # a number in a file's answer list reads as its text
        data["answer"] = [_text(a) for a in answer]
    if data.get("metadata") is None:
        data.pop("metadata", None)
    if data.get("persona") is None:
        data["persona"] = ""
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "row"
        if err["type"] == "missing":
            raise TaskLoadError(f"field '{field}' is missing") from None
        if field == "idx" and err["type"] in ("greater_than_equal", "less_than_equal"):
            raise TaskLoadError(
                f"field 'idx': must be from 0 to {MAX_IDX} (got {err.get('input')!r:.40})"
            ) from None
        if err["type"] == "value_error":  # the project's own check: its message says it all
            message = err["msg"].removeprefix("Value error, ")
            raise TaskLoadError(f"field '{field}': {message}") from None
        raise TaskLoadError(
            f"field '{field}': {err['msg']} (got {err.get('input')!r:.80})"
        ) from None


def string_pool() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A function that replaces each string value of a dict by the first equal string it has seen
    (one object, not just an equal one), in place. Usable as a `json` `object_hook`, so repeated
    text is dropped as soon as each object is parsed, before the next row is read."""
    seen: dict[str, str] = {}

    def share(obj: dict[str, Any]) -> dict[str, Any]:
        for key, value in obj.items():
            if isinstance(value, str):
                obj[key] = seen.setdefault(value, value)
        return obj

    return share


def tasks_from_rows(
    rows: list[Any],
    defaults: dict[str, Any],
    where: str,
    *,
    check: bool = False,
    rules: LoadRules | None = None,
) -> list[Task]:
    """Validated tasks in row order; `check` also refuses missing and unknown fields up front.

    A bad row raises `TaskLoadError("<where>: row <n> (idx <idx>): <field problem>")`; so do
    a repeated idx and an unknown task type, unless `rules` allow them (`RowGate`)."""
    return list(iter_tasks(rows, defaults, where, check=check, rules=rules))


def iter_tasks(
    rows: list[Any],
    defaults: dict[str, Any],
    where: str,
    *,
    check: bool = False,
    rules: LoadRules | None = None,
) -> Iterator[Task]:
    """`tasks_from_rows` one task at a time (checking a file need not hold every task)."""
    share = string_pool()
    defaults = share(dict(defaults))
    gate = RowGate(rules, where)
    for n, row in enumerate(rows):
        if isinstance(row, dict):
            row = share(dict(row))
            if isinstance(row.get("metadata"), dict):
                row["metadata"] = share(dict(row["metadata"]))
        task = named(row, n, where, lambda row: validate_row(row, defaults), check=check)
        if gate.admit(n, task.idx, task.task, task.source):
            yield task


def named(
    row: Any, n: int, where: str, convert: Callable[[dict[str, Any]], T], *, check: bool = False
) -> T:
    """`convert(row)` (row `n` of `where`), its `TaskLoadError` prefixed with where, the row and
    its idx: every task source reports a broken row in the same words."""
    if not isinstance(row, dict):
        raise TaskLoadError(f"{where}: row {n}: not a JSON object")
    try:
        if check:
            check_fields(row)
        return convert(row)
    except TaskLoadError as err:
        raise TaskLoadError(f"{where}: row {n} (idx {row.get('idx')}): {err}") from None
