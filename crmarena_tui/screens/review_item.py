"""What the review screen shows of one queue item (`ItemView`), read in a worker by `load_view`.

The item's session (task, participant, reward), the step it is about (its number and summary,
as the viewer numbers steps), the suggestion it asks about, the annotator's own labels and notes
on the target, and the progress (theirs and the queue's). Only the annotator's own labels are
read: a review never shows another person's. In a blind queue, or in hidden-labels mode, the
suggestion is withheld until the annotator's own label on the target is saved
(`Suggestions.visible_to`, storage/suggestions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crmarena_tui.storage.reviews import Item, Progress, Queue, ReviewQueues
from crmarena_tui.widgets.step_list import build_steps

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store
    from crmarena_tui.storage.suggestions import Suggestion


@dataclass
class ItemView:
    queue: Queue
    item: Item
    finished: bool
    session_line: str
    step_number: int | None  # from 1; None: the item is the whole session
    step_count: int
    step_text: str
    suggestion: Suggestion | None
    suggestion_hidden: bool
    my_labels: list[str] = field(default_factory=list)
    my_notes: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    progress: Progress | None = None
    mine_taken: int = 0
    mine_done: int = 0

    @property
    def target(self) -> str:
        sid = self.item.session_id
        return (
            f"session {sid}"
            if self.step_number is None
            else f"step {self.step_number} of session {sid}"
        )


def load_view(store: Store, queue: Queue, item: Item, me: str, hidden: bool) -> ItemView:
    """Blocking: the view of `item` for annotator `me` (`hidden`: hidden-labels mode)."""
    queues = ReviewQueues(store)
    session = store.session(item.session_id)
    person = store.get_participant(session.participant_id)
    grade = store.grade(session.id)
    reward = "ungraded" if grade is None else f"reward {grade.reward:.2f}"
    who = person.name if person.kind == "human" else f"{person.name} (agent)"
    session_line = (
        f"session {session.id} · {who} · {session.task_type.replace('_', ' ')} "
        f"#{session.task_idx} · {session.status} · {reward}"
    )
    steps = build_steps(store.events(session.id))
    number, text = None, ""
    if item.event_seq is not None:
        step = next((s for s in steps if s.anchor_seq == item.event_seq), None)
        if step is not None:
            number, text = step.index + 1, step.summary
    else:
        text = next((s.summary for s in reversed(steps) if s.kind == "submit"), "")
    suggestion = None
    shown = True
    if item.suggestion_id is not None:
        suggestion = next(
            (
                s
                for s in store.suggestions.of_session(item.session_id)
                if s.id == item.suggestion_id
            ),
            None,
        )
        if queue.blind or hidden:
            visible = store.suggestions.visible_to(item.session_id, me, hidden_labels=True)
            shown = any(s.id == item.suggestion_id for s in visible)
    mine = [
        a
        for a in store.annotations.find(session_id=item.session_id, annotator=me, kind=None)
        if a.event_seq == item.event_seq
    ]
    taken = queues.mine(queue.id, me)
    finished = next((done for it, done in taken if it.id == item.id), False)
    return ItemView(
        queue=queue,
        item=item,
        finished=finished,
        session_line=session_line,
        step_number=number,
        step_count=len(steps),
        step_text=text,
        suggestion=suggestion,
        suggestion_hidden=not shown,
        my_labels=[a.label for a in mine if a.kind == "label"],
        my_notes=[a.note for a in mine if a.kind == "note"],
        decisions=[d["decision"] for d in queues.decisions(item.id, me)],
        progress=queues.progress(queue.id),
        mine_taken=len(taken),
        mine_done=sum(done for _, done in taken),
    )
