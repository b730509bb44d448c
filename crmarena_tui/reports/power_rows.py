"""`report --mde`: for each configuration and split of the report's overall rows, the smallest
difference in success rate a comparison on its tasks could detect (`reports.power`, 80% power,
alpha = 0.05): paired, another side (K experts per task, `--experts`) on the same tasks; and
independent, another side of as many attempts on other tasks. The row's own success rate is the
rate the difference is taken from; its task count (`tasks`, else its attempts) is T.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table

from crmarena_tui.reports.power import ALPHA, POWER, Mde, independent_mde, paired_mde


def _pair(mde: Mde) -> list[float | None]:
    return [None if v is None else round(v, 4) for v in (mde.up, mde.down)]


def mde_section(
    report: dict[str, Any], *, experts: int = 1, discordance: float | None = None
) -> dict[str, Any]:
    """The `power` section of the report (JSON-ready): one row per overall row."""
    rows = []
    for row in report.get("overall", []):
        tasks = int(row.get("tasks") or row.get("attempts") or 0)
        rate = row.get("success_rate")
        if tasks < 1 or rate is None:
            continue
        try:
            paired: list[float | None] = _pair(
                paired_mde(tasks, rate, experts=experts, discordance=discordance)
            )
        except ValueError:  # a discordance this rate cannot have
            paired = [None, None]
        rows.append(
            {
                "participant": row["participant"],
                "split": row.get("split"),
                "protocol": row.get("protocol"),
                "tasks": tasks,
                "success_rate": rate,
                "paired_mde": paired,
                "independent_mde": _pair(independent_mde(tasks, rate, experts=experts)),
            }
        )
    assumed = (
        f"a discordance of {discordance:g} between the two sides"
        if discordance is not None
        else "the two sides independent on a task (no shared difficulty; if they share it, "
        "the true paired MDE is smaller)"
    )
    return {
        "alpha": ALPHA,
        "power": POWER,
        "experts": experts,
        "discordance": discordance,
        "assumptions": [
            "two-sided, normal approximation, the task as the unit, one attempt per task on "
            "the row's side",
            f"paired: the other side's {experts} attempt(s) per task on the same tasks; {assumed}",
            "independent: the other side's attempts on as many other tasks, pooled rate "
            "under the null",
        ],
        "rows": rows,
    }


def _points(pair: list[float | None]) -> str:
    up, down = pair
    return " / ".join(
        "—" if v is None else f"{sign}{v * 100:.1f} pts" for sign, v in (("+", up), ("-", down))
    )


def mde_table(section: dict[str, Any]) -> RenderableType | None:
    """The section as the report prints it: one row per configuration and split."""
    if not section["rows"]:
        return None
    table = Table(
        title=f"Smallest detectable difference ({section['power']:.0%} power, "
        f"α = {section['alpha']:g})",
        title_justify="left",
        caption="In percentage points above / below the row's success rate (—: none within "
        "[0, 1]). Assumes: " + "; ".join(section["assumptions"]) + ".",
        caption_justify="left",
        expand=False,
    )
    for name, justify in (
        ("participant", "left"),
        ("split", "left"),
        ("protocol", "left"),
        ("tasks", "right"),
        ("success", "right"),
        ("paired", "right"),
        ("independent", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in section["rows"]:
        table.add_row(
            r["participant"],
            r["split"] or "—",
            r["protocol"] or "—",
            str(r["tasks"]),
            f"{r['success_rate']:.1%}",
            _points(r["paired_mde"]),
            _points(r["independent_mde"]),
        )
    return table
