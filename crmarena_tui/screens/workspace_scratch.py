"""The workspace's scratch pane: computations run in a worker through `Episode.compute` (so each
is a `compute` event, on the clock), outputs copied or saved to a file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message
from textual.widgets import TabbedContent

from crmarena_tui.screens.save_dialog import SaveDialog
from crmarena_tui.screens.workspace_submit import WorkspaceSubmit
from crmarena_tui.widgets.scratch_pane import ScratchPane

if TYPE_CHECKING:
    from collections.abc import Sequence

    from crmarena_tui.orgs.base import QueryResult
    from crmarena_tui.scratch.compute_output import ComputeOutput
    from crmarena_tui.scratch.result_tables import TableInfo
    from crmarena_tui.storage.models import Event


@dataclass
class Computed(Message):
    """A computation of the scratch pane is done. `token` guards against stale outputs."""

    token: int
    output: ComputeOutput


@dataclass
class Saved(Message):
    """An output was written to `path` (or `error` says why not)."""

    path: str
    error: str | None = None


class WorkspaceScratch(WorkspaceSubmit):
    """The scratch half of the workspace."""

    _compute_token = 0
    _saves = 0

    @property
    def scratch(self) -> ScratchPane:
        return self.query_one("#scratch", ScratchPane)

    def action_scratch(self) -> None:
        # the input focused at once (the keys typed next go to it), and again once the tab is
        # drawn (TabbedContent follows the focus back to the pane it had)
        self.query_one("#ws-tabs", TabbedContent).active = "tab-scratch"
        self.set_focus(self.scratch.input)
        self.call_after_refresh(self.scratch.input.focus)

    def show_tables(self, tables: list[TableInfo]) -> None:
        self.scratch.show_tables(tables)

    def replay_scratch(self, events: Sequence[Event]) -> None:
        """A resumed session's scratch pane: its inputs for `up`, its last output shown."""
        from crmarena_tui.scratch.compute_output import ComputeOutput

        computed = [e for e in events if e.kind == "compute" and isinstance(e.payload, dict)]
        for ev in computed:
            if text := str(ev.payload.get("text", "")).strip():
                self.scratch.remember(text)
        if computed:
            self.scratch.show_output(ComputeOutput.from_payload(computed[-1].payload))

    @staticmethod
    def table_info(number: int, text: str, result: QueryResult) -> TableInfo:
        """The scratch table a query just made (`r<number>`)."""
        from crmarena_tui.orgs.base import shape_records
        from crmarena_tui.scratch.result_tables import ResultSet

        if result.error:
            return ResultSet(number, text, None, result.error).info()
        records = [{"count": result.total_size}] if result.count_only else result.records
        return ResultSet(number, text, shape_records(records)).info()

    @on(ScratchPane.Run)
    def _compute(self, event: ScratchPane.Run) -> None:
        if self.episode is None:
            self.not_open()
            return
        if not self.accepting:
            self.notify("This session is closed: nothing more is computed.", severity="warning")
            return
        self._compute_token += 1
        self.scratch.show_running(event.text)
        self.run_compute(self._compute_token, event.text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compute")
    def run_compute(self, token: int, text: str) -> None:
        assert self.episode is not None
        self.post_message(Computed(token, self.episode.compute(text)))

    @on(Computed)
    def _computed(self, event: Computed) -> None:
        if event.token == self._compute_token:
            self.scratch.show_output(event.output)

    @on(ScratchPane.SaveWanted)
    def _save_wanted(self, event: ScratchPane.SaveWanted) -> None:
        self._saves += 1
        session = self.episode.session_id if self.episode else 0
        proposal = f"scratch-session{session}-{self._saves}.csv"
        output = event.output

        def chosen(path: str | None) -> None:
            if path:
                self.save_output(path, output)

        self.app.push_screen(SaveDialog("the scratch output", proposal), chosen)

    @work(thread=True, exit_on_error=False, group="save")
    def save_output(self, path: str, output: ComputeOutput) -> None:
        target = Path(path).expanduser()
        delimiter = "," if target.suffix.lower() == ".csv" else "\t"
        try:
            target.write_text(output.as_delimited(delimiter), encoding="utf-8")
        except OSError as exc:
            self.post_message(Saved(str(target), f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(Saved(str(target.resolve())))

    @on(Saved)
    def _saved(self, event: Saved) -> None:
        if event.error:
            self.notify(f"Not saved: {event.error}", severity="error")
        else:
            self.notify(f"Saved to {event.path}")
