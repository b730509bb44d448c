"""`review create --suggestions SCAN`: a queue's items from a scan's suggestions (schema 19,
storage/suggestions.py): one item per failure-mode label the scan's newest run suggested in the
selected sessions, at the session or step it points at, in session order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crmarena_tui.errors import UserError

if TYPE_CHECKING:
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.reviews import ItemSpec


def suggestion_items(
    store: Store, sessions: list[int], scan: str
) -> tuple[list[ItemSpec], int | None]:
    """The items, and the id of the scan run they come from (`UserError`: no such scan, or a
    scan that suggests no labels)."""
    from crmarena_tui.storage.reviews import ItemSpec

    runs = store.suggestions.named(scan)
    if not runs:
        raise UserError(f"no scan named {scan!r} (run crmarena-tui scan first)")
    run = runs[-1]
    if run.kind != "labels":
        raise UserError(f"scan {scan!r} answers a rubric: it suggests no labels to review")
    keep = set(sessions)
    items = [
        ItemSpec(s.session_id, s.event_seq, s.id)
        for s in store.suggestions.of_scan(run.id)
        if s.label and s.session_id in keep
    ]
    return items, run.id
