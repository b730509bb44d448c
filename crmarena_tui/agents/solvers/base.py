"""What every scripted solver shares: the workbench (the Episode's verbs, one step each), the
solver interface, and small helpers for reading records.

A solver works like a careful analyst: it reads the request text (and the task's visible
metadata), runs SOQL/SOSL through the Episode, and derives the answer from the returned records
only. `solve` is a generator: every query it runs is one `AgentStep` handed to the caller, and its
return value is the answer text. A query that fails raises `QueryFailed` with the org's error, so
a gap in the SOQL engine shows up as a precise, recorded failure instead of a silent workaround.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterable
from datetime import date
from typing import Any

from crmarena_tui.agents.agent import AgentStep
from crmarena_tui.tasks.model import Task

Steps = Generator[AgentStep, None, Any]
Record = dict[str, Any]

ID_PATTERN = r"[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?"


class QueryFailed(RuntimeError):
    """The org answered a solver's query with an error."""

    def __init__(self, text: str, error: str) -> None:
        super().__init__(f"{error} (query: {text})")
        self.text = text
        self.error = error


class Workbench:
    """The Episode seen by a solver. Notes (`note`) gather until the next action, which records
    them with its own reason as one `thought` event just before it runs."""

    def __init__(self, episode: Any) -> None:
        self.episode = episode
        self.turn = 0
        self.queries = 0
        self._notes: list[str] = []

    def today(self) -> date:
        """The org's current date (what relative date literals count from)."""
        return getattr(self.episode.org, "today", None) or date.today()

    def note(self, text: str) -> None:
        """A finding to state with the next action's thought."""
        if text:
            self._notes.append(text)

    def thought(self, reason: str) -> str:
        """Record the pending notes and `reason` as one thought event; the combined text."""
        text = "\n".join([*self._notes, reason] if reason else self._notes)
        self._notes = []
        if text:
            self.episode.record("thought", {"text": text}, actor="agent")
        return text

    def next_turn(self) -> int:
        self.turn += 1
        return self.turn

    def run(self, text: str, reason: str) -> Generator[AgentStep, None, list[Record]]:
        """Run SOQL or SOSL; one step; the returned records (Salesforce-shaped)."""
        thought = self.thought(reason)
        result = self.episode.execute(text, actor="agent")
        self.queries += 1
        yield AgentStep(
            turn=self.next_turn(),
            action="execute",
            thought=thought,
            text=text,
            observation=result.observation(),
            ok=result.ok,
        )
        if not result.ok:
            raise QueryFailed(text, str(result.error))
        if result.count_only:
            return [{"count": result.total_size}]
        return list(result.records)

    def say(self, text: str, reason: str) -> Generator[AgentStep, None, str | None]:
        """Send a message to the (simulated) user; one step; the user's reply."""
        thought = self.thought(reason)
        reply = self.episode.say(text, actor="agent")
        yield AgentStep(
            turn=self.next_turn(), action="respond", thought=thought, text=text, observation=reply
        )
        return reply

    def submit(self, answer: str, reason: str, end_reason: str) -> AgentStep:
        """Submit the final answer (graded at once); the last step."""
        thought = self.thought(reason)
        grade = self.episode.submit(answer, actor="agent")
        return AgentStep(
            turn=self.next_turn(),
            action="submit",
            thought=thought,
            text=answer,
            done=True,
            end_reason=end_reason,
            grade=grade,
        )


class Solver:
    """One task type. Subclasses set `task` and implement `parse`, `missing` and `solve`."""

    task: str = ""

    def parse(self, text: str, task: Task) -> Any:
        """What the request asks for, from its text and the task's visible metadata (hashable)."""
        raise NotImplementedError

    def missing(self, request: Any) -> str | None:
        """What the request still lacks (phrased for a question to the user), or None."""
        return None

    def solve(self, bench: Workbench, request: Any) -> Steps:
        """Work the request through `bench`; returns the answer text."""
        raise NotImplementedError


# -- reading records ---------------------------------------------------------------------------


def get(record: Record | None, path: str) -> Any:
    """`record["A"]["B"]` for `path` "A.B" (None when any hop is missing)."""
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def children(record: Record, relationship: str) -> list[Record]:
    """The records of a child subquery (`{"totalSize", "done", "records"}`), [] when none."""
    value = record.get(relationship)
    if isinstance(value, dict):
        return list(value.get("records") or [])
    return list(value or [])


def quoted(values: Iterable[str]) -> str:
    """`'a', 'b'` for an IN list (values are Ids or names read from the org: quotes escaped)."""
    return ", ".join("'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'" for v in values)


def literal(value: str) -> str:
    return quoted([value])


def counts(records: list[Record], key: str, value: str) -> dict[str, float]:
    """{row[key]: row[value]} of GROUP BY rows (rows whose key is null are left out)."""
    return {r[key]: r[value] for r in records if r.get(key) is not None}


def pick(scores: dict[str, float], direction: str) -> tuple[str | None, list[str]]:
    """The key with the min or max score, and every key sharing that score (ties)."""
    if not scores:
        return None, []
    target = min(scores.values()) if direction == "min" else max(scores.values())
    tied = sorted(k for k, v in scores.items() if abs(v - target) < 1e-9)
    return tied[0], tied


def metadata_id(task: Task, text: str, prefix: str) -> str | None:
    """The first Id with key `prefix` in the request text or the task's required metadata."""
    for source in (text, task.metadata.required):
        for match in re.finditer(rf"\b{re.escape(prefix)}[A-Za-z0-9]+\b", source or ""):
            if len(match.group(0)) in (15, 18):
                return match.group(0)
    return None


def fmt_days(value: float) -> str:
    return f"{value:.2f} days"
