"""`crmarena-tui grade`: grade one answer to one task, as the benchmark would."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from crmarena_tui.commands.common import (
    add_format,
    add_judge_temperature,
    add_tasks,
    add_upstream_prompts,
    check_prompts,
    load_command_settings,
    load_source,
)
from crmarena_tui.errors import ExitCode, UserError

ORDER = 50


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "grade",
        help="grade an answer to one task (exact_match, fuzzy_match or privacy_rejection)",
        description="Grade ANSWER against task IDX of the task source. Without --judge, answer "
        "items are extracted and refusals recognised by deterministic rules; with --judge MODEL "
        "an LLM does both, as upstream does. --protocol upstream (the default) asks and reads "
        "the judge and computes the metrics as upstream's evaluator does, so scores compare with "
        "the paper's; --protocol workbench reads the judge more forgivingly.",
    )
    add_tasks(parser)
    parser.add_argument("--idx", type=int, required=True, metavar="N", help="the task's idx")
    parser.add_argument("--answer", required=True, metavar="TEXT", help="the submitted answer")
    parser.add_argument(
        "--judge",
        metavar="MODEL",
        default=None,
        help="LLM for answer extraction and the privacy verdict (e.g. gpt-4o; default: "
        "judge_model from the settings, else the deterministic graders)",
    )
    add_judge_temperature(parser)
    parser.add_argument(
        "--api-base",
        metavar="URL",
        default=None,
        help="API base of an OpenAI-compatible server for the judge",
    )
    parser.add_argument(
        "--protocol",
        choices=("upstream", "workbench"),
        default=None,
        help="grading protocol (default: the `protocol` setting, $CRMARENA_TUI_PROTOCOL, "
        "else upstream)",
    )
    parser.add_argument(
        "--trajectory",
        type=Path,
        metavar="FILE",
        default=None,
        help="JSON list of {role, content} messages the agent exchanged "
        "(read by the privacy judge)",
    )
    parser.add_argument(
        "--show-gold",
        action="store_true",
        help="also print the ground truth (hidden by default; refused while the `blind` "
        "setting is on)",
    )
    add_upstream_prompts(parser)
    add_format(parser, ("json", "table"))
    parser.set_defaults(func=run)


def _load_trajectory(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read trajectory {path}: {exc}") from exc
    if not isinstance(data, list) or not all(
        isinstance(m, dict) and "role" in m and "content" in m for m in data
    ):
        raise UserError(f'trajectory {path} must be a JSON list of {{"role", "content"}} objects')
    return data


def _table(payload: dict) -> str:
    width = max(len(key) for key in payload)
    lines = []
    for key, value in payload.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}={_short(v)}" for k, v in value.items()) or "-"
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value) or "[]"
        lines.append(f"{key.ljust(width)}  {_short(value)}")
    return "\n".join(lines)


def _short(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    text = "-" if value is None else str(value)
    return text if len(text) <= 200 else text[:197] + "..."


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.graders import grade
    from crmarena_tui.llm.errors import LLMError
    from crmarena_tui.tasks.loaders import TaskLoadError

    try:
        tasks = load_source(args)
    except TaskLoadError as exc:
        raise UserError(f"cannot load tasks from {args.tasks}: {exc}") from exc
    task = next((t for t in tasks if t.idx == args.idx), None)
    if task is None:
        span = f" (idx {min(t.idx for t in tasks)}..{max(t.idx for t in tasks)})" if tasks else ""
        raise UserError(
            f"no task with idx {args.idx} in {args.tasks}: it has {len(tasks)} tasks{span}"
        )

    trajectory = None
    if args.trajectory is not None:
        trajectory = _load_trajectory(args.trajectory)

    from crmarena_tui.session.service import SessionService

    settings = load_command_settings(
        judge_model=args.judge,
        judge_temperature=args.judge_temperature,
        api_base=args.api_base,
        protocol=args.protocol,
        upstream_prompts=args.upstream_prompts,
    )
    if args.show_gold and settings.blind:
        raise UserError(
            "--show-gold is refused while the blind setting is on (a study must not "
            "see a gold answer); turn it off first: CRMARENA_TUI_BLIND=0, or blind = false in "
            "config.toml",
            code=ExitCode.USAGE,
        )
    service = SessionService(settings)
    check_prompts(args, service)
    try:
        judge = service.judge()
    except (LLMError, ValueError) as exc:  # a bad model name or missing provider
        raise UserError(f"cannot set up judge {settings.judge_model!r}: {exc}") from exc

    result = grade(task, args.answer, trajectory=trajectory, judge=judge, protocol=service.protocol)
    payload = {"task": task.task, "idx": task.idx, "source": task.source, **result.model_dump()}
    if args.show_gold:
        payload["gold"] = task.gold
    if args.format == "table":
        print(_table(payload))
    else:
        print(json.dumps(payload, ensure_ascii=False, indent=1))
    return 0
