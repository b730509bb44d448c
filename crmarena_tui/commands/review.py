"""`crmarena-tui review`: review queues (issue 41, item 4). `review create NAME` makes a queue
from a filter or a search (sessions, their steps, or a scan's suggestions); `review open NAME
--as ANNOTATOR` opens the review screen on the annotator's next item; `review status NAME`
prints progress per person and overall; `review release NAME --as ANNOTATOR` (or
`--all-stale MINUTES`) gives back items taken and not finished; `review list` the queues. The rules of a queue
(who takes which item, N reviews per item, labels that keep their origin) are in
storage/reviews.py; what the screen shows and its keys in screens/review_screen.py.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from crmarena_tui.commands.common import (
    add_db,
    add_format,
    add_hidden_labels,
    add_org,
    add_tasks,
    db_path,
)
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.app.app import CrmArenaApp
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.reviews import ItemSpec

ORDER = 86


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "review",
        help="review queues: each annotator is handed the next item to label",
        description="A queue of sessions, steps or a scan's suggestions, each reviewed by N "
        "people; each annotator (--as NAME) is handed their next item.",
    )
    subs = parser.add_subparsers(dest="review_command", metavar="SUBCOMMAND", required=True)
    create = subs.add_parser("create", help="make a queue from a filter, a search or a scan")
    create.add_argument("name", metavar="NAME", help="the queue's name")
    create.add_argument(
        "--where",
        default="",
        metavar="TEXT",
        help="only the sessions the sessions list's filter keeps for TEXT (as export --where)",
    )
    create.add_argument(
        "--search",
        default="",
        metavar="QUERY",
        help="only the sessions this search finds (the syntax of crmarena-tui search)",
    )
    create.add_argument(
        "--suggestions",
        default=None,
        metavar="SCAN",
        help="one item per label the scan SCAN (its newest run) suggested in those sessions, "
        "at the session or step it points at",
    )
    create.add_argument(
        "--level",
        choices=("session", "step"),
        default="session",
        help="without --suggestions: one item per session, or per step of each session "
        "(default: %(default)s)",
    )
    create.add_argument(
        "--reviews", type=int, default=1, metavar="N", help="people per item (default: 1)"
    )
    create.add_argument(
        "--blind",
        action="store_true",
        help="show no suggestion to an annotator before their own label on the item is saved",
    )
    create.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N items (the first ones)"
    )
    add_db(create)
    create.set_defaults(func=run_create)

    open_ = subs.add_parser("open", help="review the queue's items in the app")
    open_.add_argument("name", metavar="NAME", help="the queue")
    open_.add_argument(
        "--as", dest="participant", metavar="NAME", required=True, help="the annotator"
    )
    add_db(open_)
    add_org(open_)
    add_tasks(open_)
    add_hidden_labels(open_)
    open_.set_defaults(func=run_open)

    status = subs.add_parser("status", help="progress per person and overall")
    status.add_argument("name", metavar="NAME", help="the queue")
    add_format(status)
    add_db(status)
    status.set_defaults(func=run_status)

    release = subs.add_parser(
        "release",
        help="give back items taken and not finished, so that others may take them",
        description="Give back the items of a queue that an annotator took and has not "
        "finished (--as NAME), or that anyone took more than MINUTES ago (--all-stale "
        "MINUTES); others may then take them. Finished reviews and notes stay.",
    )
    release.add_argument("name", metavar="NAME", help="the queue")
    who = release.add_mutually_exclusive_group(required=True)
    who.add_argument("--as", dest="participant", metavar="NAME", help="this annotator's items")
    who.add_argument(
        "--all-stale",
        type=float,
        metavar="MINUTES",
        help="everyone's items taken more than MINUTES ago",
    )
    add_db(release)
    release.set_defaults(func=run_release)

    listing = subs.add_parser("list", help="the queues")
    add_db(listing)
    listing.set_defaults(func=run_list)


def _store(args: argparse.Namespace) -> Store:
    from crmarena_tui.storage import Store

    path = db_path(args)
    if not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or play, run or import first)")
    return Store(path)


def selected_sessions(store: Store, where: str, searched: str) -> list[int]:
    """The sessions `--where` and `--search` keep (every session when neither), by id."""
    from crmarena_tui.commands.export import _keep
    from crmarena_tui.reports.session_rows import where_filter
    from crmarena_tui.storage.listing import list_sessions

    if where.lstrip().startswith("?"):  # (the sessions list's `?`: a search)
        if searched:
            raise UserError("give the search once: --search QUERY or --where '?QUERY'")
        where, searched = "", where.lstrip()[1:]
    keep = _keep(store, where_filter(where), searched)
    people = {p.id: p for p in store.participants()}
    rows = list_sessions(store)
    return sorted(r.id for r in rows if keep is None or keep(r, people[r.participant_id]))


def queue_items(
    store: Store, sessions: list[int], level: str, scan: str | None
) -> tuple[list[ItemSpec], int | None]:
    """The items of a new queue, and the scan they come from."""
    from crmarena_tui.storage.reviews import ItemSpec
    from crmarena_tui.storage.steps import group_steps

    if scan is not None:
        from crmarena_tui.commands._review_scans import suggestion_items

        return suggestion_items(store, sessions, scan)
    if level == "session":
        return [ItemSpec(sid) for sid in sessions], None
    items = []
    for sid in sessions:
        items += [ItemSpec(sid, anchor.seq) for anchor, _ in group_steps(store.events(sid))]
    return items, None


def run_create(args: argparse.Namespace) -> int:
    from crmarena_tui.storage.reviews import ReviewQueues

    if args.reviews < 1:
        raise UserError(f"--reviews must be 1 or more, not {args.reviews}", code=ExitCode.USAGE)
    if args.limit is not None and args.limit < 1:
        raise UserError(f"--limit must be 1 or more, not {args.limit}", code=ExitCode.USAGE)
    with _store(args) as store:
        sessions = selected_sessions(store, args.where, args.search)
        items, scan_id = queue_items(store, sessions, args.level, args.suggestions)
        items = items[: args.limit] if args.limit else items
        level = "suggestion" if args.suggestions else args.level
        selection = " ".join(
            f"{flag} {value!r}"
            for flag, value in (("--where", args.where), ("--search", args.search))
            if value
        )
        try:
            queue = ReviewQueues(store).create(
                args.name,
                items,
                level=level,  # type: ignore[arg-type]
                reviews=args.reviews,
                blind=args.blind,
                scan_id=scan_id,
                selection=selection,
            )
        except ValueError as exc:
            raise UserError(str(exc)) from None
    blind = ", blind" if queue.blind else ""
    print(
        f"review queue {queue.name!r}: {len(items)} {level} item(s) from {len(sessions)} "
        f"session(s), {queue.reviews} review(s) each{blind}. "
        f"Review with: crmarena-tui review open {queue.name} --as NAME"
    )
    return 0


def run_status(args: argparse.Namespace) -> int:
    from crmarena_tui.storage.errors import NotFound
    from crmarena_tui.storage.reviews import ReviewQueues
    from crmarena_tui.studies.text import table

    with _store(args) as store:
        queues = ReviewQueues(store)
        try:
            queue = queues.queue(args.name)
        except NotFound as exc:
            raise UserError(str(exc)) from None
        progress = queues.progress(queue.id)
    if args.format == "json":
        out: dict[str, Any] = {"queue": queue.name, "level": queue.level, "reviews": queue.reviews}
        print(json.dumps({**out, "blind": queue.blind, "progress": progress.rows()}, indent=1))
        return 0
    rows = [
        [r["annotator"], str(r["taken"]), str(r["reviewed"]), str(r["open"])]
        for r in progress.rows()
    ]
    print(table(["annotator", "taken", "reviewed", "open"], rows))
    share = progress.reviews_done / progress.reviews_needed if progress.reviews_needed else 0.0
    print(
        f"{progress.complete} of {progress.items} items have all {queue.reviews} review(s); "
        f"{progress.reviews_done} of {progress.reviews_needed} reviews done ({share:.0%})"
    )
    return 0


def run_release(args: argparse.Namespace) -> int:
    from crmarena_tui.storage.convert import iso
    from crmarena_tui.storage.errors import NotFound
    from crmarena_tui.storage.reviews import ReviewQueues

    if args.participant is not None and not args.participant.strip():
        raise UserError("--as needs the annotator's name", code=ExitCode.USAGE)
    if args.all_stale is not None and not args.all_stale >= 0:
        raise UserError(
            f"--all-stale must be 0 or more minutes, not {args.all_stale:g}", code=ExitCode.USAGE
        )
    with _store(args) as store:
        queues = ReviewQueues(store)
        try:
            queue = queues.queue(args.name)
        except NotFound as exc:
            raise UserError(str(exc)) from None
        if args.participant is not None:
            released = {args.participant: queues.release(queue.id, args.participant)}
        else:
            before = iso(store.clock() - args.all_stale * 60)
            released = queues.release_stale(queue.id, before)
    total = sum(released.values())
    whose = ", ".join(f"{who} {n}" for who, n in released.items() if n)
    print(
        f"released {total} item(s) of {queue.name!r}" + (f" ({whose})" if whose else "")
        + ("; others may take them now" if total else ": none was taken and unfinished")
    )  # fmt: skip
    return 0


def run_list(args: argparse.Namespace) -> int:
    from crmarena_tui.storage.reviews import ReviewQueues
    from crmarena_tui.studies.text import table

    with _store(args) as store:
        queues = ReviewQueues(store)
        rows = []
        for q in queues.queues():
            p = queues.progress(q.id)
            mode = "blind" if q.blind else ""
            rows.append(
                [q.name, q.level, str(p.items), str(q.reviews), f"{p.reviews_done}", mode]
                + [q.selection]
            )
    if not rows:
        print("No review queues (make one with `crmarena-tui review create`).")
        return 0
    print(table(["queue", "level", "items", "N", "reviews done", "mode", "selection"], rows))
    return 0


def make_app(options: Any, queue: str, org_factory: Any = None) -> CrmArenaApp:
    """The app opened on the review screen of `queue`, above the task browser."""
    from pathlib import Path

    from crmarena_tui.app import app as app_module
    from crmarena_tui.app.app import CrmArenaApp
    from crmarena_tui.screens.review_screen import ReviewScreen

    class ReviewApp(CrmArenaApp):
        CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))
        STORE_FIRST = True

        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(queue))

    return ReviewApp(options, org_factory=org_factory)


def run_open(args: argparse.Namespace) -> int:
    from crmarena_tui.app.app import PlayOptions
    from crmarena_tui.commands.play import run_app
    from crmarena_tui.storage.errors import NotFound
    from crmarena_tui.storage.reviews import ReviewQueues

    if not args.participant.strip():
        raise UserError("--as needs a name: it signs your labels", code=ExitCode.USAGE)
    with _store(args) as store:
        try:
            ReviewQueues(store).queue(args.name)
        except NotFound as exc:
            raise UserError(str(exc)) from None
    options = PlayOptions(
        tasks=args.tasks,
        org=args.org,
        lenient=bool(args.lenient),
        participant=args.participant,
        db=args.db,
        hidden_labels=args.hidden_labels or None,
    )
    return run_app(make_app(options, args.name))
