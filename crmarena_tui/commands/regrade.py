"""`crmarena-tui regrade`: grade stored sessions' answers again (e.g. now with a judge model)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from crmarena_tui.commands.common import (
    add_db,
    add_format,
    add_judge_temperature,
    add_upstream_prompts,
    check_prompts,
    db_path,
    load_command_settings,
    note,
)
from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.storage.store import Store

ORDER = 55


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "regrade",
        help="grade submitted sessions again (e.g. with a judge); old grades are kept",
        description="Grade the submitted answer of each SESSION again with the current graders "
        "and judge, and store the new grade beside the old one (the newest grade is the one the "
        "app, the report and exports show). With no SESSION, every submitted session is "
        "re-graded. Sessions in progress or abandoned have no answer and are skipped. Sessions "
        "imported from upstream result files keep upstream's grade unless --imported is given; "
        "then only the answers upstream graded are graded again (an episode upstream ended "
        "without a confirmed answer scores 0 under upstream). Trajectories imported from ATIF "
        "or Inspect logs with their harness's grade keep it unless --imported is given.",
    )
    parser.add_argument(
        "sessions",
        nargs="*",
        type=int,
        metavar="SESSION",
        help="session ids (default: every submitted session)",
    )
    parser.add_argument(
        "--judge",
        metavar="MODEL",
        default=None,
        help="LLM for answer extraction and privacy judging (default: judge_model from the "
        "settings, else the deterministic graders)",
    )
    add_judge_temperature(parser)
    parser.add_argument(
        "--protocol",
        choices=("upstream", "workbench"),
        default=None,
        help="grading protocol (default: the `protocol` setting, else upstream)",
    )
    parser.add_argument(
        "--imported",
        action="store_true",
        help="re-grade sessions imported with their grade too: upstream result files, ATIF and "
        "Inspect logs (default: they keep the grade they came with)",
    )
    parser.add_argument(
        "--api-base",
        metavar="URL",
        default=None,
        help="API base of an OpenAI-compatible server for the judge",
    )
    add_upstream_prompts(parser)
    add_db(parser)
    add_format(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.llm.errors import LLMError
    from crmarena_tui.session.service import SessionService
    from crmarena_tui.storage import Store

    path = db_path(args)
    if not path.exists():
        raise UserError(f"no sessions database at {path} (pass --db, or play, run or import)")
    settings = load_command_settings(
        judge_model=args.judge,
        judge_temperature=args.judge_temperature,
        api_base=args.api_base,
        protocol=args.protocol,
        upstream_prompts=args.upstream_prompts,
    )
    service = SessionService(settings)
    check_prompts(args, service)
    try:
        service.judge()
    except (LLMError, ValueError) as exc:  # a bad model name or missing provider
        raise UserError(f"cannot set up judge {settings.judge_model!r}: {exc}") from exc
    with Store(path) as store:
        store.check_damage()  # before any write, whatever the file's size
        rows, problems, kept = regrade(store, service, args.sessions, imported=args.imported)
    if args.format == "json":
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    else:
        print_table(rows)
    if kept:
        why = "no answer upstream graded" if args.imported else "--imported re-grades them"
        note(f"note: {kept} imported session(s) keep the grades they came with ({why})")
    for problem in problems:  # each left as it was, and the others re-graded
        note(f"not re-graded: {problem}")
    return ExitCode.FAILED if problems else ExitCode.OK


def regrade(
    store: Store, service: SessionService, session_ids: list[int], *, imported: bool = False
) -> tuple[list[dict[str, Any]], list[str], int]:
    """Re-grade each session: one row per re-graded session, what could not be re-graded, and how
    many imported sessions were left with upstream's grades (see `imported_left_alone`)."""
    from crmarena_tui.session.episode import EpisodeError
    from crmarena_tui.storage import NotFound

    ids = session_ids or [s.id for s in store.sessions(status="submitted")]
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    kept = 0
    for session_id in ids:
        try:
            reason = imported_left_alone(store, session_id, imported)
            if reason is not None:
                if session_ids and not imported:
                    problems.append(
                        f"session {session_id} {reason}: pass --imported to re-grade it"
                    )
                else:
                    kept += 1
                continue
            before = store.grade(session_id)
            after = service.regrade(store, session_id)
        except NotFound:
            problems.append(f"no session {session_id}")
            continue
        except EpisodeError as exc:
            problems.append(str(exc))
            continue
        session = store.session(session_id)
        rows.append(
            {
                "session": session_id,
                "task": f"{session.task_type} #{session.task_idx}",
                "old_reward": None if before is None else before.reward,
                "reward": after.reward,
                "parsed_answer": after.parsed_answer,
                "extraction": after.extraction,
                "judge_model": after.judge_model,
                "protocol": after.protocol,
            }
        )
    return rows, problems, kept


def imported_left_alone(store: Store, session_id: int, imported: bool) -> str | None:
    """Why an imported session keeps its imported grade, or None to re-grade it. Another
    harness's trajectory (ATIF, Inspect) keeps a grade it came with unless `imported`. Upstream
    result files: without `imported`, every session; with it, those with no graded answer
    upstream's runner recorded an end reason for (a run that raised: `{"source": "api"}` and no
    end reason, its evaluation never done or never finished; or no submit event at all)."""
    session = store.session(session_id)
    origin = session.settings.get("imported_from")
    if origin in ("atif", "inspect"):  # another harness's trajectory: its grade is that harness's
        grade = store.grade(session_id)
        if imported or grade is None or grade.protocol != "imported":
            return None
        return f"is imported from {origin} with that harness's grade"
    if origin != "upstream":
        return None
    if not imported:
        return "is imported from upstream (its grade is upstream's)"
    end = session.settings.get("end_reason")
    if not isinstance(end, dict) or not end.get("message"):
        return "ended on an error upstream recorded without grading it"
    if not any(e.kind == "submit" for e in store.events(session_id)):
        return "has no answer upstream graded"
    return None


def print_table(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    def reward(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    table = Table(title=f"{len(rows)} session(s) re-graded")
    for column in ("session", "task", "old reward", "reward", "extraction", "judge"):
        table.add_column(column, justify="right" if "reward" in column else "left")
    for row in rows:
        table.add_row(
            str(row["session"]),
            row["task"],
            reward(row["old_reward"]),
            reward(row["reward"]),
            row["extraction"],
            row["judge_model"] or "-",
        )
    Console(soft_wrap=True).print(table)
