"""A study as a JSON file, so its plan travels to laptops: `study export` writes the study, its
participants with their join codes and each queue; `study import` writes them into another
sessions database. Importing the same file again changes nothing; a different study (another
uuid, or the same uuid with another plan) under a name already taken is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage import strict_json
from crmarena_tui.studies import db
from crmarena_tui.studies.document_check import check_document, check_tasks_exist
from crmarena_tui.studies.model import SHOW_GRADE, STUDY_STATUSES, Study, StudyError

if TYPE_CHECKING:
    from crmarena_tui.storage import Store

FORMAT = "crmarena-tui study"
VERSION = 1
SETTINGS = ("name", "tasks", "org", "per_task", "seed", "time_limit_minutes", "show_grade")


def study_document(store: Store, study: Study) -> dict[str, Any]:
    """The study as JSON-ready data (what `study export` writes)."""
    queues: dict[str, list[dict[str, Any]]] = {}
    for who, _position, key, task_type in db.assignments(store, study):
        queues.setdefault(who, []).append(
            {"task_source": key[0], "task_idx": key[1], "task_type": task_type}
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "study": {
            "uuid": study.uuid,
            **{name: getattr(study, name) for name in SETTINGS},
            "status": study.status,
            "created_at": study.created_at,
        },
        "participants": [
            {"name": who, "join_code": code, "queue": queues.get(who, [])}
            for who, code in db.participants(store, study)
        ],
    }


def export_study(store: Store, name: str, out: Path) -> Study:
    study = db.get_study(store, name)
    text = json.dumps(study_document(store, study), indent=1, ensure_ascii=False)
    out.write_text(text + "\n", encoding="utf-8")
    return study


def read_document(path: Path) -> dict[str, Any]:
    """The parsed file, checked enough that a wrong or damaged file is refused by name."""
    try:
        data = strict_json.loads(path.read_text(encoding="utf-8"))
    except strict_json.JsonValueError as exc:
        raise StudyError(f"{path}: {exc.where or 'the file'}: {exc.problem}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StudyError(f"cannot read {path} as a study file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StudyError(f"{path} is not a study file written by `crmarena-tui study export`")
    if data.get("version") != VERSION:
        raise StudyError(
            f"{path} is a study file of version {data.get('version')}; this crmarena-tui reads "
            f"version {VERSION}"
        )
    try:
        study = data["study"]
        assert isinstance(study["uuid"], str) and study["uuid"]
        assert isinstance(study["name"], str) and study["name"].strip()
        assert study["show_grade"] in SHOW_GRADE and study["status"] in STUDY_STATUSES
        for person in data["participants"]:
            assert isinstance(person["name"], str) and isinstance(person["join_code"], str)
            for item in person["queue"]:
                assert isinstance(item["task_source"], str) and isinstance(item["task_idx"], int)
    except (KeyError, TypeError, AssertionError):
        raise StudyError(f"{path} is a damaged study file (a field is missing or wrong)") from None
    check_document(path, data)
    return data


def _plan_of(document: dict[str, Any]) -> tuple[Any, ...]:
    """What must be equal for two copies to be one study: settings, codes and queues."""
    study = document["study"]
    return (
        study["uuid"],
        tuple(study[name] for name in SETTINGS),
        tuple(
            (
                p["name"],
                p["join_code"],
                tuple(
                    (q["task_source"], q["task_idx"], q.get("task_type", "")) for q in p["queue"]
                ),
            )
            for p in document["participants"]
        ),
    )


def import_study(store: Store, path: Path) -> tuple[Study, bool]:
    """Write the study of the file at `path`; (the study, False if it was already there)."""
    document = read_document(path)
    check_tasks_exist(path, document)
    study = document["study"]
    name = study["name"]
    existing = db.find_study(store, name)
    if existing is not None:
        if existing.uuid != study["uuid"]:
            raise StudyError(
                f"{store.path} already has another study named {name!r} (not the one in {path}); "
                "import into another database with --db"
            )
        if _plan_of(study_document(store, existing)) != _plan_of(document):
            raise StudyError(
                f"study {name!r} in {store.path} has the same origin as the one in {path} but "
                "another plan (participants, join codes or queues differ); nothing was imported"
            )
        return existing, False
    same_origin = [s for s in db.list_studies(store) if s.uuid == study["uuid"]]
    if same_origin:
        raise StudyError(
            f"{store.path} already holds this study under the name {same_origin[0].name!r}"
        )
    queues = {
        p["name"]: [(q["task_source"], int(q["task_idx"])) for q in p["queue"]]
        for p in document["participants"]
    }
    task_types = {
        (q["task_source"], int(q["task_idx"])): q.get("task_type", "")
        for p in document["participants"]
        for q in p["queue"]
    }
    created = db.create_study(
        store,
        name,
        tasks=study["tasks"],
        org=study["org"],
        per_task=int(study["per_task"]),
        seed=int(study["seed"]),
        queues=queues,
        task_types=task_types,
        time_limit_minutes=study["time_limit_minutes"],
        show_grade=study["show_grade"],
        codes={p["name"]: p["join_code"] for p in document["participants"]},
        status=study["status"],
        created_at=float(study["created_at"]),
        uuid=study["uuid"],
    )
    return created, True
