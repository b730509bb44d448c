"""The plain values of scanners' readings (storage/suggestions.py re-exports them): a `Scan`, a
`Reading` of one session and its `Proposal`s, a stored `Suggestion` with its provenance, a scan's
`ScanTotals`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

ScanKind = Literal["labels", "rubric", "themes"]
SCAN_KINDS: tuple[str, ...] = ("labels", "rubric", "themes")


@dataclass(frozen=True)
class Scan:
    """One run of a scanner (a row of `scans`)."""

    id: int
    name: str
    kind: str
    model: str
    prompt_version: str
    rubric: str | None
    question: str | None
    answer_schema: dict[str, Any] | None
    taxonomy: tuple[str, ...]
    selection: str
    started_at: str
    finished_at: str | None
    tokens_in: int = 0  # a themes pass's own calls (a labels or rubric scan's: `totals`)
    tokens_out: int = 0
    cost: float | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Proposal:
    """What a reading proposes for a session: a failure-mode `label` with the step it points at
    (`event_seq`; None: the whole session) and a one-sentence `reason`, or a rubric's `answer`."""

    label: str = ""
    event_seq: int | None = None
    reason: str = ""
    answer: Any = None


@dataclass(frozen=True)
class Reading:
    """One session read by a scan: its proposals (none: nothing wrong found), the model call's
    tokens, cost in USD (None: unknown price) and seconds; `error` (non-empty) marks a failed
    reading, whose proposals are ignored."""

    proposals: Sequence[Proposal] = ()
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    seconds: float = 0.0
    attempts: int = 1
    error: str = ""

    @property
    def status(self) -> str:
        return "failed" if self.error else "ok"


@dataclass(frozen=True)
class Suggestion:
    """A stored proposal with its provenance: the scan (name, model, prompt version) and the
    reading that made it (tokens, cost, seconds, shared by that reading's suggestions)."""

    id: int
    scan_id: int
    scan_name: str
    session_id: int
    event_seq: int | None
    label: str
    answer: Any
    reason: str
    model: str
    prompt_version: str
    tokens_in: int
    tokens_out: int
    cost: float | None
    seconds: float
    created_at: str

    @property
    def level(self) -> str:
        return "session" if self.event_seq is None else "step"

    @property
    def provenance(self) -> str:
        """`model, scan NAME` as a line shows it beside a suggestion."""
        return f"{self.model}, scan {self.scan_name}"


@dataclass(frozen=True)
class ScanTotals:
    """A scan's readings summed: sessions read and failed, tokens, cost (None: none priced)."""

    read: int = 0
    failed: int = 0
    suggestions: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    seconds: float = 0.0
    labels: dict[str, int] = field(default_factory=dict)
