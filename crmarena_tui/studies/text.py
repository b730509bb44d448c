"""Study output as plain text: aligned columns that read the same in a terminal and a pipe."""

from __future__ import annotations

from typing import Any

from crmarena_tui.studies.progress import format_seconds


def table(headers: list[str], rows: list[list[str]]) -> str:
    """Aligned columns, numbers right-aligned, two spaces apart."""
    cells = [headers, *rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        out = []
        for i, cell in enumerate(row):
            numeric = i > 0 and cell.replace(".", "").replace("%", "").strip().isdigit()
            out.append(cell.rjust(widths[i]) if numeric else cell.ljust(widths[i]))
        return "  ".join(out).rstrip()

    return "\n".join(line(row) for row in cells)


def _estimate(found: dict[str, Any] | None) -> str:
    if not found:
        return "-"
    label = "F1 " if found["method"] == "bootstrap" else ""
    return f"{label}{found['value']:.3f} [{found['low']:.3f}, {found['high']:.3f}]"


def _time(found: dict[str, Any] | None) -> str:
    if not found:
        return "-"
    return f"{format_seconds(found['median_s'])} (IQR {format_seconds(found['iqr_s'])})"


_KAPPA = {"scott_pi": "Scott's pi", "fleiss": "Fleiss", "cohen": "Cohen"}


def _agreement(found: dict[str, Any] | None) -> tuple[str, str]:
    if not found:
        return "-", "-"
    kind = _KAPPA.get(found["kappa_kind"], found["kappa_kind"])
    few = " (!)" if found.get("warning") else ""
    if found["kappa"] is None:  # every rating the same: chance agreement is 1
        return f"{found['all_agree']}/{found['tasks']}", f"n/a ({kind}: all rated alike){few}"
    return f"{found['all_agree']}/{found['tasks']}", f"{found['kappa']:.3f} ({kind}){few}"


def _split(name: str) -> str:
    return "all splits" if name == "all" else name


def render_study_report(report: dict[str, Any]) -> str:
    head = (
        f"Study {report['study']!r} ({report['status']}): {report['tasks']} tasks, "
        f"{report['per_task']} experts per task, {report['participants']} participants, "
        f"{report['completion']:.1%} of assignments done"
    )
    every = [*report["types"], *report.get("overall", [])]
    rows = [
        [
            _split(r.get("split", "all")),
            r["task_type"],
            r["metric"],
            str(r["tasks"]),
            str(r["n"]),
            _estimate(r["human"]),
            _time(r["time"]),
            *_agreement(r["agreement"]),
            r.get("protocol", "-"),
            str(r.get("no_answer", 0)),
        ]
        for r in every
    ]
    headers = ["split", "task type", "metric", "tasks", "n", "accuracy [95% CI]", "median time"]
    out = [head]
    out += [f"warning: {w}" for w in report.get("warnings", [])]
    if any((r.get("agreement") or {}).get("warning") for r in every):
        out.append("(!) a kappa over fewer than 5 tasks done by every expert: not reliable")
    out += [
        "",
        "Humans (95% intervals: Wilson for the share correct; percentile bootstrap for mean F1; "
        "the overall rows of mixed metrics: Wilson for the share of wins; kappa: Fleiss', "
        "Scott's pi with two experts per task, the same whatever order the experts are listed in):",
        table([*headers, "all agree", "kappa", "protocol", "no answer"], rows),
    ]
    agents = [
        [
            _split(r.get("split", "all")),
            r["task_type"],
            a["agent"],
            a["protocol"],
            str(a["n"]),
            _estimate(a),
            _estimate(r["human"]),
            str(a.get("no_answer", 0)),
        ]
        for r in every
        for a in r["agents"]
    ]
    if agents:
        out += [
            "",
            "Agents on the study's tasks, humans beside:",
            table(
                [
                    "split",
                    "task type",
                    "agent",
                    "protocol",
                    "n",
                    "accuracy [95% CI]",
                    "humans",
                    "no answer",
                ],
                agents,
            ),
        ]
    return "\n".join(out)
