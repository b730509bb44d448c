"""Query results a model can take: the MCP tools page a large result as Salesforce's REST API
pages a query (at most 2,000 records a batch) and cut a batch at a size cap.

A result of at most `BATCH` records whose text fits in `max_chars` (the `mcp_result_chars`
setting, default 100,000 characters) is shown as it always was (the records' JSON list). A
larger one is shown as Salesforce's envelope, `{"totalSize": N, "done": false,
"nextRecordsUrl": "01gCRM000001-2000", "records": [...]}`, holding the first batch: up to 2,000
records, fewer when that many would pass the cap (as many whole records as fit). A line after
the JSON says which records were shown and how to get the rest: `query_more(cursor)` with the
`nextRecordsUrl` returns the next batch the same way (`done: true` on the last), or narrow the
query (fewer fields, a WHERE clause, a LIMIT). A cursor lives as long as the server process
(`INVALID_QUERY_LOCATOR` after a restart: run the query again).

Under `upstream` nothing is paged nor cut: upstream's connector (`query_all`) returns every
record, and an agent under that protocol is shown what it returned.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import TYPE_CHECKING

from crmarena_tui.orgs.base import shape_records
from crmarena_tui.orgs.observation_text import observation_text

if TYPE_CHECKING:
    from crmarena_tui.orgs.base import QueryResult

BATCH = 2_000  # records a Salesforce query batch holds at most
DEFAULT_CHARS = 100_000
KEPT = 16  # cursors kept (the oldest is forgotten first)
_ENVELOPE = 400  # characters kept for the envelope and the line after it


class ResultPages:
    """The pages of one session's large results (`view` a result, `more(cursor)`)."""

    def __init__(self, max_chars: int = DEFAULT_CHARS) -> None:
        self.max_chars = max(max_chars, 1_000)
        self._results: OrderedDict[str, tuple[list[str], str | None]] = OrderedDict()
        self._made = 0

    def view(self, result: QueryResult) -> str:
        """What the agent is shown of `result` (the Episode calls it once and logs the text:
        `QueryResult.shown`; a large result gets a cursor)."""
        plain = observation_text(result, "workbench")
        if not result.ok or result.count_only or result.kind == "search":
            return plain
        if len(result.records) <= BATCH and len(plain) <= self.max_chars:
            return plain
        rows = [
            json.dumps(r, ensure_ascii=False, default=str) for r in shape_records(result.records)
        ]
        self._made += 1
        cursor = f"01gCRM{self._made:06d}"
        self._results[cursor] = (rows, result.warning)
        while len(self._results) > KEPT:
            self._results.popitem(last=False)
        return self._batch(cursor, 0)

    def more(self, locator: str) -> str | None:
        """The batch `locator` (a `nextRecordsUrl`) points at; None for an unknown one."""
        cursor, _, start = locator.strip().rpartition("-")
        if cursor not in self._results or not start.isdigit():
            return None
        if int(start) >= len(self._results[cursor][0]):
            return None
        return self._batch(cursor, int(start))

    def _batch(self, cursor: str, start: int) -> str:
        rows, warning = self._results[cursor]
        total = len(rows)
        budget = self.max_chars - _ENVELOPE
        taken: list[str] = []
        used = 0
        for row in rows[start : start + BATCH]:
            if taken and used + len(row) + 2 > budget:
                break
            taken.append(row)
            used += len(row) + 2
        end = start + len(taken)
        done = end >= total
        head = f'{{"totalSize": {total}, "done": {"true" if done else "false"}'
        if not done:
            head += f', "nextRecordsUrl": "{cursor}-{end}"'
        text = head + ', "records": [' + ", ".join(taken) + "]}"
        shown = f"records {start + 1:,} to {end:,} of {total:,}"
        if done:
            note = f"[{shown}: the last batch]"
        elif len(taken) < BATCH and end < min(total, start + BATCH):
            note = (
                f"[{shown}: the result passes the {self.max_chars:,}-character cap. Call "
                f'query_more("{cursor}-{end}") for the next records, or narrow the query: '
                "fewer fields, a WHERE clause, a LIMIT]"
            )
        else:
            note = f'[{shown}: call query_more("{cursor}-{end}") for the next batch]'
        text += "\n" + note
        return f"{text}\n{warning}" if warning and start == 0 else text
