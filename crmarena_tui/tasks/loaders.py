"""Load tasks from the Hugging Face hub, local files or the built-in demo set, through `datasets`.

Sources: `demo` (the built-in set, full size) and `demo:small` (its first 12 tasks per type and
org type); `hf:b2b`, `hf:b2c`, `hf:b2b_interactive`, `hf:b2c_interactive`
(Salesforce/CRMArenaPro, config CRMArenaPro); `hf:original` (Salesforce/CRMArena); and local
`.json`, `.jsonl` and `.parquet` files. Local files load with explicit Features, so a file whose
every answer is `[null]` still loads. A broken file raises `TaskLoadError` naming the row and field.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from crmarena_tui.tasks.model import Task

PRO_REPO, PRO_CONFIG = "Salesforce/CRMArenaPro", "CRMArenaPro"
ORIGINAL_REPO, ORIGINAL_CONFIG = "Salesforce/CRMArena", "CRMArena"
HF_SPLITS = ("b2b", "b2c", "b2b_interactive", "b2c_interactive", "original")
SCHEMA_SPLITS = ("b2b_schema", "b2c_schema", "original_schema")
HUB_HOST = "huggingface.co"
HUB_PROBE_SECONDS = 3.0

REQUIRED_FIELDS = ("idx", "task", "query", "answer", "reward_metric")
EXTRA_FIELDS = ("source", "org_type", "interactive")
LOCAL_ALTERNATIVES = (
    "use --tasks demo (built in, offline) or a local file: --tasks PATH.json|.jsonl|.parquet "
    "(for example a copy of the hub's split saved with `datasets`)"
)


class TaskLoadError(ValueError):
    """A task source could not be loaded; the message says what and where."""


def _features(columns: Iterable[str]) -> Any:
    from datasets import Features, List, Value

    known: dict[str, Any] = {
        "idx": Value("int64"),
        "task": Value("string"),
        "query": Value("string"),
        "answer": List(Value("string")),
        "metadata": {"required": Value("string"), "optional": Value("string")},
        "reward_metric": Value("string"),
        "persona": Value("string"),
        "source": Value("string"),
        "org_type": Value("string"),
        "interactive": Value("bool"),
    }
    return Features({c: known[c] for c in columns})


def _quiet_datasets(offline: bool) -> None:
    """Progress bars off (they write to stderr) and, when asked, no network at all."""
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if offline:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["HF_DATASETS_OFFLINE"] = "1"
    import datasets

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    if offline:  # the flags are read at import time; set them too if already imported
        import huggingface_hub.constants as hub_constants

        hub_constants.HF_HUB_OFFLINE = True
        datasets.config.HF_HUB_OFFLINE = True


def load_tasks(src: str = "demo") -> list[Task]:
    """All tasks of `src`, in source order."""
    if src in ("demo", "demo:small"):
        from crmarena_tui.demo.tasks import SOURCES, demo_tasks

        return demo_tasks(size=SOURCES[src])
    if src.startswith("hf:"):
        return _load_hub(src[3:])
    return load_task_file(Path(src))


# ---------------------------------------------------------------- local files


def _file_columns(path: Path) -> list[str]:
    suffix = path.suffix.lower()
    try:
        if suffix == ".jsonl":
            with path.open(encoding="utf-8") as fh:
                for lineno, line in enumerate(fh, 1):
                    if line.strip():
                        first = json.loads(line)
                        if not isinstance(first, dict):
                            raise TaskLoadError(
                                f"{path}: row 0 (line {lineno}) is not a JSON object"
                            )
                        return list(first)
            return []
        if suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                raise TaskLoadError(f"{path}: expected a JSON list of task rows, found an object")
            if not isinstance(data, list):
                raise TaskLoadError(f"{path}: expected a JSON list of task rows")
            if data and not isinstance(data[0], dict):
                raise TaskLoadError(f"{path}: row 0 is not a JSON object")
            return list(data[0]) if data else []
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
    except json.JSONDecodeError as exc:
        raise TaskLoadError(
            f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except TaskLoadError:
        raise
    except Exception as exc:  # pyarrow and friends
        raise TaskLoadError(f"{path}: cannot read: {exc}") from None
    raise TaskLoadError(f"{path}: unsupported file type {suffix!r}; use .json, .jsonl or .parquet")


def _check_columns(path: Path, columns: list[str]) -> None:
    for field in REQUIRED_FIELDS:
        if field not in columns:
            raise TaskLoadError(f"{path}: row 0: field '{field}' is missing")
    allowed = set(REQUIRED_FIELDS) | set(EXTRA_FIELDS) | {"metadata", "persona"}
    for field in columns:
        if field not in allowed:
            raise TaskLoadError(f"{path}: row 0: unknown field '{field}'")


def _guess(path: Path) -> tuple[str, bool]:
    name = path.name.lower()
    return ("b2c" if "b2c" in name else "b2b"), ("interactive" in name)


def load_task_file(path: Path) -> list[Task]:
    """Tasks from a local .json (a list of rows), .jsonl or .parquet file."""
    path = Path(path).expanduser()
    if not path.exists():
        raise TaskLoadError(f"no such task file: {path}")
    columns = _file_columns(path)
    if not columns:
        return []
    _check_columns(path, columns)
    _quiet_datasets(offline=True)
    import datasets

    builder = "parquet" if path.suffix.lower() == ".parquet" else "json"
    try:
        ds = datasets.load_dataset(
            builder, data_files=str(path), features=_features(columns), split="train"
        )
    except Exception as exc:
        raise _diagnose(path, exc) from None
    org_type, interactive = _guess(path)
    defaults = {"source": str(path.resolve()), "org_type": org_type, "interactive": interactive}
    return _to_tasks(ds.to_list(), defaults, where=str(path))


def _raw_rows(path: Path) -> list[Any]:
    if path.suffix.lower() == ".jsonl":
        with path.open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    if path.suffix.lower() == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


def _diagnose(path: Path, exc: Exception) -> TaskLoadError:
    """Find the row and field that `datasets` choked on, by validating the raw rows ourselves."""
    try:
        rows = _raw_rows(path)
    except Exception as raw_exc:
        return TaskLoadError(f"{path}: cannot read: {raw_exc}")
    columns = list(rows[0]) if rows and isinstance(rows[0], dict) else []
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            return TaskLoadError(f"{path}: row {n}: not a JSON object")
        extra = [c for c in row if c not in columns]
        missing = [c for c in columns if c not in row]
        if extra or missing:
            field = (extra or missing)[0]
            what = "unexpected" if extra else "missing"
            return TaskLoadError(f"{path}: row {n}: field '{field}' is {what}")
        try:
            _validate(row, {"source": "x", "org_type": "b2b", "interactive": False})
        except TaskLoadError as err:
            return TaskLoadError(f"{path}: row {n}: {err}")
    return TaskLoadError(f"{path}: cannot load: {exc}")


# ---------------------------------------------------------------- conversion


def _validate(row: dict[str, Any], defaults: dict[str, Any]) -> Task:
    data = {**defaults, **{k: v for k, v in row.items() if v is not None or k == "answer"}}
    if data.get("answer") is None:
        data["answer"] = [None]
    if data.get("metadata") is None:
        data.pop("metadata", None)
    if data.get("persona") is None:
        data["persona"] = ""
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "row"
        if err["type"] == "missing":
            raise TaskLoadError(f"field '{field}' is missing") from None
        raise TaskLoadError(
            f"field '{field}': {err['msg']} (got {err.get('input')!r:.80})"
        ) from None


def _to_tasks(rows: list[dict[str, Any]], defaults: dict[str, Any], where: str) -> list[Task]:
    tasks = []
    for n, row in enumerate(rows):
        try:
            tasks.append(_validate(row, defaults))
        except TaskLoadError as err:
            idx = row.get("idx")
            raise TaskLoadError(f"{where}: row {n} (idx {idx}): {err}") from None
    return tasks


# ---------------------------------------------------------------- the hub


def hub_reachable(timeout: float = HUB_PROBE_SECONDS) -> bool:
    """True when the hub's host resolves and accepts a TCP connection within `timeout` seconds."""
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        return False
    result: list[bool] = []

    def probe() -> None:  # in a thread: name resolution has no timeout of its own
        try:
            with socket.create_connection((HUB_HOST, 443), timeout=timeout):
                result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout)
    return bool(result and result[0])


def _hub_dataset(repo: str, config: str, split: str) -> Any:
    online = hub_reachable()
    _quiet_datasets(offline=not online)
    import datasets

    try:
        return datasets.load_dataset(repo, config, split=split)
    except Exception as exc:
        reason = "the hub is unreachable and no cached copy exists" if not online else str(exc)
        raise TaskLoadError(
            f"cannot load {repo} ({config}, split {split}): {reason}. {LOCAL_ALTERNATIVES}"
        ) from None


def _load_hub(split: str) -> list[Task]:
    if split not in HF_SPLITS:
        raise TaskLoadError(
            f"unknown hub split {split!r}; use one of: " + ", ".join(f"hf:{s}" for s in HF_SPLITS)
        )
    if split == "original":
        ds = _hub_dataset(ORIGINAL_REPO, ORIGINAL_CONFIG, "test")
        defaults = {"source": "hf:original", "org_type": "original", "interactive": False}
    else:
        ds = _hub_dataset(PRO_REPO, PRO_CONFIG, split)
        defaults = {
            "source": f"hf:{split}",
            "org_type": split.split("_")[0],
            "interactive": split.endswith("_interactive"),
        }
    rows = []
    for row in ds.to_list():
        row = {k: v for k, v in row.items() if k in REQUIRED_FIELDS or k in ("metadata", "persona")}
        if isinstance(row.get("answer"), str):
            row["answer"] = [row["answer"]]
        rows.append(row)
    return _to_tasks(rows, defaults, where=f"hf:{split}")


def drop_null_fields(row: dict[str, Any]) -> dict[str, Any]:
    """A hub schema row with the null padding in `fields` removed."""
    fields = row.get("fields") or {}
    return {"object": row["object"], "fields": {k: v for k, v in fields.items() if v is not None}}


def load_schema_rows(src: str) -> list[dict[str, Any]]:
    """Schema rows `{"object", "fields": {name: description}}` from `hf:b2b_schema` (or b2c, original)
    or a local .json/.jsonl file of such rows; null padding dropped."""
    if src.startswith("hf:"):
        split = src[3:]
        if split not in SCHEMA_SPLITS:
            raise TaskLoadError(
                f"unknown schema split {split!r}; use hf:b2b_schema or hf:b2c_schema"
            )
        if split == "original_schema":
            ds = _hub_dataset(ORIGINAL_REPO, "schema", "test")
        else:
            ds = _hub_dataset(PRO_REPO, split, split)
        return [drop_null_fields(r) for r in ds.to_list()]
    path = Path(src)
    rows = _raw_rows(path)
    for n, row in enumerate(rows):
        if not isinstance(row, dict) or "object" not in row:
            raise TaskLoadError(f"{path}: row {n}: field 'object' is missing")
    return [drop_null_fields(r) for r in rows]
