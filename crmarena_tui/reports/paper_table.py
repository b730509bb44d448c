"""`report --format markdown|latex`: the success table laid out as the paper lays it out (issue 35),
ready to paste: a row per configuration and grading protocol, a column per split (B2B and B2C,
single-turn and multi-turn, then any other org type, then all splits when there are several),
each cell the success in percent with its 95% interval, its tasks (n) and trials per task (k).

Under the table, a note says what the figures are: the interval method(s), the clustering, the
sessions left out, the win rule. A `judge` column appears when the report's overall rows carry a
`judge` (the grading provenance of issue 34 fills it); until then the protocol column names what
graded the rows.
"""

from __future__ import annotations

from typing import Any

from crmarena_tui.reports.render_units import trials_text, widest
from crmarena_tui.storage.configuration import ALL_SPLITS

ORG_TYPES = {"b2b": "B2B", "b2c": "B2C", "original": "original"}
MODES = {"single": "single-turn", "chat": "multi-turn"}
_ORDER = ("b2b single", "b2b chat", "b2c single", "b2c chat")


def _split_title(split: str) -> str:
    if split == ALL_SPLITS:
        return "all splits"
    org_type, _, mode = split.partition(" ")
    return f"{ORG_TYPES.get(org_type, org_type)} {MODES.get(mode, mode)}"


def _splits(rows: list[dict[str, Any]]) -> list[str]:
    found = {r["split"] for r in rows}
    known = [s for s in _ORDER if s in found]
    other = sorted(found - set(_ORDER) - {ALL_SPLITS})
    return known + other + ([ALL_SPLITS] if ALL_SPLITS in found else [])


def _cell(row: dict[str, Any] | None, dash: str) -> tuple[str, str]:
    """(success with its interval, `n=…, k=…`) of a row, or dashes where the split has none."""
    if row is None:
        return dash, ""
    rate = row.get("task_mean", row["success_rate"]) * 100
    pair = row.get("interval")
    interval = f" [{pair[0] * 100:.1f}, {pair[1] * 100:.1f}]" if pair else ""
    return f"{rate:.1f}{interval}", f"n={row.get('tasks', row['attempts'])}, k={trials_text(row)}"


def _table(report: dict[str, Any], dash: str) -> tuple[list[str], list[list[str]]]:
    rows = [r for r in report.get("overall") or [] if r["group"] == "all"]
    splits = _splits(rows)
    judged = any(r.get("judge") for r in rows)
    head = ["configuration", "protocol", *(["judge"] if judged else [])]
    head += [_split_title(s) for s in splits]
    by: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["participant"], r["protocol"]), {})[r["split"]] = r
    body = []
    for (who, protocol), cells in by.items():
        line = [who, protocol]
        if judged:
            line.append(next((r["judge"] for r in cells.values() if r.get("judge")), dash))
        for split in splits:
            figure, counts = _cell(cells.get(split), dash)
            line.append(f"{figure} ({counts})" if counts else figure)
        body.append(line)
    return head, body


def _note(report: dict[str, Any]) -> str:
    rows = report.get("overall") or []
    methods = sorted({r["interval_method"] for r in rows if r.get("interval_method")})
    units = report.get("units") or {}
    excluded = sum(r.get("excluded", 0) for r in widest(rows))
    said = [
        "Success in percent, the mean over tasks of each task's share of wins, with its 95% "
        f"interval ({'; '.join(methods) or 'none'}); n tasks, k trials per task.",
        f"A win: reward >= 1 (fuzzy_match: {report['win_rule']['fuzzy_match']}).",
    ]
    if units.get("cluster"):
        said.append(f"Standard errors clustered by {units['cluster']}.")
    broken = report.get("infrastructure_errors") or {}
    if broken.get("counted_in_success"):
        said.append("Runs that ended on an infrastructure error count as failures.")
    else:
        said.append(f"Left out: {excluded} run(s) that ended on an infrastructure error.")
    return " ".join(said)


def _markdown(head: list[str], body: list[list[str]], note: str) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(line) + " |" for line in body]
    return "\n".join([*lines, "", note])


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}  # fmt: skip


def latex_text(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex(head: list[str], body: list[list[str]], note: str) -> str:
    fixed = 3 if "judge" in head else 2
    columns = "l" * fixed + "r" * (len(head) - fixed)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
        " & ".join(latex_text(h) for h in head) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(latex_text(c) for c in line) + r" \\" for line in body]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_text(note)}}}", r"\end{table}"]
    return "\n".join(lines)


def paper_table(report: dict[str, Any], form: str) -> str:
    """The table in `form` (`markdown` or `latex`), with its note."""
    dash = "—" if form == "markdown" else "--"
    head, body = _table(report, dash)
    note = _note(report)
    if not body:
        return "No graded session to tabulate." if form == "markdown" else "% no graded session"
    return _markdown(head, body, note) if form == "markdown" else _latex(head, body, note)
