"""The screen every app screen derives from: worker failures go to one place, the app; `escape`
and quit lead the footer, so a narrow terminal (80 columns) never cuts them off.

Every screen also has `f1` (its keys, `KeysScreen`) and `f10` (maximize the focused pane, and
restore it; `escape` restores too, as Textual's `ESCAPE_TO_MINIMIZE` does). A pane is a widget of
class `panel` with a title in its border (`border_title`); the pane holding the focus is marked
twice, by its border's colour and line (app.tcss) and by `FOCUS_MARK` before its title, since
colour alone is not enough (issue 36).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, cast

from textual import events, on
from textual.binding import ActiveBinding, Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from crmarena_tui.screens.arena import Arena

FOCUS_MARK = "▶ "


class BaseScreen(Screen):
    """A screen of this app: `arena` is the typed app; failed workers are reported, never fatal."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "keys", "Keys", id="screen.keys"),
        Binding("f10", "maximize_pane", "Maximize", id="screen.maximize"),
    ]

    @property
    def arena(self) -> Arena:
        return cast("Arena", self.app)

    FOOTER_FIRST: ClassVar[tuple[str, ...]] = ("keys",)
    """Actions the footer shows first, in this order, after `escape` and quit."""
    FOOTER_LAST: ClassVar[tuple[str, ...]] = ("maximize_pane",)
    """Actions the footer shows after every other (unless in `FOOTER_FIRST`)."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's active bindings with `escape`, quit and `FOOTER_FIRST` first, `FOOTER_LAST`
        last: the footer (and the command palette) list them in this order, and a footer too
        wide for the terminal loses its tail. `f10` says Restore while a pane is maximized."""
        bindings = super().active_bindings
        first, last = self.FOOTER_FIRST, self.FOOTER_LAST

        def rank(item: tuple[str, ActiveBinding]) -> int:
            key, active = item
            action = active.binding.action
            if key == "escape":
                return 0
            if action == "quit":
                return 1
            if action in first:
                return 2 + first.index(action)
            return 100 if action in last else 50

        ordered = dict(sorted(bindings.items(), key=rank))  # (stable: the rest keep their order)
        if self.maximized is not None:
            for key, active in ordered.items():
                if active.binding.action == "maximize_pane":
                    restore = replace(active.binding, description="Restore")
                    ordered[key] = active._replace(binding=restore)
        return ordered

    def action_keys(self) -> None:
        """`f1`: the keys of this screen."""
        from crmarena_tui.screens.keys_screen import KeysScreen

        self.app.push_screen(KeysScreen(self))

    def action_maximize_pane(self) -> None:
        """`f10`: the pane holding the focus fills the screen; again, it is restored."""
        if self.maximized is not None:
            self.minimize()
        elif (pane := self.focused_pane()) is not None:
            self.maximized = pane
        elif self.focused is not None:
            self.maximize(self.focused)
        self.refresh_bindings()

    def watch_maximized(self) -> None:
        self.refresh_bindings()  # (f10 says Maximize or Restore; escape restores too)

    def focused_pane(self) -> Widget | None:
        """The pane (a widget of class `panel`) holding the focus, if any."""
        focused = self.focused
        if focused is None:
            return None
        for node in (focused, *focused.ancestors):
            if isinstance(node, Widget) and node.has_class("panel"):
                return node
        return None

    def _mark_focused_pane(self) -> None:
        pane = self.focused_pane()
        for panel in self.query(".panel"):
            title = str(panel.border_title or "").removeprefix(FOCUS_MARK)
            panel.border_title = FOCUS_MARK + title if panel is pane else title

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._mark_focused_pane()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.call_after_refresh(self._mark_focused_pane)  # (the next focus may not be known yet)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.arena.report_worker_error(event.worker)
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """Hook: put the screen back in a usable state after `worker` failed (already shown)."""
