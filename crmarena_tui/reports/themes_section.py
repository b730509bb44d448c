"""The report's Themes section: the newest themes pass (`crmarena-tui scan --themes`,
storage/themes.py), each theme with its sessions per configuration and links to example steps
(`SESSION:STEP`, as `crmarena-tui view` opens them). The pass covers the sessions it was run on
(its selection is shown), whatever filters the rest of the report has."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType

    from crmarena_tui.storage.store import Store

EXAMPLES = 3


def themes_section(store: Store) -> dict[str, Any] | None:
    """The section as JSON-ready data; None when no themes pass has run."""
    from crmarena_tui.storage import themes

    scan = themes.latest(store)
    if scan is None:
        return None
    rows = [
        {
            "theme": t.name,
            "description": t.description,
            "sessions": t.sessions,
            "texts": len(t.members),
            "per_configuration": t.per_configuration,
            "examples": [m.link for m in t.members[:EXAMPLES]],
        }
        for t in themes.of_scan(store, scan.id)
    ]
    return {
        "scan": scan.id,
        "model": scan.model,
        "prompt_version": scan.prompt_version,
        "selection": scan.selection,
        "finished_at": scan.finished_at,
        "themes": rows,
    }


def themes_table(section: dict[str, Any]) -> RenderableType:
    from rich.table import Table

    table = Table(
        title=f"Themes (scan {section['scan']}, {section['model']}; "
        f"{section['selection'] or 'every session'})",
        title_justify="left",
    )
    for column in ("theme", "sessions", "by configuration", "examples", "description"):
        table.add_column(column, overflow="fold")
    for row in section["themes"]:
        table.add_row(
            row["theme"],
            str(row["sessions"]),
            ", ".join(f"{c} {n}" for c, n in row["per_configuration"].items()),
            " ".join(row["examples"]),
            row["description"],
        )
    return table
