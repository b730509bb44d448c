"""The report as rich tables with simple bar charts, for the command line (no textual here)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from crmarena_tui.reports.provenance import provenance_table, provenance_warnings
from crmarena_tui.reports.render_costs import efficiency_table, paired_tables
from crmarena_tui.reports.render_scanners import scanner_tables
from crmarena_tui.reports.render_units import pass_k_table, rate_interval, trials_text, units_lines
from crmarena_tui.reports.units import format_duration

BAR_WIDTH = 10
TEXT_COLUMNS = (
    "participant",
    "tasks",
    "kind",
    "task type",
    "skill",
    "human",
    "agent",
    "annotators",
    "level",
    "label",
    "chart",
    "protocol",
    "protocols",
    "split",
    "annotator",
    "time",
    "measure",
)


def bar(fraction: float, width: int = BAR_WIDTH) -> Text:
    """A bar of `width` cells for a fraction in [0, 1], filled in eighths of a cell."""
    fraction = min(max(fraction, 0.0), 1.0)
    full, part = divmod(round(fraction * width * 8), 8)
    body = "█" * full + ("" if part == 0 else " ▏▎▍▌▋▊▉"[part])
    return Text(body.ljust(width), style="green")


def _table(title: str, columns: list[str]) -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    for name in columns:
        text = name in TEXT_COLUMNS
        table.add_column(
            name,
            justify="left" if text else "right",
            no_wrap=name == "chart",
            max_width=30 if text and name != "chart" else None,
            overflow="fold" if text else "ellipsis",
        )
    return table


def _success(title: str, group: str, rows: list[dict]) -> Table:
    table = _table(
        title,
        [
            "participant",
            "protocol",
            "split",
            group,
            "n",
            "k",
            "wins",
            "success",
            "95% interval",
            "chart",
            "mean reward",
            "no answer",
        ],
    )
    last = None
    for row in rows:
        who = row["participant"] if row["participant"] != last else ""
        last = row["participant"]
        split = row.get("split", "all")
        rate = row.get("task_mean", row["success_rate"])
        table.add_row(
            who,
            row.get("protocol", "unknown"),
            "all splits" if split == "all" else split,
            row["group"],
            str(row["attempts"]),
            trials_text(row),
            str(row["wins"]),
            f"{rate * 100:.1f}%",
            rate_interval(row.get("interval")),
            bar(rate),
            f"{row['mean_reward']:.3f}",
            str(row.get("no_answer", 0)),
        )
    return table


def _caveats(report: dict[str, Any]) -> list[RenderableType]:
    """Lines saying what the figures leave out or mix: infrastructure errors, protocols."""
    lines: list[RenderableType] = []
    chosen = {k: v for k, v in (report.get("filter") or {}).items() if v}
    if chosen:
        said = "; ".join(
            f"{k.replace('_', ' ')} {', '.join(v) if isinstance(v, list) else v}"
            for k, v in chosen.items()
        )
        lines.append(Text(f"Only the sessions with {said}.", style="cyan"))
    splits = report.get("splits") or {}
    if splits:
        each = ", ".join(f"{name} {n}" for name, n in splits.items())
        more = " (rows per split, then over all splits)" if len(splits) > 1 else ""
        lines.append(Text(f"Splits: {each}{more}.", style="dim"))
    broken = report.get("infrastructure_errors") or {}
    if broken.get("total"):
        how = (
            "are counted as failures in the figures below"
            if broken["counted_in_success"]
            else "are left out of the figures below (--with-infrastructure-errors counts them)"
        )
        who = ", ".join(f"{r['participant']} {r['sessions']}" for r in broken["by_participant"])
        lines.append(
            Text(
                f"{broken['total']} session(s) ended on an infrastructure error and {how}: {who}.",
                style="yellow",
            )
        )
    protocols = report.get("protocols") or {}
    if len(protocols) > 1:
        mix = ", ".join(f"{name} {n}" for name, n in protocols.items())
        lines.append(
            Text(f"Rewards come from more than one grading protocol: {mix}.", style="yellow")
        )
    ran = report.get("session_protocols") or {}
    if len(ran) > 1:
        mix = ", ".join(f"{name} {n}" for name, n in ran.items())
        lines.append(
            Text(
                f"Sessions ran under more than one agent protocol ({mix}): the figures below mix "
                "them.",
                style="yellow",
            )
        )
    return lines


def _label_tables(labels: dict[str, list[dict]]) -> list[RenderableType]:
    """Labels by annotator and level, sessions labelled, and labels by participant."""
    parts: list[RenderableType] = []
    if labels.get("by_annotator"):
        table = _table(
            "Labels by annotator and level",
            ["annotator", "level", "label", "count", "sessions", "share", "chart"],
        )
        last = None
        for r in labels["by_annotator"]:
            head = (r["annotator"], r["level"])
            table.add_row(
                r["annotator"] if head != last else "",
                r["level"] if head != last else "",
                r["label"],
                str(r["count"]),
                str(r["sessions"]),
                f"{r['share'] * 100:.0f}%",
                bar(r["share"]),
            )
            last = head
        parts.append(table)
    if labels.get("sessions_labelled"):
        table = _table(
            "Sessions labelled, by annotator and level",
            ["annotator", "level", "sessions", "labels"],
        )
        for r in labels["sessions_labelled"]:
            table.add_row(r["annotator"], r["level"], str(r["sessions"]), str(r["labels"]))
        parts.append(table)
    if labels.get("by_participant"):
        table = _table(
            "Labels by the labelled session's participant (distinct items, any annotator)",
            ["participant", "level", "label", "items", "sessions"],
        )
        for r in labels["by_participant"]:
            table.add_row(
                r["participant"], r["level"], r["label"], str(r["items"]), str(r["sessions"])
            )
        parts.append(table)
    if labels.get("by_task_type"):
        table = _table(
            "Labels by participant and task type (distinct items, any annotator)",
            ["participant", "task type", "level", "label", "items", "sessions"],
        )
        for r in labels["by_task_type"]:
            table.add_row(
                r["participant"],
                r["task_type"],
                r["level"],
                r["label"],
                str(r["items"]),
                str(r["sessions"]),
            )
        parts.append(table)
    return parts


def _kappa(row: dict) -> str:
    kappa = "n/a" if row["kappa"] is None else f"{row['kappa']:.3f}"
    return kappa + (" (!)" if row.get("warning") else "")


def _agreement_tables(report: dict[str, Any]) -> list[RenderableType]:
    """Cohen's kappa per pair on the label and on the presence of a failure; Fleiss' kappa."""
    parts: list[RenderableType] = []
    for key, title in (
        ("agreement", "Annotator agreement (Cohen's kappa), per level"),
        (
            "agreement_presence",
            "Agreement on whether there is a failure (Cohen's kappa; no label counts as none)",
        ),
    ):
        rows = report.get(key) or []
        if not rows:
            continue
        if key == "agreement" and rows[0].get("no_label_as_category"):
            title += ', "no label" a category'
        table = _table(title, ["annotators", "level", "items", "observed", "kappa"])
        for r in rows:
            table.add_row(
                f"{r['annotator_a']} / {r['annotator_b']}",
                r["level"],
                str(r["items"]),
                f"{r['observed_agreement']:.3f}",
                _kappa(r),
            )
        parts.append(table)
    fleiss = report.get("agreement_fleiss") or []
    if fleiss:
        table = _table(
            "Fleiss' kappa over the items rated by K annotators (pairs that change)",
            ["measure", "level", "K", "annotators", "items", "observed", "kappa"],
        )
        for r in fleiss:
            table.add_row(
                r["measure"]
                + (
                    " (no label a category)"
                    if r["measure"] == "label" and r["no_label_as_category"]
                    else ""
                ),
                r["level"],
                str(r["raters_per_item"]),
                str(r["annotators"]),
                str(r["items"]),
                f"{r['observed_agreement']:.3f}",
                _kappa(r),
            )
        parts.append(table)
    rows = [*(report.get("agreement") or []), *(report.get("agreement_presence") or []), *fleiss]
    if any(r.get("warning") for r in rows):
        parts.append(
            Text("(!) fewer than 5 shared items: the kappa is not reliable.", style="yellow")
        )
    return parts


def render_report(report: dict[str, Any]) -> RenderableType:
    parts: list[RenderableType] = []
    if not report["graded_sessions"]:
        if any((report.get("filter") or {}).values()):
            parts.append(Text("No graded session matches the filter."))
        else:
            parts.append(
                Text("No graded sessions yet: play a task, run an agent or import results.")
            )
    rule = report["win_rule"]
    parts.append(
        Text(
            f"{report['graded_sessions']} graded sessions. A win: reward >= 1 "
            f"(fuzzy_match: {rule['fuzzy_match']}). A participant is one configuration "
            '(model/strategy[/aided][/privacy-aware]); "no answer" counts the rewards given '
            "to answers that gave none.",
            style="dim",
        )
    )
    parts.extend(_caveats(report))
    parts.extend(provenance_warnings(report))  # a configuration whose sessions mix sources
    if report["overall"]:
        parts.extend(units_lines(report))
        parts.append(_success("Success by participant", "tasks", report["overall"]))
        parts.append(
            _success("Success by participant and task type", "task type", report["by_task_type"])
        )
        parts.append(_success("Success by participant and skill", "skill", report["by_skill"]))
        parts.extend(pass_k_table(report))
    parts.extend(provenance_table(report))  # where the figures come from (reports/provenance.py)
    if report.get("continuations"):
        parts.append(
            _success(
                "Forks and take-overs (continuations of other sessions, not counted above)",
                "kind",
                report["continuations"],
            )
        )
    if report["human_time"]:
        table = _table(
            "Human active time per task (graded attempts; time is not graded)",
            ["task type", "n", "median", "IQR", "q1", "q3", "min", "max"],
        )
        for r in report["human_time"]:
            table.add_row(
                r["task_type"],
                str(r["n"]),
                *(
                    format_duration(r[k])
                    for k in ("median_s", "iqr_s", "q1_s", "q3_s", "min_s", "max_s")
                ),
            )
        parts.append(table)
    if report["human_vs_agent"]:
        table = _table(
            "Human against agent on shared tasks",
            [
                "human",
                "agent",
                "protocols",
                "shared",
                "human only",
                "agent only",
                "both",
                "neither",
            ],
        )
        for r in report["human_vs_agent"]:
            table.add_row(
                r["human"],
                r["agent"],
                r.get("protocols", "unknown"),
                str(r["shared_tasks"]),
                str(r["human_only"]),
                str(r["agent_only"]),
                str(r["both"]),
                str(r["neither"]),
            )
        parts.append(table)
    costs = efficiency_table(report.get("efficiency") or [])
    if costs is not None:
        parts.append(costs)
    parts.extend(paired_tables(report.get("paired")))
    parts.extend(_label_tables(report.get("labels") or {}))
    parts.extend(_agreement_tables(report))
    parts.extend(scanner_tables(report.get("agreement_scanners") or []))
    return Group(*parts)
