"""The workspace's scratch pane: computations run in a worker through `Episode.compute` (so each
is a `compute` event, on the clock), outputs copied or saved to a file; the `r1`, `r2`, ...
tables it lists are the session's result sets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from crmarena_tui.scratch.save_target import export_folder, save_target, write_output
from crmarena_tui.screens.save_dialog import SaveChoice, SaveDialog
from crmarena_tui.screens.workspace_part import WorkspacePart, WorkspaceState

if TYPE_CHECKING:
    from collections.abc import Sequence

    from crmarena_tui.orgs.base import QueryResult
    from crmarena_tui.scratch.compute_output import ComputeOutput
    from crmarena_tui.scratch.result_tables import TableInfo
    from crmarena_tui.storage.models import Event
    from crmarena_tui.widgets.scratch_pane import ScratchPane


class WorkspaceScratch(WorkspacePart):
    """Computations and saved outputs; the screen hands it `ScratchPane.Run` and `SaveWanted`."""

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

    def __init__(self, state: WorkspaceState, *, pane: ScratchPane, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.pane = pane
        self.tables: list[TableInfo] = []  # r1, r2, ... as the scratch pane lists them
        self._token = 0
        self._saves = 0

    def replay(self, events: Sequence[Event]) -> None:
        """A resumed session's scratch pane: its tables, its inputs for `up`, its last output."""
        from crmarena_tui.scratch.compute_output import ComputeOutput
        from crmarena_tui.scratch.result_tables import result_sets

        self.tables = [s.info() for s in result_sets(events)]
        self.pane.show_tables(self.tables)
        computed = [e for e in events if e.kind == "compute" and isinstance(e.payload, dict)]
        for ev in computed:
            if text := str(ev.payload.get("text", "")).strip():
                self.pane.remember(text)
        if computed:
            self.pane.show_output(ComputeOutput.from_payload(computed[-1].payload))

    def add_table(self, number: int, text: str, result: QueryResult) -> None:
        """Query `r<number>` is done: list the table it made."""
        self.tables.append(table_info(number, text, result))
        self.pane.show_tables(self.tables)

    def run(self, text: str) -> None:
        """Compute `text` (enter in the scratch pane's input)."""
        if self.episode is None:
            self.not_open()
            return
        if not self.state.accepting:
            self.notify("This session is closed: nothing more is computed.", severity="warning")
            return
        self._token += 1
        self.pane.show_running(text)
        self.compute(self._token, text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compute")
    def compute(self, token: int, text: str) -> None:
        assert self.episode is not None
        self.post_message(self.Computed(token, self.episode.compute(text)))

    @on(Computed)
    def _computed(self, event: Computed) -> None:
        event.stop()
        if event.token == self._token:
            self.pane.show_output(event.output)

    @property
    def save_folder(self) -> Path | None:
        """Where saves are confined: a study's export folder (the person typing may be a
        participant on someone else's host: scratch/save_target.py), else None (anywhere)."""
        study = self.arena.options.study
        return export_folder(study) if study else None

    def save(self, output: ComputeOutput) -> None:
        """Ask where to save `output`, then write it (CSV, else tab-separated)."""
        self._saves += 1
        session = self.episode.session_id if self.episode else 0
        proposal = f"scratch-session{session}-{self._saves}.csv"
        folder = self.save_folder

        def chosen(choice: SaveChoice | None) -> None:
            if choice is not None:
                self.save_output(choice, output)

        dialog = SaveDialog(
            "the scratch output",
            proposal,
            lambda typed: save_target(typed, folder),
            where=str(folder) if folder else "",
        )
        self.app.push_screen(dialog, chosen)

    @work(thread=True, exit_on_error=False, group="save")
    def save_output(self, choice: SaveChoice, output: ComputeOutput) -> None:
        target = choice.path
        delimiter = "," if target.suffix.lower() == ".csv" else "\t"
        text = output.as_delimited(delimiter)
        try:
            confined = self.save_folder is not None
            write_output(target, text, overwrite=choice.overwrite, confined=confined)
        except FileExistsError:
            self.post_message(self.Saved(str(target), "it exists now: save again to replace it"))
            return
        except OSError as exc:
            self.post_message(self.Saved(str(target), f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Saved(str(target.resolve())))

    @on(Saved)
    def _saved(self, event: Saved) -> None:
        event.stop()
        if event.error:
            self.notify(f"Not saved: {event.error}", severity="error")
        else:
            self.notify(f"Saved to {event.path}")


def table_info(number: int, text: str, result: QueryResult) -> TableInfo:
    """The scratch table a query just made (`r<number>`)."""
    from crmarena_tui.orgs.base import shape_records
    from crmarena_tui.scratch.result_tables import ResultSet

    if result.error:
        return ResultSet(number, text, None, result.error).info()
    records = [{"count": result.total_size}] if result.count_only else result.records
    return ResultSet(number, text, shape_records(records)).info()
