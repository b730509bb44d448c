"""`crmarena-tui export --themes`: the newest themes pass (`scan --themes`, storage/themes.py) as
one row per reason or note grouped: theme, its description, the session's configuration, the
session and step with their link (`SESSION:STEP`), the source (a suggestion's reason or an
annotation's note) and its text; JSON Lines, CSV or Parquet."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import UserError

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

COLUMNS = (
    "theme", "description", "configuration", "session", "step", "link", "source", "text",
    "scan", "model",
)  # fmt: skip


def theme_rows(store: Store) -> list[dict[str, Any]]:
    from crmarena_tui.storage import themes
    from crmarena_tui.storage.search import configurations

    scan = themes.latest(store)
    if scan is None:
        raise UserError("no themes to export: run crmarena-tui scan --themes first")
    named = configurations(store)
    return [
        {
            "theme": theme.name,
            "description": theme.description,
            "configuration": named.get(m.session_id, ("", ""))[0],
            "session": m.session_id,
            "step": m.event_seq,
            "link": m.link,
            "source": m.source,
            "text": m.text,
            "scan": scan.id,
            "model": scan.model,
        }
        for theme in themes.of_scan(store, scan.id)
        for m in theme.members
    ]


def write_themes(store: Store, fmt: str, out: Path) -> int:
    rows = theme_rows(store)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), out)
    elif fmt == "csv":
        with out.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    else:
        with out.open("w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    return len(rows)
