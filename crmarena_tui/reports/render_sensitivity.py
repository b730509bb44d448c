"""`report --sensitivity` as a rich table (`reports.sensitivity` computes it)."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table

COLUMNS = (
    ("unconfirmed", "unconfirmed answer"),
    ("give_up", 'give-up read as "None"'),
    ("privacy_yes", 'privacy "yes" anywhere'),
    ("fuzzy_f1", "fuzzy F1"),
    ("other", "other"),
)


def sensitivity_table(section: dict[str, Any]) -> RenderableType:
    rows = section["rows"]
    table = Table(
        title="Sensitivity to grading: each stored answer graded offline under both protocols "
        "(stored judge readings reused, nothing written)",
        title_justify="left",
        caption="changed: grades whose reward differs (↑ higher under workbench, ↓ lower); the "
        "reason columns split them. Imported sessions: upstream's own grade against the "
        "workbench's offline grading.",
        caption_justify="left",
        expand=False,
    )
    table.add_column("participant", justify="left", max_width=30)
    for name in ("sessions", "wins upstream", "wins workbench", "changed"):
        table.add_column(name, justify="right")
    for _key, title in COLUMNS:
        table.add_column(title, justify="right", max_width=12)
    if not rows:
        table.add_row("(no graded answers)", *[""] * (4 + len(COLUMNS)))
    for r in rows:
        table.add_row(
            r["participant"],
            str(r["sessions"]),
            str(r["upstream_wins"]),
            str(r["workbench_wins"]),
            f"{r['changed']} (↑{r['workbench_higher']} ↓{r['workbench_lower']})",
            *(str(r["reasons"][key]) for key, _title in COLUMNS),
        )
    return table
