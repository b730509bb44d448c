"""The report over the sessions database: success by participant x task type and skill, human
time per task (median and spread), human vs agent on shared tasks, label counts and annotator
agreement, as the tables `crmarena-tui report` prints plus terminal bar charts.

In hidden-labels mode the label counts are the annotator's own; agreement (kappa) still shows, as
it reveals no one's labels.

Two chips above the tabs keep one org type and one mode (single-turn or chat), as `report
--org-type --mode` does; the other filters come with the screen (`ReportScreen(only=...)`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from crmarena_tui.reports.filters import NO_FILTER, ReportFilter
from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.widgets.choice_chip import ChoiceChip
from crmarena_tui.widgets.key_footer import KeyFooter

TABS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    # id, title, report sections in the tables, charts
    (
        "success",
        "Success",
        ("overall", "by_task_type", "by_skill", "provenance"),
        ("success", "skill"),
    ),
    ("time", "Human time", ("human_time",), ("time",)),
    ("versus", "Human vs agent", ("human_vs_agent",), ("versus",)),
    (
        "labels",
        "Labels & agreement",
        ("labels", "agreement", "agreement_presence", "agreement_fleiss", "agreement_scanners"),
        ("labels",),
    ),
    ("costs", "Cost & time", ("efficiency",), ()),
)
SECTIONS = (
    "provenance",
    "efficiency",
    "paired",
    "overall",
    "by_task_type",
    "by_skill",
    "human_time",
    "human_vs_agent",
    "labels",
    "agreement",
    "agreement_presence",
    "agreement_fleiss",
    "agreement_scanners",
)

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.worker import Worker

    from crmarena_tui.storage.store import Store


def section_report(report: dict[str, Any], keep: tuple[str, ...]) -> dict[str, Any]:
    """The report with only the `keep` sections filled (for rendering one tab's tables)."""
    return {**report, **{k: ({} if k == "labels" else []) for k in SECTIONS if k not in keep}}


def load_report(
    store: Store,
    me: str,
    hidden: bool,
    only: ReportFilter = NO_FILTER,
    cancelled: Callable[[], bool] = lambda: False,
) -> dict[str, Any]:
    """Blocking: the report of the sessions `only` keeps; in hidden mode the label counts cover
    only `me`'s labels. Raises `ReportCancelled` as soon as `cancelled` says True."""
    from crmarena_tui.reports.labels import labels_of
    from crmarena_tui.reports.report_groups import label_owners
    from crmarena_tui.reports.summary import build_report
    from crmarena_tui.reports.trajectory import visible

    report = build_report(store, only=only, cancelled=cancelled)
    if hidden:
        people = {p.id: p for p in store.participants()}
        own = visible(store.annotations.find(), me, True)
        owners = label_owners(store, {a.session_id for a in own}, people, only)
        report["labels"] = labels_of([a for a in own if a.session_id in owners], owners)
    report["hidden_labels"] = hidden
    return report


class ReportScreen(BaseScreen):
    """Tabs of tables and charts; `f5` recomputes. The focus starts on the tabs (left and
    right switch them), not on the filters above (where right would pick an org type)."""

    AUTO_FOCUS = "#rp-tabs Tabs"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f5", "reload", "Refresh", id="report.reload"),
        Binding("escape", "back", "Back", id="report.back"),
    ]

    @dataclass
    class Loaded(Message):
        report: dict[str, Any]
        only: ReportFilter = NO_FILTER  # the filter it was computed for

    def __init__(self, only: ReportFilter = NO_FILTER) -> None:
        super().__init__()
        self.report: dict[str, Any] | None = None
        self.only = only

    def compose(self) -> ComposeResult:
        yield Static("[dim]computing the report…[/]", id="rp-top")
        with Horizontal(id="rp-filters"):
            yield ChoiceChip(
                [("b2b", "b2b"), ("b2c", "b2c"), ("original", "original")],
                prompt="every org type",
                id="rp-org-type",
            )
            yield ChoiceChip(
                [("single-turn", "single"), ("chat", "chat")], prompt="every mode", id="rp-mode"
            )
        with TabbedContent(id="rp-tabs"):
            for tab_id, title, _, _ in TABS:
                with TabPane(title, id=f"rp-tab-{tab_id}"):
                    yield VerticalScroll(id=f"rp-{tab_id}")
        yield KeyFooter()

    def on_mount(self) -> None:
        for chip, value in (("#rp-org-type", self.only.org_type), ("#rp-mode", self.only.mode)):
            if value:
                with self.prevent(ChoiceChip.Changed):
                    self.query_one(chip, ChoiceChip).value = value
        self.query_one("#rp-tabs").loading = True
        self.load()

    @on(ChoiceChip.Changed)
    def _filter_changed(self) -> None:
        from dataclasses import replace

        org_type = self.query_one("#rp-org-type", ChoiceChip).value or None
        mode = self.query_one("#rp-mode", ChoiceChip).value or None
        self.only = replace(self.only, org_type=org_type, mode=mode)
        self.action_reload()

    @work(thread=True, exclusive=True, exit_on_error=False, group="report-load")
    def load(self) -> None:
        arena = self.arena
        store = arena.sessions_store()
        hidden = arena.hidden_labels
        if hidden is None:
            hidden = arena.settings.hidden_labels
        only = self.only
        from crmarena_tui.reports.summary import ReportCancelled

        worker = get_current_worker()
        try:
            report = load_report(
                store, arena.participant_name or "", hidden, only, lambda: worker.is_cancelled
            )
        except ReportCancelled:
            return  # the screen was left (or a newer load replaced this one)
        if not worker.is_cancelled:
            self.post_message(self.Loaded(report, only))

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "report-load")  # leaving stops the computation

    def worker_failed(self, worker: Worker) -> None:
        self.query_one("#rp-tabs").loading = False
        self.query_one("#rp-top", Static).update(
            f"[b red]cannot compute the report: {escape(str(worker.error))}[/]"
        )

    @on(Loaded)
    async def _loaded(self, event: Loaded) -> None:
        from crmarena_tui.reports.render import render_report
        from crmarena_tui.widgets.report_charts import ReportChart, legend

        if event.only != self.only:  # a filter changed since: a newer load is coming
            return
        report = self.report = event.report
        hidden = (
            " · [yellow]only your labels (hidden-labels mode)[/]" if report["hidden_labels"] else ""
        )
        kept = ", ".join(
            f"{v if isinstance(v, str) else ', '.join(v)}"
            for v in (report.get("filter") or {}).values()
            if v
        )
        kept = f" · [cyan]only {escape(kept)}[/]" if kept else ""
        self.query_one("#rp-top", Static).update(
            f"[b]Report[/] · {report['graded_sessions']} graded sessions{kept}{hidden}"
        )
        for tab_id, _, sections, charts in TABS:
            pane = self.query_one(f"#rp-{tab_id}", VerticalScroll)
            await pane.remove_children()
            widgets: list[Widget] = []
            for c in charts:
                chart = ReportChart(c, report, id=f"rp-chart-{c}")
                widgets.append(chart)
                if chart.labels and len(chart.names) > 1:
                    widgets.append(Static(legend(chart.names), id=f"rp-legend-{c}"))
            widgets.append(
                Static(render_report(section_report(report, sections)), id=f"rp-tables-{tab_id}")
            )
            await pane.mount_all(widgets)
        self.query_one("#rp-tabs").loading = False

    def action_reload(self) -> None:
        self.query_one("#rp-tabs").loading = True
        self.load()

    def action_back(self) -> None:
        self.workers.cancel_group(self, "report-load")  # no computation after `escape`
        self.app.pop_screen()
