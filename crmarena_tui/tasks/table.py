"""The task browser's light form of a task list: one small row per task, the `Task` on demand.

Starting the app on the 8,560 demo tasks must not wait for pydantic to validate every task, nor
hold 8,560 models: the browser lists `TaskRow`s (what its columns, filter and facets read) and a
task's full `Task` is built when it is opened (`TaskRow.full`). `tasks.loaders.load_task_table`
makes the table for a source:

- the demo sets read a small rows file next to their cache (`demo.tasks.demo_table`);
- a local .json/.jsonl file: its first rows are read from the start of the file and listed in
  the first frame (`first_table`, a `partial` table); then the app's tasks worker reads the whole
  file, every row checked for missing and unknown fields and for the fields a row shows (a row
  that is not plainly right goes through the pydantic model at once, so its message is the one
  `load_tasks` gives); the rest of the model (answer, metadata, persona) is checked by
  `TaskTable.problem`, which the app runs in a worker once the rows are on screen;
- hub splits and parquet files load in full, as `load_tasks` does (`TaskTable.of`).

No pydantic import here: the model loads with the first task validated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, overload

from crmarena_tui.tasks.rows import (
    MAX_IDX,
    LoadRules,
    RowGate,
    TaskLoadError,
    check_fields,
    iter_tasks,
    named,
    validate_row,
)

if TYPE_CHECKING:
    from crmarena_tui.tasks.model import Task

METRICS = frozenset(("exact_match", "fuzzy_match", "privacy_rejection"))
ORG_TYPES = frozenset(("b2b", "b2c", "original"))
MODEL_DEFAULTS: dict[str, Any] = {"source": "demo", "org_type": "b2b", "interactive": False}


class TaskHead(Protocol):
    """What the browser, its filter index and blind mode read of a task: a `Task` or a
    `TaskRow`."""

    @property
    def idx(self) -> int: ...
    @property
    def task(self) -> str: ...
    @property
    def query(self) -> str: ...
    @property
    def reward_metric(self) -> str: ...
    @property
    def org_type(self) -> str: ...
    @property
    def interactive(self) -> bool: ...
    @property
    def source(self) -> str: ...
    @property
    def key(self) -> str: ...


class TaskRow(NamedTuple):
    """One line of the task browser: the task's head, its position in `table` (how its full
    `Task` is found) and the table."""

    idx: int
    task: str
    query: str
    reward_metric: str
    org_type: str
    interactive: bool
    source: str
    pos: int
    table: TaskTable

    @property
    def key(self) -> str:
        """As `Task.key`: `<source>#<idx>`."""
        return f"{self.source}#{self.idx}"

    def full(self) -> Task:
        """Blocking (may read the task source): this row's `Task`, validated."""
        return self.table.full(self)


class TaskTable(Sequence[TaskRow]):
    """Rows in source order. `full_task(row)` builds a row's Task; `check()` validates every
    task in full and raises `TaskLoadError` naming the first broken row. `partial`: the first
    rows of a file, listed while the tasks worker reads the rest. Equal only to itself."""

    def __init__(
        self,
        full_task: Callable[[TaskRow], Task] | None = None,
        check: Callable[[], None] | None = None,
    ) -> None:
        self.rows: list[TaskRow] = []
        self._full_task = full_task
        self._check = check
        self.partial = False

    @classmethod
    def of(cls, tasks: Sequence[Task]) -> TaskTable:
        """The rows of tasks already built (hub splits, parquet files)."""
        table = cls(lambda row: tasks[row.pos])
        table.rows = [
            TaskRow(
                t.idx,
                t.task,
                t.query,
                t.reward_metric,
                t.org_type,
                t.interactive,
                t.source,
                i,
                table,
            )
            for i, t in enumerate(tasks)
        ]
        return table

    def full(self, row: TaskRow) -> Task:
        if self._full_task is None:
            raise LookupError("this task table builds no tasks")
        return self._full_task(row)

    def problem(self) -> str | None:
        """Blocking: what is wrong with the source's first broken task, None when every task
        validates (the same message `load_tasks` raises)."""
        from crmarena_tui.tasks.rows import TaskLoadError

        if self._check is not None:
            try:
                self._check()
            except TaskLoadError as err:
                return str(err)
        return None

    @overload
    def __getitem__(self, i: int) -> TaskRow: ...
    @overload
    def __getitem__(self, i: slice) -> list[TaskRow]: ...
    def __getitem__(self, i: int | slice) -> TaskRow | list[TaskRow]:
        return self.rows[i]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[TaskRow]:
        return iter(self.rows)

    def __repr__(self) -> str:  # a row holds its table: never print every row
        first = "the first " if self.partial else ""
        return f"<TaskTable of {first}{len(self.rows)} tasks>"


Head = tuple[int, str, str, str, str, bool, str]


def _head(row: dict[str, Any], defaults: dict[str, Any]) -> Head:
    """(idx, task, query, metric, org_type, interactive, source) of a raw row, validated as the
    model would; a row that is not plainly right is validated by the model itself."""
    if (head := _plain_head(row, defaults)) is not None:
        return head
    t = validate_row(row, defaults)  # raises the model's message, or coerces as it would
    return t.idx, t.task, t.query, t.reward_metric, t.org_type, t.interactive, t.source


def _plain_head(row: dict[str, Any], defaults: dict[str, Any]) -> Head | None:
    """A raw row's head when each of its fields is plainly what the model wants, else None."""

    def pick(name: str) -> Any:
        value = row.get(name)
        return defaults.get(name, MODEL_DEFAULTS.get(name)) if value is None else value

    idx, task, query, metric = pick("idx"), pick("task"), pick("query"), pick("reward_metric")
    org_type, interactive, source = pick("org_type"), pick("interactive"), pick("source")
    if (
        type(idx) is int
        and 0 <= idx <= MAX_IDX
        and type(task) is str
        and type(query) is str
        and isinstance(metric, str)
        and metric in METRICS
        and isinstance(org_type, str)
        and org_type in ORG_TYPES
        and type(interactive) is bool
        and type(source) is str
    ):
        return idx, task, query, metric, org_type, interactive, source
    return None


def table_from_rows(
    rows: list[Any], defaults: dict[str, Any], where: str, rules: LoadRules | None = None
) -> TaskTable:
    """A file's parsed rows as a table: fields, heads, repeated idx and task types checked now
    (`rules`), the rest by `check` (`tasks_from_rows(rows, defaults, where, check=True)` without
    holding the tasks)."""
    rules = rules or LoadRules()

    def full_task(row: TaskRow) -> Task:
        n = row.pos
        return named(rows[n], n, where, lambda raw: validate_row(raw, defaults))

    def check() -> None:  # (the rows left out were noted once, below)
        again = LoadRules(rules.allow_duplicates, rules.allow_unknown_types)
        for _ in iter_tasks(rows, defaults, where, check=True, rules=again):
            pass

    table = TaskTable(full_task, check)
    gate = RowGate(rules, where)
    for n, row in enumerate(rows):
        head = named(row, n, where, lambda raw: _head(raw, defaults), check=True)
        if gate.admit(n, head[0], head[1], head[6]):
            table.rows.append(TaskRow(*head, n, table))
    return table


def first_table(
    rows: list[dict[str, Any]], defaults: dict[str, Any], where: str, *, whole: bool = False
) -> TaskTable:
    """The first rows of a file as a `partial` table (empty when there are none): those before
    the first that is not plainly right, so pydantic is not imported before the first frame (the
    full read names what is wrong with that row). Not partial when they are the `whole` file's
    rows, every one plainly right: the full read would make the same table."""
    plain = []
    gate = RowGate(None, where)
    for n, row in enumerate(rows):
        try:
            check_fields(row)
            head = _plain_head(row, defaults)
            if head is None or not gate.admit(n, head[0], head[1], head[6]):
                break
        except TaskLoadError:  # (a repeated idx or an unknown type: the full read says so)
            break
        plain.append(row)
    table = table_from_rows(plain, defaults, where)
    table.partial = bool(plain) and not (whole and len(plain) == len(rows))
    return table
