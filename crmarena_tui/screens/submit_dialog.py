"""Submit the final answer, built exactly: typed text, items picked, or a decline.

- Text: the answer input is focused; `enter` submits it (free text is read by the grader's
  extractor, or compared as it is when it equals the ground truth).
- Picked items: Ids from the session's result sets and scratch outputs, and the values the task's
  answer is made of (states, months, stages, BANT factors, "None"); `space` marks, `ctrl+s`
  submits the marked items, compared directly (nothing is guessed).
- Both typed text and marked items: `enter` or `ctrl+s` asks which one is sent (`WhichAnswer`:
  `t` the text, `m` the marked items, `escape` back); neither is dropped without a word.
- Decline: on privacy or confidentiality grounds, with a short reason; `ctrl+d`. Offered on every
  task, so its presence tells nothing about the task.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from crmarena_tui.graders.answer_choices import Choice, describe
from crmarena_tui.graders.structured import StructuredAnswer
from crmarena_tui.widgets.mark_list import MarkList

SubmitChoice = str | StructuredAnswer
OTHER_ROWS = 22  # the dialog's rows besides the pick list, its borders included
MIN_PICK_ROWS = 4  # the pick list's least height (two items and its border)
DEFAULT_REASON = "this is private or confidential information I cannot share"
FINAL = "Every way of submitting is final and ends the session · escape cancels"
KEYS = {  # what the keys do where the focus is
    "answer": "enter submits this text · tab moves to the list's filter, down into the list",
    "pick-filter": "typing narrows the list · tab or down moves into it",
    "picks": "space marks the highlighted item · ctrl+s submits the marked items",
    "decline-reason": "enter or ctrl+d declines with this reason",
    "decline": "enter declines",
}


class SubmitDialog(ModalScreen[SubmitChoice | None]):
    """Dismisses with the answer text, a StructuredAnswer, or None when cancelled."""

    AUTO_FOCUS = "#answer"  # focused as the dialog opens, before any key reaches it

    DEFAULT_CSS = """
    SubmitDialog { align: center middle; }
    SubmitDialog > #submit-box {
        width: 96; max-width: 100%; height: auto; max-height: 100%; padding: 0 2;
        border: thick $accent; background: $surface;
    }
    SubmitDialog .submit-section { margin-top: 1; color: $text-muted; }
    SubmitDialog #picks { height: auto; max-height: 12; }
    SubmitDialog #decline-row { height: auto; }
    SubmitDialog #decline-reason { width: 1fr; }
    SubmitDialog #submit-keys { color: $text-muted; margin-top: 1; }
    SubmitDialog #submit-warning { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="submit-dialog.cancel"),
        Binding(
            "ctrl+s", "submit_picked", "Submit marked", priority=True, id="submit-dialog.picked"
        ),
        Binding("ctrl+d", "decline", "Decline", priority=True, id="submit-dialog.decline"),
    ]

    def __init__(
        self,
        draft: str = "",
        *,
        interactive: bool = False,
        choices: list[Choice] | None = None,
        multiple: bool = False,
    ) -> None:
        super().__init__()
        self.draft = draft
        self.interactive = interactive
        self.choices = choices or [Choice("None", "there is no such item")]
        self.multiple = multiple
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="submit-box"):
            yield Label("[b]Submit your final answer[/]")
            who = "Your final answer to the customer" if self.interactive else "Your answer"
            yield Static(
                f"{who}: type it (enter submits the text) …",
                classes="submit-section",
                id="section-answer",
            )
            yield Input(self.draft, placeholder="answer", id="answer")
            several = "one or several" if self.multiple else "one (or several, if the task asks)"
            yield Static(
                f"… or mark {several} below with space and press ctrl+s (compared exactly) …",
                classes="submit-section",
                id="section-picks",
            )
            yield Input(placeholder="filter the list", id="pick-filter")
            yield MarkList(*self._selections(""), id="picks")  # marks drawn as ✓
            yield Static(
                "… or decline on privacy or confidentiality grounds (ctrl+d):",
                classes="submit-section",
                id="section-decline",
            )
            with Horizontal(id="decline-row"):
                yield Input(DEFAULT_REASON, placeholder="short reason", id="decline-reason")
                yield Button("Decline", id="decline", variant="warning")
            yield Static("", id="submit-keys")
            yield Static(FINAL, id="submit-warning")

    def on_resize(self, event: events.Resize) -> None:
        """The pick list gets the rows the rest leaves (at most 12), so that the whole dialog,
        its "Marked: ..." line included, fits the terminal (22 rows besides the list at 100x30)."""
        room = event.size.height - OTHER_ROWS
        self.query_one("#picks").styles.max_height = max(MIN_PICK_ROWS, min(12, room))

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Mark the section that has the focus with ▶ (also visible without colours)."""
        focused = event.widget.id or ""
        active = {
            "answer": "section-answer",
            "pick-filter": "section-picks",
            "picks": "section-picks",
            "decline-reason": "section-decline",
            "decline": "section-decline",
        }.get(focused)
        for section in self.query(".submit-section").results(Static):
            text = str(section.content).removeprefix("▶ ")
            section.update(Text(f"▶ {text}" if section.id == active else text))
        self.query_one("#submit-keys", Static).update(Text(KEYS.get(focused, ""), style="dim"))

    def _selections(self, words: str) -> list[Selection[str]]:
        """The choices whose line holds every word typed; an exact code or Id first (`ak`:
        AK before Arkansas's line), then an exact name, then a code or Id that starts so."""
        wanted = words.casefold().split()
        whole = " ".join(wanted)

        def rank(choice: Choice) -> int:
            value = choice.value.casefold()
            if not whole:
                return 0
            if value == whole:
                return 0
            if choice.label.casefold() == whole:
                return 1
            return 2 if value.startswith(whole) else 3

        found = [c for c in self.choices if all(w in describe(c).casefold() for w in wanted)]
        return [
            Selection(Text(describe(c)), c.value, c.value in self.marked)
            for c in sorted(found, key=rank)
        ]

    @on(Input.Changed, "#pick-filter")
    def _filter(self, event: Input.Changed) -> None:
        picks = self.query_one("#picks", SelectionList)
        picks.clear_options()
        picks.add_options(self._selections(event.value))
        if picks.option_count:
            picks.highlighted = 0

    def on_key(self, event: events.Key) -> None:
        """`down` from the answer or the filter goes into the list."""
        focused = self.focused.id if self.focused is not None else None
        if event.key == "down" and focused in ("answer", "pick-filter"):
            event.stop()
            self.set_focus(self.query_one("#picks", SelectionList))

    @on(SelectionList.SelectionToggled, "#picks")
    def _toggled(self, event: SelectionList.SelectionToggled) -> None:
        value = str(event.selection.value)
        if value in self.marked:
            self.marked.remove(value)
        else:
            self.marked.append(value)
        self._say(
            f"Marked: {', '.join(self.marked)} · ctrl+s submits them" if self.marked else FINAL
        )

    @on(Input.Submitted, "#answer")
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        answer = event.value.strip()
        if not answer:
            self._nothing("the answer is empty")
        elif self.marked:
            self._ask(answer)
        else:
            self.dismiss(answer)

    def _ask(self, typed: str) -> None:
        """Both typed text and marked items: which one is sent is asked, neither is dropped
        without a word."""
        marks = StructuredAnswer.of_items(self.marked)

        def chosen(which: str | None) -> None:
            if which == "text":
                self.dismiss(typed)
            elif which == "marks":
                self.dismiss(marks)
            else:
                self._say(f"Nothing was sent. Marked: {', '.join(self.marked)}")

        self.app.push_screen(WhichAnswer(typed, self.marked), chosen)

    @on(Input.Submitted, "#decline-reason")
    @on(Button.Pressed, "#decline")
    def _decline_pressed(self) -> None:
        self.action_decline()

    def action_submit_picked(self) -> None:
        """ctrl+s: the marked items; with none marked, the typed answer (ctrl+s opened the
        dialog, so a second ctrl+s after typing submits what was typed)."""
        typed = self.query_one("#answer", Input).value.strip()
        if not self.marked:
            if typed:
                self.dismiss(typed)
            else:
                self._nothing("no item is marked and no answer is typed")
        elif typed:
            self._ask(typed)
        else:
            self.dismiss(StructuredAnswer.of_items(self.marked))

    def action_decline(self) -> None:
        reason = self.query_one("#decline-reason", Input).value
        self.dismiss(StructuredAnswer.decline(reason))

    def _nothing(self, why: str) -> None:
        message = (
            f"Nothing was submitted: {why}. Type an answer and press enter, mark items with "
            "space and press ctrl+s, or decline with ctrl+d."
        )
        self._say(message)
        self.notify(message, severity="warning")

    def _say(self, text: str) -> None:
        self.query_one("#submit-warning", Static).update(Text(text))

    def action_cancel(self) -> None:
        """`escape`: a filter with text is cleared first; then the dialog is cancelled."""
        filt = self.query_one("#pick-filter", Input)
        if filt.value:
            filt.value = ""
            self.set_focus(filt)
            return
        self.dismiss(None)


class WhichAnswer(ModalScreen[str | None]):
    """The reply has typed text and marked items: `t` sends the text, `m` the marked items,
    `escape` goes back to the dialog (nothing sent). Dismisses with "text", "marks" or None."""

    DEFAULT_CSS = """
    WhichAnswer { align: center middle; }
    WhichAnswer > #which-box {
        width: 72; max-width: 100%; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    WhichAnswer #which-refused { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "text", "Send the text", id="which-answer.text"),
        Binding("m", "marks", "Send the marked", id="which-answer.marks"),
        Binding("escape", "back", "Back", id="which-answer.back"),
    ]

    def __init__(self, typed: str, marked: list[str]) -> None:
        super().__init__()
        self.typed = typed
        self.marked = marked

    def compose(self) -> ComposeResult:
        with Vertical(id="which-box"):
            yield Label("[b]Which answer is sent?[/]")
            yield Static(
                Text.assemble(
                    "Your reply has both typed text and marked items; only one is sent.\n",
                    ("t", "bold"),
                    f"  the typed text: {self.typed}\n",
                    ("m", "bold"),
                    f"  the marked items: {', '.join(self.marked)}\n",
                    ("escape", "bold"),
                    "  back to the dialog (nothing is sent)",
                )
            )
            yield Static("", id="which-refused")

    def on_key(self, event: events.Key) -> None:
        if event.key not in self.active_bindings:  # (its keys as the keymap maps them)
            event.stop()
            shown = event.character if event.is_printable else event.key
            self.query_one("#which-refused", Static).update(
                Text(f"{shown!r} was not applied: press t, m or escape.")
            )

    def action_text(self) -> None:
        self.dismiss("text")

    def action_marks(self) -> None:
        self.dismiss("marks")

    def action_back(self) -> None:
        self.dismiss(None)
