"""The join screen of a study: `serve --study NAME` shows it to every browser connection, and
`play --study NAME` without `--as` opens on it. It asks for a participant's name and join code
(printed by `study create`) and covers the app until they match: no task, no other screen and no
command palette is reachable before (quit is). A wrong code or an unknown name (one message for
both: `studies/joins.py`), a name locked after too many wrong codes or a closed study is said in
one line, and the participant tries again, each refusal of this connection shown later than the
one before (1 s, 2 s, 4 s... up to a minute). Each field takes at most `MAX_FIELD` characters: a
longer paste is refused whole, so a pasted novel costs the process nothing."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Label, Static

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.studies.joins import first_refusal_delay
from crmarena_tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.worker import Worker

    from crmarena_tui.studies.mode import StudyMode


LABELS = {"join-name": "Your name", "join-code": "Join code"}
MAX_FIELD = 128  # characters in each field: a longer paste is refused whole (issue 38)


class JoinScreen(BaseScreen):
    """Dismisses once the participant is seated: `seat` (the app's `study.take_seat`) is called
    from the checking worker with the participant's seat."""

    AUTO_FOCUS = "#join-name"
    REFUSAL_DELAY = 1.0  # seconds before the first refusal shows, doubled for each next one
    MAX_REFUSAL_DELAY = 60.0

    @dataclass
    class Seated(Message):
        mode: StudyMode

    @dataclass
    class Refused(Message):
        reason: str

    def __init__(self, study: str, seat: Callable[[StudyMode], None]) -> None:
        super().__init__()
        self.study = study
        self.seat = seat
        self._palette = True
        self.refusals = 0  # refusals on this connection (the worker counts them)
        self.first_delay = first_refusal_delay(self.REFUSAL_DELAY)  # the setting, else that

    def compose(self) -> ComposeResult:
        with Vertical(id="join-box"):
            yield Label(f"[b]Study {escape(self.study)}[/]", id="join-title")
            yield Static(
                "Enter your participant name and the join code you were given. Your tasks open "
                "once they match.",
                id="join-help",
            )
            yield Static(f"  {LABELS['join-name']}", id="join-name-label")
            yield Input(placeholder="your name", id="join-name", max_length=MAX_FIELD)
            yield Static(f"  {LABELS['join-code']}", id="join-code-label")
            yield Input(placeholder="join code", id="join-code", max_length=MAX_FIELD)
            yield Static("", id="join-message")
        yield KeyFooter(show_command_palette=False)

    def on_mount(self) -> None:
        self._palette = self.app.use_command_palette
        self.app.use_command_palette = False  # nothing else of the app before joining

    def on_unmount(self) -> None:
        self.app.use_command_palette = self._palette

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Mark the field that has the focus with ▶ (also visible without colours)."""
        for field, label in LABELS.items():
            marker = "▶ " if event.widget.id == field else "  "
            self.query_one(f"#{field}-label", Static).update(marker + label)

    @property
    def name_input(self) -> Input:
        return self.query_one("#join-name", Input)

    @property
    def code_input(self) -> Input:
        return self.query_one("#join-code", Input)

    def _say(self, text: str) -> None:
        self.query_one("#join-message", Static).update(text)

    @on(Input.Submitted, "#join-name")
    def _name_given(self) -> None:
        if self.name_input.value.strip():
            self.set_focus(self.code_input)  # now: the code typed at once goes to its field

    @on(Input.Submitted, "#join-code")
    def _code_given(self) -> None:
        name = " ".join(self.name_input.value.split())
        code = self.code_input.value.strip()
        if not name or not code:
            self._say("[b yellow]Enter both your name and your join code.[/]")
            self.set_focus(self.code_input if name else self.name_input)
            return
        # the keys typed while the code is checked wait: for the code field after a refusal,
        # for the tasks once seated
        self.arena.key_gate.hold(self, "the join code to be checked")
        self.name_input.disabled = self.code_input.disabled = True
        self._say("[dim]checking…[/]")
        self.check(name, code)

    @work(thread=True, exclusive=True, exit_on_error=False, group="join")
    def check(self, name: str, code: str) -> None:
        from crmarena_tui.studies.mode import open_study
        from crmarena_tui.studies.model import StudyError

        try:
            mode = open_study(self.arena.sessions_store(), self.study, name, code)
        except StudyError as exc:
            self.refusals += 1
            time.sleep(self.refusal_delay(self.refusals))
            self.post_message(self.Refused(str(exc)))
            return
        self.seat(mode)
        self.post_message(self.Seated(mode))

    def refusal_delay(self, refusals: int) -> float:
        """Seconds before the `refusals`-th refusal of this connection shows: guessing stays
        slow, and slower the longer it goes on."""
        return min(self.first_delay * 2.0 ** (refusals - 1), self.MAX_REFUSAL_DELAY)

    @on(Refused)
    def _refused(self, event: Refused) -> None:
        reason = event.reason[:1].upper() + event.reason[1:]
        self._say(f"[b red]{escape(reason)}.[/] Check them and try again.")
        self.name_input.disabled = self.code_input.disabled = False
        self.code_input.value = ""
        self.set_focus(self.code_input)  # now, not deferred: the keys held go to the code
        self.arena.key_gate.release(self)

    @on(Seated)
    def _seated(self) -> None:
        self.dismiss()
        self.arena.key_gate.release(self)

    def worker_failed(self, worker: Worker) -> None:
        self._say("[b red]Could not check: see the notice.[/] Try again.")
        self.name_input.disabled = self.code_input.disabled = False
        self.set_focus(self.code_input)
        self.arena.key_gate.release(self)
