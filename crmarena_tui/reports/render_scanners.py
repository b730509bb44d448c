"""The report's table of model scanners against people (`agreement_scanners`,
reports/scanner_agreement.py): per scan and label, each annotator and the majority, with the
counts behind precision, recall and Cohen's kappa."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def scanner_tables(rows: list[dict[str, Any]]) -> list[RenderableType]:
    """One table of every scan's rows (none when no scan meets a person's labels)."""
    if not rows:
        return []
    table = Table(
        title="Agreement with scanners (per label: the scanner against each annotator)",
        title_justify="left",
    )
    for name in ("scan", "label", "against"):
        table.add_column(name, justify="left", max_width=30)
    for name in ("sessions", "tp", "fp", "fn", "tn", "precision", "recall", "kappa"):
        table.add_column(name, justify="right")
    for r in rows:
        table.add_row(
            r["scan"], r["label"], r["against"],
            *(str(r[k]) for k in ("sessions", "tp", "fp", "fn", "tn")),
            _figure(r["precision"]), _figure(r["recall"]),
            _figure(r["kappa"]) + (" (!)" if r.get("warning") else ""),
        )  # fmt: skip
    parts: list[RenderableType] = [table]
    if any(r.get("warning") for r in rows):
        parts.append(Text("(!) fewer than 5 sessions compared: not reliable.", style="yellow"))
    return parts
