"""The report's SQL (issue 30): SQLite groups and counts, Python names and formats the groups.

`report_rows` copies every graded session (with its latest grade) once into a temporary table
of the connection's own (never the database file), with the raw columns the report's names come
from: participant, aided, the settings' strategy, privacy-aware flag and infrastructure error,
the task snapshot's org type, org reference, task source, mode, task type, session kind,
protocol and simulated user (a chat configuration names its user model), the grade's grader, protocol, no-answer flag and infrastructure error (each JSON
document parsed once: `json_extract` of several paths gives them as one JSON array,
`json_quote` keeps an object or a number apart from a string). A second temporary table holds
its groups, sessions alike in all those columns, with their count, reward sum and wins (a few
hundred groups at 100,000 sessions), indexed on them.

- `report_groups`: the groups. `reports.report_groups` names them (configuration, split,
  protocol) with the very functions the per-session models used and applies the report's
  filter to them.
- `task_tallies`: every group's tasks with their graded sessions (trials) and wins, for the
  figures that take the task as the unit (`reports.task_units`).
- `latest_figures`: given the groups the report keeps, under which configuration number and
  whether their participant is a human (written into the groups table), what needs every
  session of those groups: each configuration's latest attempt per task
  (`reports.attempts.latest_per_participant`, by `MAX(id)` and its bare columns), the
  efficiency sums over them with the sessions' usage events (model calls as
  `storage.usage_calls` counts them), the human-vs-agent counts on
  shared tasks, and the order statistics (the ranks a median or a quartile reads) of human
  active time and of time per task. Rows come back tagged (`TIME`, `EFFICIENCY`, `MEDIAN`,
  `VERSUS`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage.usage_calls import CALLS_SQL

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

# the settings keys a configuration and the report read, in the order `st` holds them
SETTINGS_KEYS = ("strategy", "privacy_aware", "infrastructure_error", "prompt_source")


# one row per graded session: its latest grade and the raw columns of its group
_BASE = """
base AS (
  SELECT s.id, s.participant_id AS pid, s.aided, s.interactive, s.org_ref, s.task_source,
    s.task_idx, s.trial, s.task_type, COALESCE(NULLIF(s.kind, ''), 'attempt') AS kind,
    s.protocol IS 'upstream' AS up, s.active_seconds, s.user_simulator AS us,
    json_extract(s.settings, '$.strategy', '$.privacy_aware', '$.infrastructure_error',
      '$.prompt_source') AS st,
    json_quote(json_extract(s.task_json, '$.org_type')) AS ot,
    g.grader, g.protocol AS gp, g.reward,
    json_extract(g.metrics, '$.no_answer', '$.infrastructure_error') AS gm,
    CASE WHEN g.grader = 'fuzzy_match' THEN g.reward >= :threshold ELSE g.reward >= 1.0 END
      AS win
  FROM grades g JOIN sessions s ON s.id = g.session_id
  WHERE g.id IN (SELECT MAX(id) FROM grades GROUP BY session_id)
)
"""
_RAW = (
    "pid, aided, st, ot, org_ref, task_source, interactive, task_type, kind, up, grader, gp, gm, us"
)

GROUP_COLUMNS = (
    "g", "pid", "aided", "st", "ot", "org_ref", "task_source", "interactive", "task_type",
    "kind", "up", "grader", "gp", "gm", "us",
)  # fmt: skip
# every graded session once with its group's raw columns, then the groups (their rowid is the
# group's number), indexed on those columns for the second read to find a session's group
_ROWS = (
    f"CREATE TEMP TABLE {{table}} AS WITH {_BASE} SELECT * FROM base",
    f"CREATE TEMP TABLE {{table}}_groups AS SELECT {_RAW}, COUNT(*) AS n, SUM(reward) AS rewards,"
    f" SUM(win) AS wins, MIN(id) AS first, NULL AS wid, NULL AS human, 0 AS sides"
    f" FROM temp.{{table}}"
    f" GROUP BY {_RAW} ORDER BY first",
    f"CREATE INDEX temp.{{table}}_raw ON {{table}}_groups ({_RAW})",
)
_GROUPS = (
    f"SELECT rowid, {', '.join(GROUP_COLUMNS[1:])}, n, rewards, wins FROM temp.{{table}}_groups"
    " ORDER BY rowid"
)
# each group's tasks: the graded sessions (its trials) and wins of every task (`task_tallies`)
_TASKS = (
    f"SELECT {_RAW}, task_idx, COUNT(*), SUM(win) FROM temp.{{table}} GROUP BY {_RAW}, task_idx"
)
_IN_GROUP = " AND ".join(f"grp.{c} IS b.{c}" for c in _RAW.split(", "))

TIME, EFFICIENCY, MEDIAN, VERSUS = "time", "efficiency", "median", "versus"

# the ranks (from 0) a median and the inclusive quartiles of `n` sorted values read
_RANKS = (
    "r IN (0, n - 1, (n - 1) / 4, (n - 1) / 4 + 1, (n - 1) * 2 / 4, (n - 1) * 2 / 4 + 1,"
    " (n - 1) * 3 / 4, (n - 1) * 3 / 4 + 1, (n - 1) / 2, n / 2)"
)


def _ranked(tag: str, source: str, partition: tuple[str, ...], head: str, wid: str) -> str:
    """Rows (tag, head, wid, n, rank, value) of the ranks `_RANKS` names, the active seconds
    of `source` sorted per `partition` (every row together when empty)."""
    over = f"PARTITION BY {', '.join(partition)}" if partition else ""
    return (
        f"SELECT '{tag}', {head}, {wid}, n, r, v, NULL, NULL, NULL FROM ("
        f" SELECT *, active_seconds AS v,"
        f" ROW_NUMBER() OVER ({over} ORDER BY active_seconds) - 1 AS r,"
        f" COUNT(*) OVER ({over}) AS n FROM {source} WHERE active_seconds IS NOT NULL)"
        f" WHERE {_RANKS}"
    )


_USAGE = f"""
usage AS (
  SELECT session_id, SUM({CALLS_SQL}) AS calls,
    SUM(COALESCE(json_extract(payload, '$.total_tokens'),
      COALESCE(json_extract(payload, '$.prompt_tokens'), 0)
      + COALESCE(json_extract(payload, '$.completion_tokens'), 0))) AS tokens,
    SUM(json_extract(payload, '$.cost')) AS cost, COUNT(json_extract(payload, '$.cost')) AS priced
  FROM events WHERE kind = 'usage' GROUP BY session_id
)"""


def _efficiency(per_type: bool) -> str:
    return (
        f"SELECT '{EFFICIENCY}', wid, {'task_type' if per_type else 'NULL'}, COUNT(*), SUM(win),"
        " SUM(CASE WHEN u.priced > 0 THEN u.cost END), COUNT(u.session_id),"
        " SUM(u.calls), SUM(CAST(COALESCE(u.tokens, 0) AS INTEGER))"
        f" FROM latest l LEFT JOIN usage u ON u.session_id = l.id"
        f" GROUP BY wid{', task_type' if per_type else ''}"
    )


# the configuration number, human flag and `--versus` sides of the groups the report keeps
# (a NULL number: left out)
_KEEP = """
UPDATE temp.{table}_groups SET (wid, human, sides) = (
  SELECT json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]')
  FROM json_each(:kept) WHERE json_extract(value, '$[0]') = temp.{table}_groups.rowid
)"""
# each configuration's latest attempt per task and trial on a `--versus` side, in the order the
# (configuration, task, trial) was first attempted (`reports.paired.members_of`)
_PAIRED = f"""
WITH k AS MATERIALIZED (
  SELECT b.id, grp.wid, grp.sides, b.up, b.task_source, b.task_idx, b.trial, b.task_type, b.win,
    b.reward, b.grader, b.gp, b.org_ref
  FROM temp.{{table}} b CROSS JOIN temp.{{table}}_groups grp ON {_IN_GROUP}
  WHERE grp.wid IS NOT NULL
),
keys AS MATERIALIZED (
  SELECT MIN(id) AS first, MAX(id) AS last FROM k GROUP BY wid, up, task_source, task_idx, trial
)
SELECT k.wid, k.up, k.task_source, k.task_idx, k.trial, k.task_type, k.win, k.reward,
  k.grader = 'fuzzy_match', k.sides, COALESCE(k.gp, 'unknown'), k.org_ref
FROM keys JOIN k ON k.id = keys.last WHERE k.sides > 0 ORDER BY keys.first
"""
# every attempt (graded or not) alike in the columns a configuration and the report's filter
# read, per task: whether one was graded, and whether one failed (abandoned, or ended on an
# infrastructure error), for what `--versus` leaves out on each side (`reports.paired_left_out`)
_SIDES = """
SELECT s.participant_id AS pid, s.aided,
  json_extract(s.settings, '$.strategy', '$.privacy_aware', '$.infrastructure_error',
    '$.prompt_source') AS st,
  json_quote(json_extract(s.task_json, '$.org_type')) AS ot, s.org_ref, s.task_source,
  s.interactive, 'attempt' AS kind, s.protocol IS 'upstream' AS up, s.task_type, g.protocol AS gp,
  s.user_simulator AS us, s.task_idx, MAX(g.id IS NOT NULL) AS graded,
  MAX(s.status = 'abandoned' OR json_extract(g.metrics, '$.infrastructure_error') IS NOT NULL
    OR json_extract(s.settings, '$.infrastructure_error') IS NOT NULL) AS failed
FROM sessions s
LEFT JOIN grades g ON g.id = (SELECT MAX(id) FROM grades WHERE session_id = s.id)
WHERE COALESCE(NULLIF(s.kind, ''), 'attempt') = 'attempt'{ungraded}
GROUP BY pid, s.aided, st, ot, s.org_ref, s.task_source, s.interactive, up, s.task_type, gp,
  us, s.task_idx
"""
# the same from `report_rows`' table for the graded sessions (their columns taken out already:
# a graded session fails on an infrastructure error), the sessions table for the others
_SIDES_GRADED = f"""
SELECT pid, aided, st, ot, org_ref, task_source, interactive, kind, up, task_type, gp, us,
  task_idx, 1, MAX(json_extract(st, '$[2]') IS NOT NULL OR json_extract(gm, '$[1]') IS NOT NULL)
FROM temp.{{table}} WHERE kind = 'attempt'
GROUP BY {_RAW}, task_idx
UNION ALL {_SIDES.format(ungraded=" AND NOT EXISTS (SELECT 1 FROM grades WHERE session_id = s.id)")}
"""
SIDE_COLUMNS = (
    "pid", "aided", "st", "ot", "org_ref", "task_source", "interactive", "kind", "up",
    "task_type", "gp", "us",
)  # fmt: skip
_LATEST = f"""
WITH k AS MATERIALIZED (
  SELECT b.id, grp.wid, grp.human, b.up, b.task_source, b.task_idx, b.task_type, b.win,
    b.gp, b.active_seconds
  FROM temp.{{table}} b CROSS JOIN temp.{{table}}_groups grp ON {_IN_GROUP}
  WHERE grp.wid IS NOT NULL  -- the sessions drive, their group is looked up
),
latest AS MATERIALIZED (
  SELECT MAX(id) AS id, wid, human, task_source, task_idx, task_type, win, gp, active_seconds
  FROM k GROUP BY wid, up, task_source, task_idx
),
humans AS MATERIALIZED (SELECT task_type, active_seconds FROM k WHERE human = 1),
{_USAGE.strip()}
{_ranked(TIME, "humans", ("task_type",), "task_type", "NULL")}
UNION ALL {_ranked(TIME, "humans", (), "NULL", "NULL")}
UNION ALL {_efficiency(per_type=True)}
UNION ALL {_efficiency(per_type=False)}
UNION ALL {_ranked(MEDIAN, "latest", ("wid", "task_type"), "task_type", "wid")}
UNION ALL {_ranked(MEDIAN, "latest", ("wid",), "NULL", "wid")}
UNION ALL SELECT '{VERSUS}', h.wid, a.wid, COALESCE(h.gp, 'unknown'), COALESCE(a.gp, 'unknown'),
  h.win, a.win, COUNT(*), NULL
  FROM (SELECT * FROM latest WHERE human = 1) h
  JOIN latest a ON a.task_source = h.task_source AND a.task_idx = h.task_idx AND a.human = 0
  GROUP BY 2, 3, 4, 5, 6, 7
"""


_PLACES = """
SELECT s.id, s.participant_id AS pid, s.aided,
  json_extract(s.settings, '$.strategy', '$.privacy_aware', '$.infrastructure_error',
    '$.prompt_source') AS st,
  json_quote(json_extract(s.task_json, '$.org_type')) AS ot, s.org_ref, s.task_source,
  s.interactive, COALESCE(NULLIF(s.kind, ''), 'attempt') AS kind, s.protocol IS 'upstream' AS up,
  s.task_type, s.user_simulator AS us
FROM sessions s WHERE s.id IN (SELECT value FROM json_each(:ids))
"""
PLACE_COLUMNS = (
    "id", "pid", "aided", "st", "ot", "org_ref", "task_source", "interactive", "kind", "up",
    "task_type", "us",
)  # fmt: skip


def session_places(store: Store, ids: set[int]) -> list[tuple[Any, ...]]:
    """Rows of `PLACE_COLUMNS` of the sessions `ids` names (the labelled ones)."""
    return store.read(_PLACES, {"ids": json.dumps(sorted(ids))}) if ids else []


@contextmanager
def report_rows(store: Store, threshold: float) -> Iterator[str]:
    """A temporary table (the connection's own, never the database file) of every graded
    session with its group number, for `report_groups` and `latest_figures`: the JSON keys are
    taken out once. Dropped on leaving."""
    table = f"report_{uuid.uuid4().hex}"
    try:
        store.read(_ROWS[0].format(table=table), {"threshold": threshold})
        for statement in _ROWS[1:]:
            store.read(statement.format(table=table))
        yield table
    finally:
        for name in (f"{table}_groups", table):
            store.read(f"DROP TABLE IF EXISTS temp.{name}")


def report_groups(store: Store, table: str) -> list[tuple[Any, ...]]:
    """Rows of `GROUP_COLUMNS` then count, reward sum and wins (a win: reward >= 1, or F1 >=
    the threshold for fuzzy_match) per group of `report_rows`' table."""
    return store.read(_GROUPS.format(table=table))


def task_tallies(store: Store, table: str) -> list[tuple[Any, ...]]:
    """Rows of the group's raw columns (`GROUP_COLUMNS` but the number), then task idx, graded
    sessions and wins: every task of every group (issue 35: the task as the unit)."""
    return store.read(_TASKS.format(table=table))


def keep_groups(store: Store, table: str, kept: list[tuple[int, int, bool, int]]) -> None:
    """Mark the groups the report counts: (group number, configuration number, human,
    `--versus` sides: 1 a, 2 b, 3 both, 0 neither); the others are left out."""
    groups = json.dumps([[g, wid, int(human), sides] for g, wid, human, sides in kept])
    store.read(_KEEP.format(table=table), {"kept": groups})


def latest_figures(store: Store, table: str) -> list[tuple[Any, ...]]:
    """The tagged rows (module docstring) of the groups `keep_groups` marked."""
    return store.read(_LATEST.format(table=table))


def paired_members(store: Store, table: str) -> list[tuple[Any, ...]]:
    """Rows (configuration number, upstream, task source, idx, trial, task type, win, reward,
    fuzzy, sides, grade protocol, org reference) of `_PAIRED`."""
    return store.read(_PAIRED.format(table=table))


def side_sessions(store: Store, table: str | None = None) -> list[tuple[Any, ...]]:
    """Rows of `SIDE_COLUMNS`, then task idx, graded and failed (`_SIDES`); with `table`
    (`report_rows`'), the graded sessions read from it (a scan of the ungraded sessions only;
    the same rows, in other groups)."""
    if table is None:
        return store.read(_SIDES.format(ungraded=""))
    return store.read(_SIDES_GRADED.format(table=table))


# the report's provenance read (`reports/provenance.py`), the JSON keys taken out by SQLite
_IN_ANY_GROUP = " AND ".join(f"grp.{c} IS b.{c}" for c in GROUP_COLUMNS[1:])
_PROVENANCE = f"""
SELECT grp.rowid,
  json_extract(s.settings, '$.org_today', '$.org_clock', '$.schema_source', '$.prompt_source'),
  g.judge_model, g.extraction, g.imported,
  json_extract(g.metrics, '$.judge_temperature', '$.judge_instructions', '$.no_answer'),
  COUNT(*)
FROM temp.{{table}} b CROSS JOIN temp.{{table}}_groups grp ON {_IN_ANY_GROUP}
JOIN sessions s ON s.id = b.id
JOIN grades g ON g.id = (SELECT MAX(id) FROM grades WHERE session_id = b.id)
GROUP BY 1, 2, 3, 4, 5, 6
"""
# a provenance row: group number, settings facts (JSON array), judge model, extraction, imported,
# grade facts (JSON array), sessions
PROVENANCE_ROW = ("group", "settings", "judge_model", "extraction", "imported", "metrics", "n")


def provenance_rows(store: Store, table: str) -> list[tuple[Any, ...]]:
    """Rows of `PROVENANCE_ROW` over every graded session of `report_rows`' table, per group: how
    many of its graded sessions have each combination of org clock, schema and prompt sources and
    judge (`reports/provenance.py` names them)."""
    return store.read(_PROVENANCE.format(table=table))
