"""Where a session's figures come from, as `export`, `report` and the viewer's header show it: the
org's clock, the schema and prompt sources, and the judge that graded it.

Stored in the session's settings (`org_today` and `org_clock`: `session/org_clock.py`;
`schema_source`, `prompt_source`) and in its latest grade (`judge_model`; in the metrics
`judge_temperature`, a number or None for the provider's default, and `judge_instructions`, a
version). A session stored before a fact was recorded has none: it is shown unknown (blank in an
export), never guessed. A grade read without a judge by the offline extractor shows the judge as
`offline`; a grade that needed no reading (an exact match of the stripped answer, an episode
ended before an answer, a fuzzy-match score) or was imported shows none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.storage.models import GradeRow

OFFLINE = "offline"  # the judge of a grade the offline extractor read
UNKNOWN = "unknown"
# (name, export type), in the export's column order (`export_schema.SCHEMA`)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("org_today", "text"),
    ("org_clock", "text"),
    ("schema_source", "text"),
    ("prompt_source", "text"),
    ("judge_model", "text"),
    ("judge_temperature", "float"),
    ("judge_instructions", "text"),
)
# how the org's day was chosen (`session/org_clock.py`), as a person reads it
CLOCK_WORDS = {
    "set": "set",
    "run": "run's date",
    "task": "task's date",
    "org": "org's date",
    "live": "live org",
}


def judge_of(judge_model: str | None, extraction: str | None, imported: bool | None) -> str | None:
    """The judge of a grade: its model; `offline` when the offline extractor read it; None when
    no reading was needed, the grade was imported, or there is no grade (`extraction` None)."""
    if judge_model:
        return judge_model
    if extraction == "deterministic" and not imported:
        return OFFLINE
    return None


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def values(settings: dict[str, Any] | None, grade: GradeRow | None) -> dict[str, Any]:
    """The `COLUMNS` of one session (its settings, its latest grade or None)."""
    settings = settings or {}
    judged = grade is not None and bool(grade.judge_model)
    metrics = grade.metrics if grade is not None else {}
    temperature = metrics.get("judge_temperature") if judged else None
    return {
        "org_today": _text(settings.get("org_today")),
        "org_clock": _text(settings.get("org_clock")),
        "schema_source": _text(settings.get("schema_source")),
        "prompt_source": _text(settings.get("prompt_source")),
        "judge_model": judge_of(grade.judge_model, grade.extraction, grade.imported)
        if grade is not None
        else None,
        "judge_temperature": float(temperature)
        if isinstance(temperature, int | float) and not isinstance(temperature, bool)
        else None,
        "judge_instructions": _text(metrics.get("judge_instructions")) if judged else None,
    }


def clock_text(org_today: str | None, org_clock: str | None) -> str:
    """The org's clock as one phrase: `2025-06-01 (run's date)`, `task's date` (each task its
    own), `unknown` (a session stored before clocks were recorded)."""
    if org_clock in ("task", "org"):
        return CLOCK_WORDS[org_clock]
    if not org_today:
        return UNKNOWN
    how = CLOCK_WORDS.get(org_clock or "")
    return f"{org_today} ({how})" if how else org_today


def temperature_text(judge: str | None, temperature: Any, instructions: str | None) -> str:
    """A judge's temperature as a person reads it: the number, `default` (none sent: the
    provider's), or `unknown` (not recorded); blank for no judge model."""
    if not judge or judge == OFFLINE:
        return ""
    if isinstance(temperature, int | float) and not isinstance(temperature, bool):
        return f"{temperature:g}"
    return "default" if instructions else UNKNOWN


def judge_text(judge: str | None, temperature: Any, instructions: str | None) -> str:
    """The judge as one phrase: `openai/gpt-4o (temperature default, upstream@1a2b)`,
    `offline extractor`, or blank (no judge was needed)."""
    if judge is None:
        return ""
    if judge == OFFLINE:
        return "offline extractor"
    facts = [f"temperature {temperature_text(judge, temperature, instructions)}"]
    facts.append(f"instructions {instructions or UNKNOWN}")
    return f"{judge} ({', '.join(facts)})"
