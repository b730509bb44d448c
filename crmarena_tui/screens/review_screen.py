"""The review screen (`crmarena-tui review open NAME --as ANNOTATOR`): the annotator's next item
of a review queue, one at a time (storage/reviews.py holds the queue's rules).

Keys: a digit (`1`-`9`, `0` for the tenth) labels the item with that label of the taxonomy, as
numbered on the screen; `m` picks any label in the label dialog; `enter` accepts the item's
suggestion as it is; `x` rejects it; `c` writes a note; `n` and `p` move to the next and the
previous item (`n` past the last takes a new one); `o` opens the item's session in the
trajectory viewer at its step; `?` (or `f1`) lists the keys. A label whose name is the
suggestion's is an accepted suggestion: its origin is kept (storage/reviews.py). After a label
or a rejection the screen hands the next item, except when the label revealed a suggestion a
blind queue (or hidden-labels mode) had withheld: then it stays, to show it, until `n`.

All database work runs in one worker group (`review`); the worker posts `Shown` and the handler
draws it.
"""

from __future__ import annotations

import queue as queue_
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.screens.label_dialog import LabelChoice, LabelDialog
from crmarena_tui.screens.note_dialog import NoteDialog
from crmarena_tui.screens.review_item import ItemView, load_view
from crmarena_tui.storage.reviews import Item, Progress, Queue, ReviewQueues
from crmarena_tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

DIGITS = "1234567890"


def _digit_bindings() -> list[BindingType]:
    return [
        Binding(
            d,
            f"label({n})",
            "Label 1-0" if n == 0 else f"Label {d}",
            show=n == 0,
            key_display="1-0" if n == 0 else None,
            id=f"review.label-{d}",
        )  # fmt: skip
        for n, d in enumerate(DIGITS)
    ]


class ReviewScreen(BaseScreen):
    """The items of review queue `queue_name` for the app's participant."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *_digit_bindings(),
        Binding("m", "pick_label", "Any label", id="review.pick-label"),
        Binding("enter", "accept", "Accept", id="review.accept"),
        Binding("x", "reject", "Reject", id="review.reject"),
        Binding("c", "note", "Note", id="review.note"),
        Binding("n", "move(1)", "Next", id="review.next"),
        Binding("p", "move(-1)", "Prev", id="review.prev"),
        Binding("o", "open_viewer", "Open step", id="review.open"),
        Binding("question_mark", "keys", "Keys", id="review.keys"),
        Binding("escape", "back", "Back", id="review.back"),
    ]

    @dataclass
    class Shown(Message):
        """What to draw: an item (`view`), or nothing left (`view` None) with the progress."""

        view: ItemView | None
        queue: Queue
        mine: list[Item]
        progress: Progress
        said: str = ""

    def __init__(self, queue_name: str) -> None:
        super().__init__()
        self.queue_name = queue_name
        self.view: ItemView | None = None  # what the screen shows
        self._shown_view: ItemView | None = None  # what the worker last loaded (worker only)
        self._commands: queue_.Queue[tuple[str, tuple[str, str, str] | None]] = queue_.Queue()
        self.mine: list[Item] = []
        self.ready = False

    def compose(self) -> ComposeResult:
        yield Static("[dim]opening the review queue…[/]", id="rv-top")
        yield Static("", id="rv-progress")
        with Vertical(id="rv-body"):
            yield Static("", id="rv-item")
            yield Static("", id="rv-suggestion")
            yield Static("", id="rv-mine")
            yield Static("", id="rv-labels")
        yield Static("", id="rv-status")
        yield KeyFooter()

    @property
    def me(self) -> str:
        return self.arena.participant_name or ""

    @property
    def taxonomy(self) -> list[str]:
        return list(dict.fromkeys(t for t in self.arena.settings.taxonomy if t.strip()))

    def on_mount(self) -> None:
        self.query_one("#rv-labels", Static).update(
            "  ".join(
                f"[b]{DIGITS[n]}[/] {escape(label)}" for n, label in enumerate(self.taxonomy[:10])
            )
            + ("  [dim]m: the others[/]" if len(self.taxonomy) > 10 else "")
        )
        self._serve()
        self._load("next")

    # -- loading (one worker, the keys' commands in order) -------------------------------------

    def _load(self, where: str, decision: tuple[str, str, str] | None = None) -> None:
        """Ask the worker to record `decision` (kind, label, note) on the item it shows, then
        show `where` (see `_run`). Keys typed in a burst are done one after another, each on
        the item the one before it left shown."""
        self._commands.put((where, decision))

    @work(thread=True, exit_on_error=False, group="review")
    def _serve(self) -> None:
        """Blocking: run the commands `_load` queues, in order, until the screen goes."""
        worker = get_current_worker()
        while not worker.is_cancelled:
            try:
                where, decision = self._commands.get(timeout=0.2)
            except queue_.Empty:
                continue
            self._run(where, decision)

    def _run(self, where: str, decision: tuple[str, str, str] | None) -> None:
        """Record `decision` on the item shown (a label of the suggestion's name accepts it),
        then show `where`: `next` (the annotator's next item), `same`, or `move:+1`/`move:-1`
        among the annotator's items (past the last takes a new one)."""
        store = self.arena.sessions_store()
        queues = ReviewQueues(store)
        queue = queues.queue(self.queue_name)
        me, said, hidden = self.me, "", self._hidden()
        shown = self._shown_view
        if decision is not None and shown is not None:
            kind, label, note = decision
            found, withheld = shown.suggestion, shown.suggestion_hidden
            if kind in ("accept", "reject") and (found is None or withheld):
                self.app.call_from_thread(self.notify, _refusal(found is None, kind))
                return
            if found is not None and not withheld and (kind == "accept" or found.label == label):
                kind, label = ("accept", found.label) if kind != "note" else (kind, label)
            queues.decide(shown.item, me, kind, label, note)  # type: ignore[arg-type]
            said = _said(kind, label, shown)
            if _revealed(store, queue, shown, me, hidden):
                where, said = "same", f"{said} · the suggestion is shown now: n moves on"
        mine = [it for it, _ in queues.mine(queue.id, me)]
        item: Item | None = None
        if where == "same" and shown is not None:
            item = shown.item
        elif where == "next":
            item = queues.next_for(queue.id, me)
        elif where.startswith("move:"):
            ids = [it.id for it in mine]
            at = (
                ids.index(shown.item.id) if shown is not None and shown.item.id in ids else len(ids)
            )
            target = at + int(where[5:])
            if target >= len(ids):
                item = queues.take_new(queue.id, me)
            elif target >= 0:
                item = mine[target]
            else:
                return
        mine = [it for it, _ in queues.mine(queue.id, me)]
        view = None if item is None else load_view(store, queue, item, me, hidden)
        self._shown_view = view
        self.post_message(self.Shown(view, queue, mine, queues.progress(queue.id), said))

    def _hidden(self) -> bool:
        return bool(self.arena.hidden_labels)

    @on(Shown)
    def _shown(self, event: Shown) -> None:
        self.view, self.mine, self.ready = event.view, event.mine, True
        queue, progress = event.queue, event.progress
        mode = " · [b]blind[/]" if queue.blind else ""
        at = ""
        if event.view is not None:
            at = f" · item {event.view.item.position} of {progress.items}"
        self.query_one("#rv-top", Static).update(
            f"[b]Review queue {escape(queue.name)}[/] · {escape(self.me)}{at} · "
            f"{queue.reviews} review(s) per item{mode}"
        )
        taken, done = progress.people.get(self.me, (0, 0))
        share = progress.reviews_done / progress.reviews_needed if progress.reviews_needed else 0
        self.query_one("#rv-progress", Static).update(
            f"you: {done} reviewed, {taken - done} open · queue: {progress.reviews_done} of "
            f"{progress.reviews_needed} reviews ({share:.0%}), {progress.complete} of "
            f"{progress.items} items complete"
        )
        self._draw(event.view)
        self._status(event.said)

    def _draw(self, view: ItemView | None) -> None:
        item_box = self.query_one("#rv-item", Static)
        suggestion_box = self.query_one("#rv-suggestion", Static)
        mine_box = self.query_one("#rv-mine", Static)
        if view is None:
            item_box.update("[b]Nothing left for you in this queue.[/] p goes back to your items.")
            suggestion_box.update("")
            mine_box.update("")
            return
        state = "[green]reviewed[/]" if view.finished else "[yellow]to review[/]"
        where = (
            f"step {view.step_number} of {view.step_count}"
            if view.step_number is not None
            else "the whole session"
        )
        item_box.update(
            f"{escape(view.session_line)}\n[b]{where}[/] · {state}\n  {escape(view.step_text)}"
        )
        suggestion_box.update(_suggestion_text(view))
        bits = [f"⚑ {escape(label)}" for label in view.my_labels]
        bits += [f"✎ {escape(note)}" for note in view.my_notes]
        mine_box.update(
            "[b]Yours:[/] " + " · ".join(bits) if bits else "[dim]No label of yours here yet.[/]"
        )

    def _status(self, text: str) -> None:
        self.query_one("#rv-status", Static).update(text)

    # -- keys -----------------------------------------------------------------------------------

    def _decide(self, decision: str, label: str = "", note: str = "") -> None:
        if self.view is None and not self._commands.qsize():
            self.notify("No item here: n takes the next one.", severity="warning")
            return
        self._load("same" if decision == "note" else "next", (decision, label, note))

    def action_label(self, n: int) -> None:
        taxonomy = self.taxonomy
        if n >= len(taxonomy):
            self.notify(f"The taxonomy has {len(taxonomy)} labels.", severity="warning")
            return
        self._decide("label", taxonomy[n])

    def action_pick_label(self) -> None:
        if self.view is not None:
            dialog = LabelDialog(self.taxonomy, self.view.target, set(self.view.my_labels))
            self.app.push_screen(dialog, self._picked)

    def _picked(self, choice: LabelChoice | None) -> None:
        if choice is not None and not choice.remove:
            self._decide("label", choice.label, choice.note)

    def action_accept(self) -> None:
        self._decide("accept")

    def action_reject(self) -> None:
        self._decide("reject")

    def action_note(self) -> None:
        if self.view is not None:
            self.app.push_screen(NoteDialog(self.view.target), self._noted)

    def _noted(self, text: str | None) -> None:
        if text:
            self._decide("note", note=text)

    def action_move(self, delta: int) -> None:
        self._load(f"move:{delta:+d}")

    def action_open_viewer(self) -> None:
        from crmarena_tui.screens.trajectory_viewer import TrajectoryViewer

        if self.view is not None:
            step = self.view.step_number
            self.app.push_screen(TrajectoryViewer(self.view.item.session_id, start_step=step))

    def action_back(self) -> None:
        self.app.pop_screen()


def _suggestion_text(view: ItemView) -> str:
    found = view.suggestion
    if view.item.suggestion_id is None:
        return "[dim]No suggestion: label it with a digit (or m).[/]"
    if view.suggestion_hidden:
        return (
            "[b]A suggestion is hidden[/] until your own label here is saved "
            "(blind queue or hidden labels)."
        )
    if found is None:
        return "[dim]The suggestion was deleted with its scan.[/]"
    reason = f" — {escape(found.reason)}" if found.reason else ""
    decided = ""
    if "accept" in view.decisions:
        decided = " · [green]accepted[/]"
    elif "reject" in view.decisions:
        decided = " · [red]rejected[/]"
    return (
        f"[b]Suggested:[/] ⚑ {escape(found.label)}{reason} [dim]({escape(found.provenance)})[/]"
        f"{decided}\n[dim]enter accepts it · x rejects it · a digit labels it otherwise[/]"
    )


def _refusal(no_suggestion: bool, kind: str) -> str:
    if no_suggestion:
        return f"This item has no suggestion to {kind}."
    return "Label it first: the suggestion is hidden until you do."


def _said(decision: str, label: str, shown: ItemView) -> str:
    where = shown.target
    return {
        "label": f"labelled {where}: {label}",
        "accept": f"accepted the suggestion on {where}: {label}",
        "reject": f"rejected the suggestion on {where}",
        "note": f"noted on {where}",
    }[decision]


def _revealed(store: Store, queue: Queue, shown: ItemView, me: str, hidden: bool) -> bool:
    """Whether the decision just made showed a suggestion that was withheld before it."""
    if not shown.suggestion_hidden:
        return False
    return not load_view(store, queue, shown.item, me, hidden).suggestion_hidden
