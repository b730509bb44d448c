"""`crmarena-tui search`: find steps across every stored trajectory (storage/search.py), save a
search by name, and label every match in one go."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import TYPE_CHECKING, Any

from crmarena_tui.commands.common import add_db, add_format, db_path, load_command_settings
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.storage.search import SearchResult
    from crmarena_tui.storage.store import Store

ORDER = 84

SYNTAX = (
    'Words and "quoted phrases" match an event\'s text (queries, observations, errors, thoughts, '
    "messages, answers, notes) wherever they occur, case folded, 3 characters at least; "
    "re:PATTERN a regular expression on it. Step filters: "
    "kind:KIND (query, search, observation, error, thought, message, submit, note, prompt: a "
    "run's system prompt, ...), actor:agent|human|user|system, error:CODE (an error's code, "
    "INVALID_FIELD), object:OBJECT (a query's FROM object or the object an error names). What is "
    "written side by side holds for one step; A then B: a step matching A, later one matching B; "
    "not A (or -A): no step of the session matches A; not (A then B). Session facts: "
    "participant:NAME (as report --participant), type:TASK_TYPE, reward:0|1|none (the latest "
    "grade), trial:N (run --trials), ended:submit|max-turns|query-error|... (how it ended), "
    "label:LABEL, source:SOURCE, split:b2b|b2c|chat|single|b2b-chat. A filter takes alternatives "
    "with commas (kind:query,search). @NAME runs a saved search."
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "search",
        help="find steps across every session (full-text, with field filters); label them",
        description=f"Print the steps (events) that match QUERY, with their session, event "
        f"number and a snippet. {SYNTAX}",
    )
    parser.add_argument("query", nargs="?", metavar="QUERY", help="the search, or @NAME")
    parser.add_argument(
        "--limit", type=int, default=20, metavar="N", help="steps printed (default: 20; 0: all)"
    )
    parser.add_argument("--save", metavar="NAME", help="save the search under NAME")
    parser.add_argument("--saved", action="store_true", help="list the saved searches")
    parser.add_argument(
        "--label",
        metavar="LABEL",
        help="give every match this label (from the failure taxonomy), signed by --as",
    )
    parser.add_argument(
        "--note", default="", metavar="TEXT", help="the note every label --label gives carries"
    )
    parser.add_argument(
        "--unlabel",
        metavar="LABEL",
        help="remove this label, given by --as, from every match (as --level says)",
    )
    parser.add_argument("--as", dest="annotator", metavar="NAME", help="the labelling annotator")
    parser.add_argument(
        "--level",
        choices=("step", "session"),
        default="step",
        help="label each matching step, or each matching session once (default: step)",
    )
    add_db(parser)
    add_format(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.search import NoSavedSearch
    from crmarena_tui.storage.search_query import SearchSyntaxError

    if args.limit < 0:
        raise UserError("--limit must be 0 (all) or more", code=ExitCode.USAGE)
    if not args.saved and not args.query:
        raise UserError("give a QUERY (or --saved to list the saved searches)", code=ExitCode.USAGE)
    if (args.label is not None or args.unlabel is not None) and not args.annotator:
        raise UserError(
            "--label and --unlabel need --as NAME (the annotator the labels are signed by)",
            code=ExitCode.USAGE,
        )
    if args.note and args.label is None:
        raise UserError("--note goes with --label (the note its labels carry)", code=ExitCode.USAGE)
    path = db_path(args)
    if not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or play, run or import first)")
    try:
        with Store(path) as store:
            code = _list_saved(store, args.format) if args.saved else _search(store, args)
            sys.stdout.flush()  # (here, where a closed pipe is caught, not at exit)
            return code
    except NoSavedSearch as exc:  # (found wrong: exit code 1)
        raise UserError(str(exc)) from None
    except SearchSyntaxError as exc:  # (the QUERY as written)
        raise UserError(str(exc), code=ExitCode.USAGE) from None
    except BrokenPipeError:  # (`search ... | head -1`: the reader has all it wants)
        quiet_pipe()
        return 0
    except sqlite3.OperationalError as exc:  # (the index's catch-up waits for the write lock)
        if "locked" not in str(exc) and "busy" not in str(exc):
            raise  # (not busy: cli.main says what it is, e.g. a damaged file)
        raise UserError(
            f"the sessions database is busy ({exc}): try again once it is free"
        ) from exc
    except OSError as exc:  # (a sessions database's own faults: StorageError, from cli.main)
        raise UserError(str(exc)) from exc


def _list_saved(store: Store, fmt: str) -> int:
    from crmarena_tui.storage.search import saved

    rows = saved(store)
    if fmt == "json":
        print(json.dumps([{"name": n, "query": q, "saved_at": t} for n, q, t in rows], indent=2))
    elif not rows:
        print("no saved searches (save one with: search QUERY --save NAME)")
    else:
        width = max(len(n) for n, _, _ in rows)
        for name, query, _ in rows:
            print(f"@{name:<{width}}  {query}")
    return 0


def _check_label(label: str) -> None:
    """Refuse (exit code 2) a label the failure taxonomy does not hold."""
    taxonomy = load_command_settings().taxonomy
    if label not in taxonomy:
        raise UserError(
            f"{label!r} is not in the failure taxonomy ({', '.join(taxonomy)})",
            code=ExitCode.USAGE,
        )


def _search(store: Store, args: argparse.Namespace) -> int:
    from crmarena_tui.storage import search

    if args.label is not None:
        _check_label(args.label)
    if args.save:
        search.check_name(args.save)  # (a bad name is refused before anything is written)
    result = search.run(store, args.query, progress=indexing, page=args.limit or None)
    if args.save:
        search.save(store, args.save, result.query.text)
    labelled = unlabelled = None
    targets: list[tuple[int, int | None]] = []
    labelling = args.label is not None or args.unlabel is not None
    if labelling and args.level == "step" and not result.query.event_level:
        raise UserError(
            "this search names no step (only session facts or negations): label its sessions"
            " with --level session",
            code=ExitCode.USAGE,
        )
    if labelling:
        targets = (
            [(sid, None) for sid in result.sessions]
            if args.level == "session"
            else list(result.hits)
        )
    if args.label is not None:
        labelled = store.annotations.label_many(targets, args.label, args.annotator, args.note)
    if args.unlabel is not None:
        unlabelled = store.annotations.unlabel_many(targets, args.unlabel, args.annotator)
    rows = search.describe(store, result)
    if args.format == "json":
        print(json.dumps(_json(result, rows, args, labelled, unlabelled), indent=2))
        return 0
    _print_table(result, rows)
    if args.save:
        print(f"saved as @{search.check_name(args.save)}")
    if labelled is not None:
        what = "session(s)" if args.level == "session" else "step(s)"
        print(
            f"labelled {labelled} {what} {args.label!r} as {args.annotator}"
            f" ({len(targets) - labelled} had it already)"
        )
    if unlabelled is not None:
        what = "session(s)" if args.level == "session" else "step(s)"
        print(f"removed {args.unlabel!r} by {args.annotator} from {unlabelled} {what}")
    return 0


def quiet_pipe() -> None:
    """stdout's reader is gone: point stdout at /dev/null so that exiting flushes nothing."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def indexing(done: int, total: int) -> None:
    """The first search after an import indexes its sessions: a line on stderr per chunk."""
    from crmarena_tui.storage.search import indexing_note

    print(indexing_note(done, total), file=sys.stderr, flush=True)


def _json(
    result: SearchResult,
    rows: list[dict[str, Any]],
    args: argparse.Namespace,
    labelled: int | None,
    unlabelled: int | None,
) -> dict[str, Any]:
    return {
        "query": result.query.text,
        "steps": result.steps,
        "sessions": result.session_count,
        "elapsed_ms": round(result.elapsed_ms, 1),
        "matches": rows,
        "saved_as": args.save,
        "labelled": labelled,
        "unlabelled": unlabelled,
    }


def _print_table(result: SearchResult, rows: list[dict[str, Any]]) -> None:
    steps, sessions = result.steps, result.session_count
    print(
        f"{steps:,} step(s) in {sessions:,} session(s) match {result.query.text!r}"
        f" ({result.elapsed_ms:.0f} ms)"
    )
    if not rows:
        return
    width = max(len(str(r["session"])) for r in rows)
    print(f"{'session':>{max(width, 7)}}  {'event':>5}  {'kind':<11} {'actor':<6}  snippet")
    for r in rows:
        print(
            f"{r['session']:>{max(width, 7)}}  {r['seq']:>5}  {r['kind']:<11} {r['actor']:<6}"
            f"  {r['snippet']}"
        )
    if len(rows) < steps:
        print(f"... {steps - len(rows):,} more (--limit 0 prints all)")
