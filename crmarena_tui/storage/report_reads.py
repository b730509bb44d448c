"""The attempts one by one (`reports.attempts.load_attempts`, and the tests of the per-session
report), for databases of 100,000 sessions: two queries, no JSON documents. The report itself
is computed in SQL (`storage.report_sql`).

A session's row holds its whole task (`task_json`, ground truth and metadata) and its settings, a
grade its metrics: JSON that would be decoded 300,000 times for a report that reads seven keys of
it. `report_sessions` has SQLite take out those keys (`json_type` / `json_extract`): from the
task `org_type` (the split, `storage.configuration`) and `reward_metric` (an ungraded attempt's
metric), from the settings `strategy`, `privacy_aware` (the configuration) and
`infrastructure_error`, from the latest grade's metrics `no_answer` and `infrastructure_error`
(`reports.attempts`). The models it returns hold only those keys in those columns (and no parsed
answer or judge reply). A value that is an object or an array (never written by this project for
these keys) has its whole column read and decoded, so the figures are those of the full models
whatever the database (tests/test_report_reads.py compares the two reports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crmarena_tui.storage import convert

if TYPE_CHECKING:
    from crmarena_tui.storage.models import GradeRow, Session
    from crmarena_tui.storage.store import Store

TASK_KEYS = ("org_type", "reward_metric")
SETTINGS_KEYS = ("strategy", "privacy_aware", "infrastructure_error", "prompt_source")
METRICS_KEYS = ("no_answer", "infrastructure_error")
_SESSION_COLUMNS = (
    "id, participant_id, task_source, task_idx, task_type, org_kind, org_ref, interactive,"
    " aided, blind, status, started_at, ended_at, active_seconds, app_version, settings_key,"
    " user_simulator, parent_session_id, fork_seq, kind, protocol, uuid, study_id, trial"
)
_GRADE_COLUMNS = (
    "id, session_id, answer, reward, grader, grader_version, judge_model, extraction, imported,"
    " graded_at, protocol"
)
_PLAIN = {"true": True, "false": False, "null": None}
_CHUNK = 5000  # sessions per read: the rows of a read are held only while their models are made


def _keys(column: str, keys: tuple[str, ...]) -> str:
    return ", ".join(f"json_type({column}, '$.{k}'), json_extract({column}, '$.{k}')" for k in keys)


_SESSIONS = (
    f"SELECT {_SESSION_COLUMNS}, {_keys('task_json', TASK_KEYS)},"
    f" {_keys('settings', SETTINGS_KEYS)} FROM sessions WHERE id > ? ORDER BY id LIMIT ?"
)
_LATEST_GRADES = (
    f"SELECT {_GRADE_COLUMNS}, {_keys('metrics', METRICS_KEYS)} FROM grades"
    " WHERE id IN (SELECT MAX(id) FROM grades GROUP BY session_id)"
)


def _pick(row: tuple[Any, ...], at: int, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """{key: value} of the (json_type, json_extract) pairs from `row[at]` on; None when one is
    an object or an array (the caller decodes the whole document)."""
    found: dict[str, Any] = {}
    for k, key in enumerate(keys):
        kind, value = row[at + 2 * k], row[at + 2 * k + 1]
        if kind is None:  # no such key
            continue
        if kind in _PLAIN:
            found[key] = _PLAIN[kind]
        elif kind in ("object", "array"):
            return None
        else:  # text, integer, real: as JSON decoding gives them
            found[key] = value
    return found


def _lean(model: Any, shared: dict[Any, Any]) -> Any:
    """`model` holding one shared set of the names of its fields set, not a set of its own (a
    set of two dozen names weighs more than the rest of a session's model; the models are
    frozen, so no set is ever changed)."""
    names = model.__pydantic_fields_set__
    object.__setattr__(
        model, "__pydantic_fields_set__", shared.setdefault(("fields", *sorted(names)), names)
    )
    return model


def _shared_dict(shared: dict[Any, Any], found: dict[str, Any]) -> dict[str, Any]:
    """One dict for equal small dicts of plain values (the models never change them)."""
    try:
        return shared.setdefault(("dict", *sorted(found.items())), found)
    except TypeError:  # a list or an object: not shared
        return found


def _whole(store: Store, table: str, column: str, row_id: int, keys: tuple[str, ...]) -> dict:
    (text,) = store.read(f"SELECT {column} FROM {table} WHERE id = ?", (row_id,))[0]
    document = convert.loads(text, {})
    return {key: document[key] for key in keys if key in document}


def report_sessions(store: Store) -> tuple[list[Session], dict[int, GradeRow]]:
    """Every session in id order and {session id: its latest grade}, holding only the keys the
    report reads (module docstring)."""
    from crmarena_tui.storage.models import GradeRow, Session

    names = [c.strip() for c in _SESSION_COLUMNS.split(",")]
    width = len(names)
    at_settings = width + 2 * len(TASK_KEYS)
    shared: dict[Any, Any] = {}  # one object for the many equal texts and key sets of the rows
    sessions = []
    last = 0
    while rows := store.read(_SESSIONS, (last, _CHUNK)):
        last = rows[-1][0]
        for row in rows:
            fields: dict[str, Any] = {
                n: shared.setdefault(v, v) if isinstance(v, str) and n != "uuid" else v
                for n, v in zip(names, row[:width], strict=True)
            }
            task = _pick(row, width, TASK_KEYS)
            if task is None:
                task = _whole(store, "sessions", "task_json", fields["id"], TASK_KEYS)
            settings = _pick(row, at_settings, SETTINGS_KEYS)
            if settings is None:
                settings = _whole(store, "sessions", "settings", fields["id"], SETTINGS_KEYS)
            fields.update(
                task_json=_shared_dict(shared, task),
                settings=_shared_dict(shared, settings),
                kind=fields["kind"] or "attempt",
                protocol=fields["protocol"] or "workbench",
                uuid=fields["uuid"] or "",
            )
            sessions.append(_lean(Session(**fields), shared))
    grade_names = [c.strip() for c in _GRADE_COLUMNS.split(",")]
    width = len(grade_names)
    grades = {}
    for row in store.read(_LATEST_GRADES):
        found: dict[str, Any] = {
            n: shared.setdefault(v, v) if isinstance(v, str) else v
            for n, v in zip(grade_names, row[:width], strict=True)
        }
        metrics = _pick(row, width, METRICS_KEYS)
        if metrics is None:
            metrics = _whole(store, "grades", "metrics", found["id"], METRICS_KEYS)
        grades[found["session_id"]] = _lean(GradeRow(**found, metrics=metrics), shared)
    return sessions, grades
