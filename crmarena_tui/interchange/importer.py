"""Import of trajectory files from other harnesses: which files are whose (`FORMATS`, recognised
by content, not by name), and the loop that reads each and writes it (`TrajectoryWriter`).

A format is a `TrajectoryFormat` (listed in `_formats`): its `name`, `recognises(path, head)` (the file's first bytes
given; it may read more) and `read(path)`, the file's trajectories (raising `EntryError` for a
malformed entry). Files no format recognises are left to the import of upstream result files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from crmarena_tui.interchange.trajectory import Trajectory
from crmarena_tui.interchange.writer import EntryError, TrajectoryWriter

HEAD_BYTES = 4096


@dataclass(frozen=True, slots=True)
class TrajectoryFormat:
    name: str
    recognises: Callable[[Path, bytes], bool]
    read: Callable[[Path], Iterable[Trajectory]]
    suffixes: tuple[str, ...] = (".json",)  # (the files a folder is searched for)


def _formats() -> tuple[TrajectoryFormat, ...]:
    """Every format the import recognises (one line each; a format module is imported only
    when an import runs)."""
    from crmarena_tui.interchange.atif_read import read_atif, recognises_atif
    from crmarena_tui.interchange.inspect_read import read_inspect, recognises_inspect

    return (
        TrajectoryFormat("atif", recognises_atif, read_atif),
        TrajectoryFormat("inspect", recognises_inspect, read_inspect, (".eval", ".json")),
    )


def find_files(
    paths: Iterable[Path], formats: Sequence[TrajectoryFormat] | None = None
) -> list[Path]:
    """The files named, plus every file under the folders named (recursively) with a suffix
    some format's files have, or `.json` (upstream result files), sorted per folder."""
    formats = _formats() if formats is None else formats
    suffixes = {".json"}.union(*(f.suffixes for f in formats))
    found: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            found += sorted(
                (p for p in entry.rglob("*") if p.suffix.lower() in suffixes and p.is_file()),
                key=_parts,
            )
        else:
            found.append(entry)
    return list(dict.fromkeys(found))


def _parts(path: Path) -> tuple[str, ...]:
    """A path's order (`Path`'s own, compared as a tuple of its parts without a call per pair)."""
    return path.parts


def recognise(
    files: Sequence[Path], formats: Sequence[TrajectoryFormat] | None = None
) -> tuple[list[tuple[Path, TrajectoryFormat]], list[Path]]:
    """(the files a format recognises, each with it; the others), in the order given."""
    formats = _formats() if formats is None else formats
    mine: list[tuple[Path, TrajectoryFormat]] = []
    others: list[Path] = []
    for path in files:
        try:
            with path.open("rb") as fh:
                head = fh.read(HEAD_BYTES)
        except OSError:
            others.append(path)  # (the upstream import names what is wrong with it)
            continue
        found = next((f for f in formats if f.recognises(path, head)), None)
        if found is None:
            others.append(path)
        else:
            mine.append((path, found))
    return mine, others


@dataclass(slots=True)
class TrajectorySummary:
    """What an import of trajectory files did. `runs`: sessions per (participant, source);
    `ungraded`: sessions with a final answer and no grade, for the command to grade."""

    files: int = 0
    imported: int = 0
    skipped: int = 0
    refused: list[EntryError] = field(default_factory=list)
    ungraded: list[int] = field(default_factory=list)
    runs: dict[tuple[str, str], int] = field(default_factory=dict)
    formats: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """One line for the files of each format, then one per configuration."""
        if not self.files:
            return []
        kinds = ", ".join(f"{n:,} {name}" for name, n in sorted(self.formats.items()))
        refused = f", {len(self.refused)} refused" if self.refused else ""
        width = max((len(name) for name, _ in self.runs), default=0)
        return [
            f"{self.files:,} trajectory file(s) read ({kinds}){refused}: {self.imported:,} "
            f"session(s) imported, {self.skipped:,} skipped as already present"
        ] + [
            f"  {name:<{width}}  {count:>6,} session(s) under {source}"
            for (name, source), count in sorted(self.runs.items())
        ]


def import_trajectories(
    files: Sequence[tuple[Path, TrajectoryFormat]], writer: TrajectoryWriter
) -> TrajectorySummary:
    """Read and write every file (`TrajectoryWriter.write_files`: many files to a transaction,
    each whole or not at all); a refused file (`EntryError`) is listed and the rest imported."""
    summary = TrajectorySummary()
    for _path, fmt in files:
        summary.files += 1
        summary.formats[fmt.name] = summary.formats.get(fmt.name, 0) + 1
    result = writer.write_files(
        ((path, partial(fmt.read, path), fmt.name) for path, fmt in files),
        refused=summary.refused.append,
    )
    summary.imported, summary.skipped = result.imported, result.skipped
    summary.ungraded, summary.runs = result.ungraded, result.runs
    return summary
