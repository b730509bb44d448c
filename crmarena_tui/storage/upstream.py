"""Import of upstream CRMArena(-Pro) result files (`run_tasks.py` output) into the sessions database.

Reading a file is `upstream_file` (validation, rewards, errors), its path `upstream_names` (every
layout upstream wrote), its trajectories `upstream_traj`. Choices made when writing:

- Participant: kind `agent`, model `<model>`, one per run configuration, not per file (upstream
  writes a file per task type): the name is `<model>/<strategy>`, followed by `/aided` and
  `/privacy-aware` when the run was, so that runs under different prompts are never merged into
  one figure; settings `{strategy, interactive, aided, privacy_aware, provider, imported_from}`.
- Aided: the run's system prompt holds the task's optional metadata (`# Domain Details`); the
  session's `aided` flag says so. Privacy-aware: the run folder's `_privacy_aware` suffix, else
  the prompts (the privacy rules tell the agent it must decline).
- Task source: `hf:<org>` or `hf:<org>_interactive` (`hf:original` for CRMArena), because upstream's
  `task_id` is the `idx` of that Hugging Face split: imported runs then line up with human sessions on
  the same tasks. `<org>` comes from `org_type=`, else the path (`b2c`, `b2c_interactive`), else
  `b2b` (upstream's default); the mode from the path, else the rows. `task_source=` overrides it all.
- The task snapshot holds what the file holds: `query` is the first user turn (for multi-turn runs,
  the simulated user's opening), `metadata` is empty (it is merged into the system prompt).
- Grades keep the file's reward and every metric, the protocol `upstream`, the run's
  `end_reason`, and `infrastructure_error` for a run that ended on one (reports leave those out
  of success rates); any other error the run ended on is kept as `run_error`.
- Times: upstream records none. The steps carry none (`ts` NULL, shown as "—"); the session's
  `started_at`/`ended_at` are the file's modification time (the date the run was written, the
  only date there is) and `active_seconds` is empty.
- The task's metadata is what the run's system prompt carried: the `# Salesforce instance
  Metadata` section (the required metadata: policy, today's date) and, in aided runs, the
  `# Domain Details` section.
- Idempotence: each session stores `import_key`, a digest of the item's canonical JSON plus the
  run identity and its occurrence number in the file. Re-importing a file, a copy of it, or a
  checkpoint file that has since grown imports only the items not yet present.
- A file is imported whole or not at all: written in one transaction with `executemany`
  (`storage/bulk.py`, thousands of sessions a second rather than hundreds), as its items are read
  (`storage/upstream_read.py`, in worker processes when the folder is large), and rolled back if
  an item turns out malformed.
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.bulk import BulkWriter
from crmarena_tui.storage.convert import settings_key
from crmarena_tui.storage.upstream_file import (
    UpstreamFile,
    UpstreamFormatError,
    UpstreamItem,
    full_item,
    read_upstream_file,
)
from crmarena_tui.storage.upstream_names import ORG_TYPES, find_result_files, parse_run_name
from crmarena_tui.storage.upstream_read import read_in_order
from crmarena_tui.storage.upstream_rows import ItemRows, file_source, file_stamp, item_rows

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

__all__ = [
    "ImportSummary",
    "UpstreamFormatError",
    "UpstreamImporter",
    "find_result_files",
    "parse_run_name",
    "read_upstream_file",
]


@dataclass(slots=True)
class ImportSummary:
    """What an import did. `runs`: sessions imported per (participant, task source)."""

    files: int = 0
    imported: int = 0
    skipped: int = 0
    infrastructure: int = 0
    refused: list[UpstreamFormatError] = field(default_factory=list)
    runs: dict[tuple[str, str], int] = field(default_factory=dict)

    def line(self) -> str:
        refused = f", {len(self.refused)} refused" if self.refused else ""
        infra = (
            f"; {self.infrastructure:,} of those imported ended on an infrastructure error"
            " (left out of success rates)"
            if self.infrastructure
            else ""
        )
        return (
            f"{self.files:,} file(s) read{refused}: {self.imported:,} session(s) imported, "
            f"{self.skipped:,} skipped as already present{infra}"
        )

    def lines(self) -> list[str]:
        """The summary line, then one line per model and setting: its sessions and the task
        source they were filed under."""
        width = max((len(name) for name, _ in self.runs), default=0)
        return [self.line()] + [
            f"  {name:<{width}}  {count:>6,} session(s) under {source}"
            for (name, source), count in sorted(self.runs.items())
        ]


class UpstreamImporter:
    """Writes parsed result files into a `Store`, one transaction per file, skipping items already
    imported. `org_type` and `task_source` override what the path says (see the module notes)."""

    def __init__(
        self,
        store: Store,
        *,
        org_type: str | None = None,
        task_source: str | None = None,
        index: bool = False,
    ) -> None:
        if org_type is not None and org_type not in ORG_TYPES:
            raise ValueError(f"org type must be one of {', '.join(ORG_TYPES)}, not {org_type!r}")
        self.store = store
        self.org_type = org_type
        self.task_source = task_source
        self.index = index  # index the sessions for search as they are written (bulk.py)
        self._participants: dict[tuple, int] = {}
        self._keys: set[tuple[int, str, str]] | None = None
        self.runs: dict[tuple[str, str], int] = {}

    def import_paths(self, paths: Iterable[Path | str]) -> ImportSummary:
        """Import every result file named or found under the folders named, written while the
        files are read (`upstream_read.py`: in worker processes for a large import)."""
        summary = ImportSummary(runs=self.runs)
        if self._keys is None:
            self._keys = set(self.store.read(_PRESENT))
        known = frozenset(key for _, _, key in self._keys)  # (items already in: read no further)
        with _collector_paused():
            where = (self.org_type, self.task_source)
            for read in read_in_order(find_result_files(paths), known, where):
                summary.files += 1
                if isinstance(read.file, UpstreamFormatError):
                    summary.refused.append(read.file)
                    continue
                try:
                    imported, skipped, infrastructure = self.import_file(read.file, read.chunks)
                except UpstreamFormatError as exc:  # an item part-way: the file rolled back
                    summary.refused.append(exc)
                    continue
                summary.imported += imported
                summary.skipped += skipped
                summary.infrastructure += infrastructure
        return summary

    def source_for(self, parsed: UpstreamFile) -> tuple[str, str]:
        """(task source, org type) of a parsed file."""
        return file_source(parsed, self.org_type, self.task_source)

    def participant_for(
        self, parsed: UpstreamFile, item: UpstreamItem
    ) -> tuple[int, dict[str, Any], str]:
        """(participant id, run settings, participant name) of one item's run configuration."""
        run = parsed.run
        aided, privacy = item.prompt["aided"], parsed.privacy_aware
        settings: dict[str, Any] = {
            "strategy": run.strategy,
            "interactive": parsed.interactive,
            "aided": aided,
            "privacy_aware": privacy,
            "imported_from": "upstream",
        }
        if run.provider:
            settings["provider"] = run.provider
        name = "/".join(
            [run.model, run.strategy]
            + (["aided"] if aided else [])
            + (["privacy-aware"] if privacy else [])
        )
        key = (name, tuple(sorted(settings.items())))
        if key not in self._participants:
            participant = self.store.participant("agent", name, model=run.model, settings=settings)
            self._participants[key] = participant.id
        return self._participants[key], settings, name

    def import_file(
        self, parsed: UpstreamFile, chunks: Iterable[list[UpstreamItem]] | None = None
    ) -> tuple[int, int, int]:
        """Write one file in one transaction (all or nothing): its items, or the `chunks` they
        arrive in (written as they come; a malformed item raises `UpstreamFormatError` and the
        file is rolled back). Returns (imported, skipped, ended on an infrastructure error)."""
        source, org = self.source_for(parsed)
        stamp = file_stamp(parsed)
        imported = skipped = infrastructure = 0
        keys: dict[int, str] = {}  # settings key per participant: one run configuration each
        participants: dict[bool, tuple[int, dict[str, Any], str]] = {}  # (per aided or not)
        runs: dict[tuple[str, str], int] = {}
        try:
            with self.store.transaction() as conn:
                present = self._present(conn)
                writer = BulkWriter(conn, self.store.text_limit, index=self.index)
                for chunk in [parsed.items] if chunks is None else chunks:
                    for item in chunk:
                        aided = item.prompt["aided"]  # (all the participant depends on here)
                        if aided not in participants:
                            participants[aided] = self.participant_for(parsed, item)
                        participant_id, run_settings, name = participants[aided]
                        if (participant_id, source, item.digest) in present:
                            skipped += 1
                            continue
                        if item.known is not None:  # imported before, under another source
                            item = full_item(parsed, item)
                        infrastructure += item.infrastructure is not None
                        key = keys.get(participant_id)
                        if key is None:
                            key = keys[participant_id] = settings_key(
                                {**run_settings, "model": parsed.run.model, "org_type": org}
                            )
                        rows = item.rows or item_rows(parsed, item, (source, org), stamp)
                        self._queue(writer, participant_id, rows, key)
                        present.add((participant_id, source, item.digest))
                        runs[(name, source)] = runs.get((name, source), 0) + 1
                        imported += 1
                    writer.flush()
        except BaseException:
            self._participants.clear()  # participants made in the rolled-back file are gone
            self._keys = None
            raise
        for run, count in runs.items():
            self.runs[run] = self.runs.get(run, 0) + count
        return imported, skipped, infrastructure

    def _present(self, conn: sqlite3.Connection) -> set[tuple[int, str, str]]:
        """(participant, task source, import key) of every imported session: read once per
        importer, then kept up to date as it writes."""
        if self._keys is None:
            self._keys = set(conn.execute(_PRESENT).fetchall())
        return self._keys

    def _queue(
        self, writer: BulkWriter, participant_id: int, rows: ItemRows, settings_key: str
    ) -> None:
        """Queue one item's rows under its participant and run configuration."""
        session_id = writer.session(
            {**rows.session, "participant_id": participant_id, "settings_key": settings_key}
        )
        writer.events_of(session_id, rows.events, index=rows.index)
        writer.grade({**rows.grade, "session_id": session_id})


_PRESENT = (
    "SELECT participant_id, task_source, json_extract(settings, '$.import_key') FROM sessions"
    " WHERE json_extract(settings, '$.imported_from') = 'upstream'"
)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for an import: parsing and queueing allocate millions
    of dicts, lists and tuples, none in a cycle, and the collector's passes over them cost about
    a sixth of the parse for nothing. Reference counting still frees everything."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
