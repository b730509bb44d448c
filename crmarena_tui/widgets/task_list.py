"""The task browser's list: one line per task, under a header (a `CursorList`).

It lists light rows (`tasks.table.TaskRow`); the task under the cursor is built in full when it
is asked for (`current`, `Chosen`), so 8,560 rows are drawn without 8,560 validated tasks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from crmarena_tui.session.task_orgs import NO_ORG_LABEL
from crmarena_tui.tasks.blind import BlindView, shown_query
from crmarena_tui.tasks.index import NEW, TaskStatus
from crmarena_tui.tasks.rows import TaskLoadError
from crmarena_tui.widgets.cursor_list import CursorList

if TYPE_CHECKING:
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskRow

COLUMNS: tuple[tuple[str, int], ...] = (
    ("Status", 8),
    ("#", 7),
    ("Type", 31),
    ("Org", 5),
    ("Mode", 8),
    ("Metric", 19),
    ("Query", 0),
)
BLIND_HIDDEN = frozenset({"Type", "Metric"})  # never shown in blind mode
QUEUE_STATUS = 12  # a study's queue says "in progress" in full
QUERY_MIN = 30  # the query column keeps at least this many cells: other columns give way first
NARROW_TYPE = 20
NARROWING: tuple[tuple[str, int], ...] = (  # in order: (column, new width; 0 drops it)
    ("Metric", 0),
    ("Type", NARROW_TYPE),
    ("Org", 0),
    ("Mode", 0),
    ("Type", 0),
)


def layout(width: int, *, blind: bool = False, queue: bool = False) -> list[tuple[str, int]]:
    """The columns shown in `width` cells: the query keeps at least `QUERY_MIN` of them (the
    metric goes first, then the type narrows, then org, mode and type go); `queue`: a study's
    queue (blind, a wider status)."""
    widths = {name: w for name, w in COLUMNS if not ((blind or queue) and name in BLIND_HIDDEN)}
    if queue:
        widths["Status"] = QUEUE_STATUS
    for name, narrower in NARROWING:
        if width - sum(widths.values()) >= QUERY_MIN:
            break
        if name in widths:
            if narrower:
                widths[name] = min(widths[name], narrower)
            else:
                del widths[name]
    return list(widths.items())


def _cell(text: str, width: int) -> str:
    if width <= 0:
        return text
    if len(text) > width - 1:
        text = text[: width - 2] + "…"
    return text.ljust(width)


class TaskList(CursorList):
    """Tasks as one line each; `enter` posts `TaskList.Chosen` for the task under the cursor.

    The columns fit the width (`layout`); a blind `view` hides type and metric and numbers the
    tasks; a chat task's hidden request is never shown (`shown_query`)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "task-list--header",
        "task-list--cursor",
        "task-list--done",
        "task-list--started",
        "task-list--no-org",
    }
    DEFAULT_CSS = """
    TaskList { height: 1fr; }
    TaskList > .task-list--header { text-style: bold; background: $panel; }
    TaskList > .task-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    TaskList > .task-list--done { color: $success; }
    TaskList > .task-list--started { color: $warning; }
    TaskList > .task-list--no-org { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Open task", id="task-list.choose")
    ]
    HEADER_LINES = 1
    CURSOR_COMPONENT = "task-list--cursor"

    @dataclass
    class Chosen(Message):
        task_list: TaskList
        task: Task

        @property
        def control(self) -> TaskList:
            return self.task_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._tasks: Sequence[TaskRow] = ()
        self._rows: Sequence[int] = ()
        self._statuses: dict[str, TaskStatus] = {}
        self.view = BlindView()
        self._columns: tuple[int, list[tuple[str, int]]] | None = None
        self.no_org: frozenset[str] = frozenset()  # keys of tasks no org here can answer

    # data -------------------------------------------------------------------------------------

    def set_tasks(
        self,
        tasks: Sequence[TaskRow],
        statuses: dict[str, TaskStatus],
        view: BlindView | None = None,
    ) -> None:
        """`tasks` in the order to list them; `view` numbers them (blind mode)."""
        self._tasks = tasks
        self._statuses = statuses
        self.view = view or BlindView()
        self._columns = None
        self.show(range(len(tasks)))

    def set_no_org(self, keys: frozenset[str]) -> None:
        """Mark these tasks "no org" in the status column (while not started)."""
        self.no_org = keys
        self._line_cache.clear()
        self.refresh()

    def set_statuses(self, statuses: dict[str, TaskStatus]) -> None:
        self._statuses = statuses
        self._line_cache.clear()
        self.refresh()

    def show(self, rows: Sequence[int]) -> None:
        """Show the tasks at these positions, cursor on the first."""
        self._rows = rows
        self._line_cache.clear()
        self.virtual_size = Size(self._width(), len(rows) + 1)
        self.scroll_to(y=0, animate=False)
        self.cursor = 0
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def current(self) -> Task | None:
        """The task under the cursor, built in full (blocking: may read the task source)."""
        row = self.current_row
        return self._full(row) if row is not None else None

    @property
    def current_row(self) -> TaskRow | None:
        if 0 <= self.cursor < len(self._rows):
            return self._tasks[self._rows[self.cursor]]
        return None

    def visible_tasks(self) -> list[TaskRow]:
        """Every task the list shows, in order (as rows)."""
        return [self._tasks[i] for i in self._rows]

    # actions ----------------------------------------------------------------------------------

    def _full(self, row: TaskRow) -> Task | None:
        try:
            return row.full()
        except TaskLoadError as err:  # a broken row of a file whose full check is not done yet
            self.notify(str(err), title="Cannot open this task", severity="error", timeout=15)
            return None

    def action_choose(self) -> None:
        task = self.current
        if task is not None:
            self.post_message(self.Chosen(self, task))

    def clicked(self, row: int, chain: int) -> None:
        if row == self.cursor and chain >= 2:
            self.action_choose()
        self.cursor = row

    # rendering --------------------------------------------------------------------------------

    def columns(self) -> list[tuple[str, int]]:
        """The columns at the current width (see `layout`)."""
        width = self.scrollable_content_region.width or self.size.width
        if self._columns is None or self._columns[0] != width:
            queue = bool(self.view.queue)
            self._columns = (width, layout(width, blind=self.view.enabled, queue=queue))
        return self._columns[1]

    def on_resize(self) -> None:
        self._line_cache.clear()
        self.virtual_size = Size(self._width(), self.row_count + 1)

    def _width(self) -> int:
        return sum(w for _, w in self.columns()) + 80

    def render_header(self, scroll_x: int, width: int) -> Strip:
        header = "".join(_cell(name, w) for name, w in self.columns())
        hstyle = self.get_component_rich_style("task-list--header")
        return Strip([Segment(header, hstyle)]).crop_extend(scroll_x, scroll_x + width, hstyle)

    def _segments(self, row: int, selected: bool) -> list[Segment]:
        task = self._tasks[self._rows[row]]
        status = self._statuses.get(task.key, NEW)
        base: Style = (
            self.get_component_rich_style("task-list--cursor") if selected else self.base_style
        )
        status_style = base
        if not selected and status.state == "submitted":
            status_style = self.get_component_rich_style("task-list--done")
        elif not selected and status.state == "in progress":
            status_style = self.get_component_rich_style("task-list--started")
        cells = {
            "#": self.view.number(task),
            "Type": task.task.replace("_", " "),
            "Org": task.org_type,
            "Mode": "chat" if task.interactive else "single",
            "Metric": task.reward_metric,
            "Query": shown_query(task)[:200],
        }
        columns = self.columns()
        label = status.queue_label if self.view.queue else status.label
        if not label and task.key in self.no_org:
            label = NO_ORG_LABEL
            status_style = base if selected else self.get_component_rich_style("task-list--no-org")
        rest = "".join(_cell(cells[name], w) for name, w in columns[1:])
        return [
            Segment(_cell(label, columns[0][1]), status_style),
            Segment(rest, base),
        ]
