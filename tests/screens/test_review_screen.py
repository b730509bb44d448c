"""The review screen (issue 41, item 4) driven by its keys in a Textual pilot: a digit labels,
`enter` accepts the suggestion (a label that keeps its origin), `x` rejects, `c` notes, `n`/`p`
move, `?` lists the keys; a blind queue hides the suggestion until the annotator's label."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.screens.keys_screen import KeysScreen
from crmarena_tui.screens.review_screen import ReviewScreen
from crmarena_tui.storage import Store
from crmarena_tui.storage.reviews import ItemSpec, ReviewQueues
from tests.support.app_support import SIZE, screen_text
from tests.support.pilot_wait_support import wait_until
from tests.support.review_support import review_app, seed_scanned


def _make_queue(db: Path, *, blind: bool, reviews: int = 1) -> None:
    from crmarena_tui.commands._review_scans import suggestion_items

    with Store(db) as store:
        items, scan_id = suggestion_items(store, list(range(1, 10)), "s1")
        ReviewQueues(store).create(
            "q", items, level="suggestion", scan_id=scan_id, blind=blind, reviews=reviews
        )


async def _ready(pilot, app, text: str) -> ReviewScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.ready)
    await wait_until(pilot, lambda: text in screen_text(app), text)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def test_keys_accept_reject_note_and_move(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    ids = seed_scanned(db)
    _make_queue(db, blind=False)
    app = review_app(db, "q")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, app, "item 1 of 3")
        await wait_until(pilot, lambda: "step 3 of 4" in screen_text(app))  # (the item's body)
        text = screen_text(app)
        assert "Suggested: ⚑ unrecovered tool error — guessed a field" in text
        assert "scripted/m, scan s1" in text and "step 3 of 4" in text
        assert "1 wrong object" in text and "0 confidentiality leak" in text
        await pilot.press("enter")  # accept: a label that keeps its origin
        await wait_until(pilot, lambda: "Suggested: ⚑ wrong field" in screen_text(app))
        assert "item 2 of 3" in screen_text(app)
        assert "accepted the suggestion on step 3 of session 1" in screen_text(app)
        await pilot.press("x")  # reject: no label
        await wait_until(pilot, lambda: "item 3 of 3" in screen_text(app))
        await pilot.press("c")
        await pilot.press(*"too short", "enter")  # a note does not finish the review
        await wait_until(pilot, lambda: "✎ too short" in screen_text(app))
        assert "item 3 of 3" in screen_text(app) and "1 open" in screen_text(app)
        await pilot.press("2")  # "wrong field", not the suggested "gave up": the annotator's own
        await wait_until(pilot, lambda: "Nothing left for you" in screen_text(app))
        assert "you: 3 reviewed, 0 open" in screen_text(app)
        assert "queue: 3 of 3 reviews (100%), 3 of 3 items complete" in screen_text(app)
        await pilot.press("p")  # back over the annotator's own items
        await wait_until(pilot, lambda: "item 3 of 3" in screen_text(app))
        await pilot.press("p", "p")
        await wait_until(pilot, lambda: "item 1 of 3" in screen_text(app))
        assert "accepted" in screen_text(app) and "⚑ unrecovered tool error" in screen_text(app)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        keys = screen_text(app)
        assert "Accept" in keys and "Reject" in keys and "Label 1-0" in keys
        assert "Label 2" not in keys and "Label 0" not in keys  # (the digits: one row, `1-0`)
        assert isinstance(app.screen, KeysScreen)
        assert [r for r in app.screen.rows() if "Label" in r[1]] == [("1-0", "Label 1-0")]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
    with Store(db) as store:
        queues = ReviewQueues(store)
        labels = {
            (a.session_id, a.label): queues.origin(a.id)
            for a in store.annotations.find(annotator="ann")
            if a.session_id in (ids["agent"], ids["c_agent"])
            and a.label != "gave up"  # (the seed's own label of session 1)
        }
    assert labels == {
        (ids["agent"], "unrecovered tool error"): {
            "queue": "q",
            "item": 1,
            "decision": "accept",
            "suggestion_id": 1,
        },
        (ids["c_agent"], "wrong field"): {
            "queue": "q",
            "item": 3,
            "decision": "label",
            "suggestion_id": 3,
        },
    }


async def test_a_blind_queue_hides_the_suggestion_until_the_label_is_saved(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    seed_scanned(db)
    _make_queue(db, blind=True, reviews=2)
    app = review_app(db, "q", participant="cy")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app, "item 1 of 3")
        text = screen_text(app)
        assert "A suggestion is hidden" in text and "unrecovered tool error" not in text
        await pilot.press("enter")  # nothing to accept yet
        told = lambda: " ".join(str(n.message) for n in app._notifications)  # noqa: E731
        await wait_until(pilot, lambda: "Label it first" in told())
        await pilot.press("2")  # cy's own label: saved, then the suggestion shows
        await wait_until(pilot, lambda: "the suggestion is shown now" in screen_text(app))
        text = screen_text(app)
        assert "item 1 of 3" in text and "Suggested: ⚑ unrecovered tool error" in text
        assert "⚑ wrong field" in text
        await pilot.press("n")
        await wait_until(pilot, lambda: "item 2 of 3" in screen_text(app))
        assert "A suggestion is hidden" in screen_text(app)


async def test_keys_typed_in_a_burst_each_label_the_next_item(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    seed_scanned(db)
    with Store(db) as store:
        queues = ReviewQueues(store)
        queue = queues.create("steps", [ItemSpec(1, e.seq) for e in store.events(1)][:6])
    app = review_app(db, "steps", participant="cy")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app, "item 1 of 6")
        await pilot.press("1", "2", "3", "n", "p", "4")  # without waiting between keys
        await wait_until(pilot, lambda: "you: 4 reviewed" in screen_text(app))
    with Store(db) as store:
        queues = ReviewQueues(store)
        got = [
            (item.position, [d["label"] for d in queues.decisions(item.id, "cy")])
            for item, _ in queues.mine(queue.id, "cy")
        ]
    # 1, 2, 3 label items 1-3 (item 4 comes next); n takes item 5, p goes back to item 4, 4
    # labels it; then cy's next item is 5 (taken, open)
    assert got == [
        (1, ["wrong object"]),
        (2, ["wrong field"]),
        (3, ["wrong filter or date range"]),
        (4, ["aggregation error"]),
        (5, []),
    ]
