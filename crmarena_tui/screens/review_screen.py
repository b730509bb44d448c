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

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from crmarena_tui.screens.base_screen import BaseScreen
from crmarena_tui.screens.label_dialog import LabelChoice, LabelDialog
from crmarena_tui.screens.note_dialog import NoteDialog
from crmarena_tui.screens.review_item import ItemView, load_view
from crmarena_tui.storage.reviews import Decision, Item, Progress, Queue, ReviewQueues
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
        self.view: ItemView | None = None
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
        self._load("next")

    # -- loading (worker) -----------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="review")
    def _load(
        self,
        where: str,
        decision: tuple[Decision, str, str] | None = None,
    ) -> None:
        """Blocking: record `decision` (decision, label, note) on the item shown, then show
        `where`: `next` (the annotator's next item), `new` (take a new one), `same`, or an
        index into the annotator's items."""
        store = self.arena.sessions_store()
        queues = ReviewQueues(store)
        queue = queues.queue(self.queue_name)
        me, said = self.me, ""
        shown = self.view
        if decision is not None and shown is not None:
            kind, label, note = decision
            queues.decide(shown.item, me, kind, label, note)
            said = _said(kind, label, shown)
            if _revealed(store, queue, shown, me, self._hidden()):
                where, said = "same", f"{said} · the suggestion is shown now: n moves on"
        if where == "same" and shown is not None:
            item: Item | None = shown.item
        elif where == "next":
            item = queues.next_for(queue.id, me)
        elif where == "new":
            item = queues.take_new(queue.id, me)
        else:
            mine = [it for it, _ in queues.mine(queue.id, me)]
            item = mine[int(where)] if 0 <= int(where) < len(mine) else None
        mine = [it for it, _ in queues.mine(queue.id, me)]
        view = None if item is None else load_view(store, queue, item, me, self._hidden())
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

    def _decide(self, decision: Decision, label: str = "", note: str = "") -> None:
        if self.view is None:
            self.notify("No item here: n takes the next one.", severity="warning")
            return
        after = "same" if decision == "note" else "next"
        self._load(after, (decision, label, note))

    def action_label(self, n: int) -> None:
        taxonomy = self.taxonomy
        if n >= len(taxonomy):
            self.notify(f"The taxonomy has {len(taxonomy)} labels.", severity="warning")
            return
        self._label(taxonomy[n])

    def _label(self, label: str) -> None:
        found = self.view.suggestion if self.view is not None else None
        shown = found is not None and self.view is not None and not self.view.suggestion_hidden
        accepted = shown and found is not None and found.label == label
        self._decide("accept" if accepted else "label", label)

    def action_pick_label(self) -> None:
        if self.view is not None:
            dialog = LabelDialog(self.taxonomy, self.view.target, set(self.view.my_labels))
            self.app.push_screen(dialog, self._picked)

    def _picked(self, choice: LabelChoice | None) -> None:
        if choice is not None and not choice.remove:
            self._decide("label", choice.label, choice.note)

    def action_accept(self) -> None:
        view = self.view
        if view is None or view.suggestion is None:
            self.notify("This item has no suggestion to accept.", severity="warning")
        elif view.suggestion_hidden:
            self.notify("Label it first: the suggestion is hidden until you do.")
        else:
            self._decide("accept", view.suggestion.label)

    def action_reject(self) -> None:
        view = self.view
        if view is None or view.suggestion is None:
            self.notify("This item has no suggestion to reject.", severity="warning")
        elif view.suggestion_hidden:
            self.notify("Label it first: the suggestion is hidden until you do.")
        else:
            self._decide("reject")

    def action_note(self) -> None:
        if self.view is not None:
            self.app.push_screen(NoteDialog(self.view.target), self._noted)

    def _noted(self, text: str | None) -> None:
        if text:
            self._decide("note", note=text)

    def action_move(self, delta: int) -> None:
        if not self.ready:
            return
        ids = [it.id for it in self.mine]
        at = ids.index(self.view.item.id) if self.view and self.view.item.id in ids else len(ids)
        target = at + delta
        if target >= len(ids):
            self._load("new")
        elif target >= 0:
            self._load(str(target))

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


def _said(decision: Decision, label: str, shown: ItemView) -> str:
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
