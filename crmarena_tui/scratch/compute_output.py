"""What one computation of the scratch pane gave: a value (an expression) or a table (SQL), or an
error; as text to copy (TSV, CSV) and as the payload of the session's `compute` event."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Literal

ComputeMode = Literal["expression", "sql"]
EVENT_ROWS = 500  # rows kept in the session event; the row count is always kept


@dataclass(frozen=True, slots=True)
class ComputeOutput:
    mode: ComputeMode
    text: str
    columns: list[str] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    value: str = ""  # an expression's result, as shown
    error: str | None = None
    elapsed_ms: float = 0.0
    truncated: bool = False  # more rows existed than were fetched

    @property
    def ok(self) -> bool:
        return self.error is None

    def summary(self) -> str:
        """One line: the value, the size of the table, or the error."""
        if self.error is not None:
            return self.error
        if self.mode == "expression":
            return self.value
        more = "+" if self.truncated else ""
        noun = "row" if len(self.rows) == 1 else "rows"
        return f"{len(self.rows):,}{more} {noun} × {len(self.columns)} columns"

    def as_delimited(self, delimiter: str = "\t") -> str:
        """The output as TSV (or CSV with `,`): a header and one line per row; an expression's
        value is one cell."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
        if self.error is not None:
            writer.writerow([self.error])
        elif self.mode == "expression":
            writer.writerow([self.value])
        else:
            writer.writerow(self.columns)
            writer.writerows(["" if v is None else v for v in row] for row in self.rows)
        return buffer.getvalue()

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> ComputeOutput:
        """The output a `compute` event holds (its rows as kept), e.g. to show it again when a
        session is resumed."""
        mode: ComputeMode = "expression" if payload.get("mode") == "expression" else "sql"
        rows = payload.get("rows") or []
        return cls(
            mode,
            str(payload.get("text", "")),
            columns=[str(c) for c in payload.get("columns") or []],
            rows=[tuple(r) for r in rows if isinstance(r, list | tuple)],
            value=str(payload.get("value", "")),
            error=None if payload.get("error") is None else str(payload["error"]),
            elapsed_ms=float(payload.get("elapsed_ms") or 0.0),
            truncated=int(payload.get("row_count") or 0) > len(rows),
        )

    def payload(self) -> dict[str, Any]:
        """The `compute` event's payload: input, mode and output (rows capped at EVENT_ROWS)."""
        out: dict[str, Any] = {"text": self.text, "mode": self.mode}
        if self.error is not None:
            out["error"] = self.error
        elif self.mode == "expression":
            out["value"] = self.value
        else:
            out["columns"] = list(self.columns)
            out["rows"] = [list(r) for r in self.rows[:EVENT_ROWS]]
            out["row_count"] = len(self.rows)
            if self.truncated or len(self.rows) > EVENT_ROWS:
                out["rows_kept"] = min(len(self.rows), EVENT_ROWS)
        out["elapsed_ms"] = round(self.elapsed_ms, 3)
        return out
