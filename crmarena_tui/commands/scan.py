"""`crmarena-tui scan`: a model reads the selected sessions and proposes failure-mode labels (or
answers a rubric), stored as suggestions beside people's labels (scans/scanner.py); rubrics saved
by name; a themes pass over reasons and notes (commands/_scan_themes.py); the scans listed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.commands.common import add_db, db_path, load_command_settings
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.llm.client import LLMClient
    from crmarena_tui.scans.scanner import Question
    from crmarena_tui.storage.store import Store

ORDER = 86


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "scan",
        help="a model reads failed sessions and proposes failure-mode labels (or answers a "
        "rubric), stored as suggestions beside people's labels; themes over reasons and notes",
        description="Read every selected session (by default the failed ones: newest grade below "
        "1) with --model and store what it proposes as suggestions, never as labels. Prints an "
        "estimate of tokens and cost first and asks above --max-cost. Run the same command "
        "again to resume a scan that was stopped: sessions it read are not read again.",
    )
    parser.add_argument("--model", metavar="MODEL", help="litellm model name that reads")
    parser.add_argument("--api-base", metavar="URL", help="OpenAI-compatible base URL for it")
    parser.add_argument(
        "--where",
        default="",
        metavar="TEXT",
        help="only the sessions the sessions list's filter keeps for TEXT (as export --where)",
    )
    parser.add_argument(
        "--search",
        default="",
        metavar="QUERY",
        help="only the sessions this search (or @NAME) finds",
    )
    parser.add_argument(
        "--include-passed",
        action="store_true",
        help="read the selected sessions that passed too (default: those whose newest grade is "
        "below 1, and ungraded ended ones)",
    )
    parser.add_argument(
        "--rubric", metavar="NAME", help="answer this saved rubric instead of proposing labels"
    )
    parser.add_argument(
        "--name", metavar="NAME", help="the scan's name (default: labels@MODEL or RUBRIC@MODEL)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=4, metavar="N", help="sessions read at once (default: 4)"
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=2,
        metavar="N",
        help="times a reply that is not the JSON asked for is asked again (default: 2)",
    )
    parser.add_argument(
        "--max-cost",
        type=float,
        default=1.0,
        metavar="USD",
        help="ask before a scan whose estimated cost is above this (default: 1.00)",
    )
    parser.add_argument("--yes", action="store_true", help="start without asking")
    parser.add_argument(
        "--estimate", action="store_true", help="print the estimate and stop (read nothing)"
    )
    parser.add_argument(
        "--save-rubric",
        metavar="NAME",
        help="save a rubric: --question and --answer-schema (JSON Schema, inline or a file)",
    )
    parser.add_argument("--question", metavar="TEXT", help="the rubric's question")
    parser.add_argument(
        "--answer-schema", metavar="JSON|FILE", help="the JSON Schema of the rubric's answer"
    )
    parser.add_argument(
        "--show-answer",
        action="store_true",
        help="with --save-rubric: the rubric's transcripts show the task's expected answer "
        "(no scan shows it otherwise)",
    )
    parser.add_argument("--rubrics", action="store_true", help="list the saved rubrics")
    parser.add_argument(
        "--list", action="store_true", help="list the scans: name, model, readings, cost"
    )
    parser.add_argument(
        "--themes",
        action="store_true",
        help="group the reasons and notes of the selected sessions into themes with --model",
    )
    parser.add_argument(
        "--of",
        metavar="SCAN",
        help="with --themes: only the reasons of this scan (name or id; default: every scan's)",
    )
    add_db(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.storage import Store

    path = db_path(args)
    if args.save_rubric:
        return _save_rubric(args, path)
    if not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or play, run or import first)")
    # readings are committed without waiting for the disk (synchronous=NORMAL: a killed process
    # loses none; a power cut may lose the last ones, which the next run reads again)
    with Store(path, durability="normal") as store:
        if args.rubrics:
            return _print_rubrics(store)
        if args.list:
            return _print_scans(store)
        if not args.model:
            raise UserError("pass --model MODEL (a litellm model name)", code=ExitCode.USAGE)
        if args.concurrency < 1 or args.retries < 0:
            raise UserError("--concurrency is 1 or more, --retries 0 or more", code=ExitCode.USAGE)
        sessions, selection = _select(store, args)
        if args.themes:
            from crmarena_tui.commands._scan_themes import run_themes

            return run_themes(store, args, sessions, selection, _client(args))
        return _scan(store, args, sessions, selection)


def _select(store: Store, args: argparse.Namespace) -> tuple[list[int], str]:
    """The ids of the sessions `--where`, `--search` and `--include-passed` select, and the
    selection's text (stored with the scan: a resumed scan must select the same way)."""
    from crmarena_tui.commands.export import _keep
    from crmarena_tui.reports.session_rows import where_filter
    from crmarena_tui.storage.listing import list_sessions

    where, searched = args.where, args.search
    if where.lstrip().startswith("?"):
        where, searched = "", where.lstrip()[1:]
    keep = _keep(store, where_filter(where), searched)
    people = {p.id: p for p in store.participants()}
    rows = [r for r in list_sessions(store) if r.status != "in_progress"]
    if keep is not None:
        rows = [r for r in rows if keep(r, people[r.participant_id])]
    wanted = sorted(r.id for r in rows)
    if not args.include_passed and not args.themes:
        rewards = dict(store.read("SELECT session_id, reward FROM grades ORDER BY id"))
        wanted = [s for s in wanted if (rewards.get(s) or 0.0) < 1.0]
    parts = [f"where={where.strip()}" if where.strip() else "", f"search={searched.strip()}"]
    parts.append("" if args.include_passed or args.themes else "failed")
    return wanted, " ".join(p for p in parts if p and p != "search=")


def _client(args: argparse.Namespace) -> LLMClient:
    from crmarena_tui.llm.client import make_client
    from crmarena_tui.llm.keys import missing_key

    settings = load_command_settings()
    api_base = args.api_base or settings.api_base
    variable = missing_key(args.model, api_base=api_base)
    if variable is not None:
        raise UserError(f"{args.model} needs {variable} in the environment (or pass --api-base)")
    return make_client(args.model, api_base=api_base, settings=settings, timeout=120)


def _question(store: Store, args: argparse.Namespace) -> Question:
    from crmarena_tui.scans.scanner import Question
    from crmarena_tui.storage import rubrics

    if args.rubric:
        try:
            rubric = rubrics.named(store, args.rubric)
        except rubrics.NoRubric as exc:
            raise UserError(str(exc), code=ExitCode.USAGE) from None
        return Question(
            "rubric", (), rubric.name, rubric.question, rubric.answer_schema, rubric.show_answer
        )
    return Question("labels", tuple(load_command_settings().taxonomy))


def _scan(store: Store, args: argparse.Namespace, sessions: list[int], selection: str) -> int:
    from crmarena_tui.scans.estimate import estimate
    from crmarena_tui.scans.scanner import Scanner

    question = _question(store, args)
    name = args.name or f"{question.rubric or 'labels'}@{args.model}"
    settings: dict[str, Any] = {
        "kind": "rubric" if question.rubric else "labels",
        "model": args.model,
        "prompt_version": question.prompt_version,
        "selection": selection,
        "taxonomy": question.taxonomy,
        "rubric": question.rubric,
        "question": question.question,
        "answer_schema": question.answer_schema,
    }
    before = store.suggestions.find(name, **settings)
    done = store.suggestions.read_sessions(before.id) if before is not None else set()
    held = _held_by_others(store, before.id) if before is not None else {}
    busy = [s for s in sessions if s not in done and s in held]
    todo = [s for s in sessions if s not in done and s not in held]
    guess = estimate(store, todo, question, args.model)
    print(
        f"scan {before.id if before else '(new)'} {name!r}: {len(sessions)} session(s) selected"
        f" ({selection or 'all'}), {len(done & set(sessions))} read before,"
        f"{_elsewhere(busy, held, 'being read by another scan now')} {len(todo)} to read"
    )
    print(f"estimate: {guess.line()}")
    if args.estimate:
        return 0
    if not todo:
        if before is not None and not busy:
            store.suggestions.finish(before.id)
        print("nothing to read")
        return 0
    _confirm(guess.cost, args)
    scan = store.suggestions.start(name, **settings)
    client = _client(args)
    from crmarena_tui.llm.client import calls_litellm, load_litellm

    if calls_litellm(client):
        load_litellm()  # (imported first: a reading's seconds are the model's, not the import's)
    scanner = Scanner(
        store,
        scan,
        question,
        client,
        concurrency=args.concurrency,
        retries=args.retries,
        on_reading=_Ticker(len(todo)),
    )
    progress = scanner.run(sessions, read_before=done)
    totals = store.suggestions.totals(scan.id)
    cost = "unknown" if progress.cost is None else f"${progress.cost:.4f}"
    print(
        f"read {progress.read} session(s), {progress.failed} failed, {progress.skipped} skipped"
        f" (read before);{_others(progress)} {progress.suggestions} suggestion(s); tokens"
        f" {progress.tokens_in:,} in, {progress.tokens_out:,} out; cost {cost}"
    )
    if totals.labels:
        print("labels: " + ", ".join(f"{k} {v}" for k, v in totals.labels.items()))
    if progress.failed:
        print(
            f"{progress.failed} reading(s) failed (first: {progress.errors[0]}); run the same "
            "command again to retry them",
            file=sys.stderr,
        )
        return int(ExitCode.FAILED)
    return 0


def _held_by_others(store: Store, scan_id: int) -> dict[int, str]:
    from crmarena_tui.storage.scan_claims import ScanClaims

    return ScanClaims(store, scan_id).held_by_others()


def _elsewhere(busy: list[int], held: dict[int, str], what: str) -> str:
    """` N being read by another scan now (pid P),` when another run holds some (else "")."""
    if not busy:
        return ""
    who = ", ".join(sorted({held[s] for s in busy}))
    return f" {len(busy)} {what} ({who}),"


def _others(progress: Any) -> str:
    """What other runs of the scan did meanwhile (scans/scanner.py), for the summary line."""
    if not progress.by_others and not progress.left_to_others:
        return ""
    who = ", ".join(sorted(progress.others))
    parts = [f"{progress.by_others} read by another scan meanwhile"] if progress.by_others else []
    if progress.left_to_others:
        parts.append(f"{progress.left_to_others} left to another scan still reading them")
    return f" {', '.join(parts)}{f' ({who})' if who else ''};"


def _confirm(cost: float | None, args: argparse.Namespace) -> None:
    """Ask before a scan estimated above --max-cost (refused without a terminal or --yes)."""
    if args.yes or cost is None or cost <= args.max_cost:
        return
    above = f"the estimate (${cost:.4g}) is above --max-cost (${args.max_cost:.4g})"
    if not sys.stdin.isatty():
        raise UserError(f"{above}: pass --yes, or a higher --max-cost", code=ExitCode.USAGE)
    answer = input(f"{above}; start the scan? [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        raise UserError("scan not started", code=ExitCode.FAILED)


class _Ticker:
    """A line on stderr every tenth of the readings (and at the last)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.every = max(1, total // 10)

    def __call__(self, session_id: int, reading: Any) -> None:
        self.done += 1
        if self.done % self.every == 0 or self.done == self.total:
            print(f"  {self.done}/{self.total} read", file=sys.stderr, flush=True)


def _save_rubric(args: argparse.Namespace, path: Path) -> int:
    from crmarena_tui.storage import Store, rubrics

    if not args.question or not args.answer_schema:
        raise UserError(
            "--save-rubric NAME needs --question TEXT and --answer-schema JSON|FILE",
            code=ExitCode.USAGE,
        )
    schema = _schema(args.answer_schema)
    with Store(path) as store:
        rubric = rubrics.Rubric(args.save_rubric, args.question, schema, "", args.show_answer)
        rubrics.save(store, rubric)
    shown = " (its transcripts show the expected answer)" if args.show_answer else ""
    print(f"saved rubric {args.save_rubric!r}: {args.question}{shown}")
    return 0


def _schema(text: str) -> dict[str, Any]:
    """The JSON Schema `text` is (or the file it names holds), checked by jsonschema."""
    import jsonschema

    where = "--answer-schema"
    source = Path(text)
    if not text.lstrip().startswith("{") and source.is_file():
        where, text = str(source), source.read_text(encoding="utf-8")
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{where}: not JSON: {exc}", code=ExitCode.USAGE) from None
    if not isinstance(schema, dict):
        raise UserError(f"{where}: a JSON Schema is an object", code=ExitCode.USAGE)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise UserError(f"{where}: not a JSON Schema: {exc.message}", code=ExitCode.USAGE) from None
    return schema


def _print_rubrics(store: Store) -> int:
    from crmarena_tui.storage import rubrics

    found = rubrics.saved(store)
    for rubric in found:
        shown = "  (shows the expected answer)" if rubric.show_answer else ""
        print(
            f"{rubric.name}: {rubric.question}  answer: {json.dumps(rubric.answer_schema)}{shown}"
        )
    if not found:
        print("no rubric is saved (scan --save-rubric NAME --question ... --answer-schema ...)")
    return 0


def _print_scans(store: Store) -> int:
    scans = store.suggestions.scans()
    for scan in scans:
        totals = store.suggestions.totals(scan.id)
        cost = totals.cost if scan.kind != "themes" else scan.cost
        shown = "unknown" if cost is None else f"${cost:.4f}"
        state = "finished" if scan.finished_at else "unfinished"
        print(
            f"{scan.id}  {scan.name}  {scan.kind}  {scan.model}  {scan.prompt_version}"
            f"  {totals.read} read, {totals.failed} failed, {totals.suggestions} suggestion(s)"
            f"  cost {shown}  {state}  {scan.selection}"
        )
    if not scans:
        print("no scan has run (crmarena-tui scan --model MODEL)")
    return 0
