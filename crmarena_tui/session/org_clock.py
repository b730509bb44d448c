"""The org's clock: the day a session's relative date literals (`TODAY`, `LAST_N_MONTHS:4`, ...)
count from, chosen when the session starts and kept with it for life.

- An explicit date (`--org-today`, the `org_today` setting) wins, under either protocol.
- Under `upstream`, the run's date: the live org counted from the day of the run when upstream's
  numbers were made, whatever "Today's date" a task states.
- Under `workbench`, the task's "Today's date" (this project's departure: the answer the task
  means), else the org's own date.
- A live Salesforce org always counts from its own server's clock: the run's date is recorded.

The day is stored in the session's settings (`org_today`, ISO), with how it was chosen
(`org_clock`: `set`, `run`, `task`, `org` or `live`). A resumed or reopened session counts from
its stored day, so a run killed before midnight and resumed after keeps its clock; a session
stored before clocks were recorded counts from its task's date, as it did. The defaulted day is
left out of the key a run resumes by (`session/episode_log.resume_key`); an explicit one is part
of it: another `--org-today` is another configuration.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.graders import GradingProtocol
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.storage.models import Session
    from crmarena_tui.tasks.model import Task

ORG_TODAY_KEY = "org_today"
ORG_CLOCK_KEY = "org_clock"
SET, RUN, TASK, ORG, LIVE = "set", "run", "task", "org", "live"


def choose(
    task: Task, org: Org, protocol: GradingProtocol, explicit: date | None, run_day: date
) -> tuple[date, str]:
    """The day a new session's org counts from, and how it was chosen (see the module)."""
    if getattr(org, "kind", None) == "salesforce":
        return run_day, LIVE
    if explicit is not None:
        return explicit, SET
    if protocol == "upstream":
        return run_day, RUN
    day = task.today()
    if day is not None:
        return day, TASK
    own = getattr(org, "today", None)
    return (own, ORG) if isinstance(own, date) else (run_day, ORG)


def with_org_clock(
    settings: dict[str, Any],
    task: Task,
    org: Org,
    protocol: GradingProtocol,
    explicit: date | None,
    run_day: date,
) -> dict[str, Any]:
    """`settings` with the org's clock recorded; settings that already name a day (a fork's,
    inherited from its source) keep it."""
    if settings.get(ORG_TODAY_KEY):
        return settings
    day, how = choose(task, org, protocol, explicit, run_day)
    return {**settings, ORG_TODAY_KEY: day.isoformat(), ORG_CLOCK_KEY: how}


def inherited(source: Session) -> dict[str, Any]:
    """The clock a fork of `source` keeps: the source's (its copied queries were answered on
    it); for a source stored before clocks were recorded, its task's date, which it used."""
    settings = source.settings or {}
    if settings.get(ORG_TODAY_KEY):
        return {k: settings[k] for k in (ORG_TODAY_KEY, ORG_CLOCK_KEY) if k in settings}
    day = source.task().today()
    return {ORG_TODAY_KEY: day.isoformat(), ORG_CLOCK_KEY: TASK} if day is not None else {}


def keyed(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` as the resume key reads them: the clock left out unless it was set
    explicitly (then the day is part of the configuration)."""
    if ORG_TODAY_KEY not in settings and ORG_CLOCK_KEY not in settings:
        return settings
    out = {k: v for k, v in settings.items() if k not in (ORG_TODAY_KEY, ORG_CLOCK_KEY)}
    if settings.get(ORG_CLOCK_KEY) == SET:
        out[ORG_TODAY_KEY] = settings.get(ORG_TODAY_KEY)
    return out


def stored_day(settings: dict[str, Any] | None) -> date | None:
    """The day recorded in a session's settings, or None (none, or not a date)."""
    text = (settings or {}).get(ORG_TODAY_KEY)
    try:
        return date.fromisoformat(str(text)[:10]) if text else None
    except ValueError:
        return None


def session_day(session: Session) -> date | None:
    """The day `session`'s org counts from: its stored day, else (a session stored before
    clocks were recorded) its task's date; None: the org's own."""
    return stored_day(session.settings) or session.task().today()
