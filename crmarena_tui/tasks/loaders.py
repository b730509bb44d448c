"""Load tasks from local files or the Hugging Face hub (the built-in demo sets, `demo` and
`demo:small`, are the demo package's: `demo/sources.py` takes every source name and hands the
others to this module, which sits below the demo package).

Sources: local `.json` (a list of rows), `.jsonl` and `.parquet` files; `hf:b2b`, `hf:b2c`,
`hf:b2b_interactive`, `hf:b2c_interactive` (Salesforce/CRMArenaPro, config CRMArenaPro) and
`hf:original` (Salesforce/CRMArena). JSON files are read with the standard library, row by row
(tasks/json_rows.py; their first rows alone for the app's first frame, `ready_table`), and validated
by the pydantic Task model: `datasets` (which brings pyarrow, pandas and numpy, about 80 MB) is
imported only for parquet files and the hub. A broken file raises `TaskLoadError` naming the row,
its idx and the field. Whether the hub is online is asked where `huggingface_hub` goes
(`HF_ENDPOINT`, the environment's proxies; never with `HF_HUB_OFFLINE`): else `datasets` reads
its cache only.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.tasks.json_rows import first_rows, read_json_rows
from crmarena_tui.tasks.rows import (
    ALLOWED_FIELDS,
    REQUIRED_FIELDS,
    LoadRules,
    TaskLoadError,
    tasks_from_rows,
)

if TYPE_CHECKING:
    from crmarena_tui.tasks.model import Task
    from crmarena_tui.tasks.table import TaskTable

__all__ = [
    "LoadRules",
    "TaskLoadError",
    "load_schema_rows",
    "load_task_file",
    "load_task_table",
    "load_tasks",
]

PRO_REPO, PRO_CONFIG = "Salesforce/CRMArenaPro", "CRMArenaPro"
ORIGINAL_REPO, ORIGINAL_CONFIG = "Salesforce/CRMArena", "CRMArena"
HF_SPLITS = ("b2b", "b2c", "b2b_interactive", "b2c_interactive", "original")
SCHEMA_SPLITS = ("b2b_schema", "b2c_schema", "original_schema")
HUB_ENDPOINT = "https://huggingface.co"
HUB_PROBE_SECONDS = 3.0
FIRST_ROWS = 200  # a file's rows listed in the first frame: more than a terminal's height

LOCAL_ALTERNATIVES = (
    "use --tasks demo (built in, offline) or a local file: --tasks PATH.json|.jsonl|.parquet "
    "(for example a copy of the hub's split saved with `datasets`)"
)


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


def load_tasks(src: str = "demo", rules: LoadRules | None = None) -> list[Task]:
    """All tasks of `src`, in source order; a repeated idx or an unknown task type is refused
    unless `rules` allow it (tasks/rows.py `RowGate`)."""
    _not_built_in(src)
    if src.startswith("hf:"):
        return _load_hub(src[3:], rules)
    return load_task_file(Path(src), rules)


def load_task_table(src: str, rules: LoadRules | None = None) -> TaskTable:
    """The tasks of `src` as the browser lists them, each `Task` built when it is opened (see
    tasks/table.py): fast for the demo sets and local JSON files, without pydantic."""
    from crmarena_tui.tasks.table import TaskTable, table_from_rows

    _not_built_in(src)
    if not src.startswith("hf:") and Path(src).suffix.lower() in (".json", ".jsonl"):
        path, rows, defaults = _file_rows(Path(src))
        return table_from_rows(rows, defaults, where=str(path), rules=rules)
    return TaskTable.of(load_tasks(src, rules))


def ready_table(src: str, *, first_of_file: bool = True) -> TaskTable:
    """What the browser can list in the first frame, without building anything: the rows of a
    demo set whose orgs and rows files are built (read in a few hundredths of a second), with
    `first_of_file` the first screenful of a .json or .jsonl file (a `partial` table, read in a
    few milliseconds, unless that is the whole file), else an empty table. The app's tasks worker
    loads the rest."""
    from crmarena_tui.tasks.table import TaskTable

    _not_built_in(src)
    if first_of_file and not src.startswith("hf:"):
        return _first_of_file(Path(src).expanduser())
    return TaskTable()


BUILT_IN = ("demo", "demo:small")  # (demo/tasks.py `SOURCES`, which this module cannot import)


def _not_built_in(src: str) -> None:
    """A built-in set's name reaching this module is a caller's mistake (it asks
    `demo/sources.py`, which knows them): never read as a file of that name."""
    if src in BUILT_IN:
        raise ValueError(f"{src!r} is a built-in task set: load it with crmarena_tui.demo.sources")


def _first_of_file(path: Path) -> TaskTable:
    """The first `FIRST_ROWS` rows of a .json or .jsonl file as a `partial` table, up to the first
    that is not plainly right (the full read names what is wrong, as it always has); a small file
    read whole is its whole table."""
    from crmarena_tui.tasks.table import TaskTable, first_table

    if path.suffix.lower() not in (".json", ".jsonl"):
        return TaskTable()
    rows, whole = first_rows(path, FIRST_ROWS)
    return first_table(rows, _defaults(path), where=str(path), whole=whole)


# ---------------------------------------------------------------- local files


def _defaults(path: Path) -> dict[str, Any]:
    """What a file's rows that do not say are: its source, and the org type and mode its name
    implies."""
    name = path.name.lower()
    org_type, interactive = ("b2c" if "b2c" in name else "b2b"), ("interactive" in name)
    return {"source": str(path.resolve()), "org_type": org_type, "interactive": interactive}


def load_task_file(path: Path, rules: LoadRules | None = None) -> list[Task]:
    """Tasks from a local .json (a list of rows), .jsonl or .parquet file."""
    path, rows, defaults = _file_rows(path)
    return tasks_from_rows(rows, defaults, where=str(path), check=True, rules=rules)


def _file_rows(path: Path) -> tuple[Path, list[Any], dict[str, Any]]:
    """A task file's path (expanded), its parsed rows and the defaults its name implies."""
    path = Path(path).expanduser()
    if not path.exists():
        raise TaskLoadError(f"no such task file: {path}")
    suffix = path.suffix.lower()
    if suffix not in (".json", ".jsonl", ".parquet"):
        raise TaskLoadError(
            f"{path}: unsupported file type {suffix!r}; use .json, .jsonl or .parquet"
        )
    defaults = _defaults(path)
    try:
        rows = read_json_rows(path) if suffix != ".parquet" else _parquet_rows(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskLoadError(f"{path}: cannot read: {exc}") from None
    return path, rows, defaults


def _parquet_rows(path: Path) -> list[dict[str, Any]]:
    """A parquet file's rows through `datasets` with explicit Features, so a file whose every
    answer is `[null]` still loads."""
    try:
        import pyarrow.parquet as pq

        columns = list(pq.read_schema(path).names)
    except Exception as exc:  # pyarrow's errors for a file that is not parquet
        raise TaskLoadError(f"{path}: cannot read: {exc}") from None
    if not columns:
        return []
    for field in REQUIRED_FIELDS:
        if field not in columns:
            raise TaskLoadError(f"{path}: row 0: field '{field}' is missing")
    for field in columns:
        if field not in ALLOWED_FIELDS:
            raise TaskLoadError(f"{path}: row 0: unknown field '{field}'")
    _quiet_datasets(offline=True)
    import datasets

    try:
        ds = datasets.load_dataset(
            "parquet", data_files=str(path), features=_features(columns), split="train"
        )
    except Exception as exc:
        raise _diagnose(path, exc) from None
    return ds.to_list()


def _diagnose(path: Path, exc: Exception) -> TaskLoadError:
    """Find the row and field that `datasets` choked on, by validating the raw rows ourselves."""
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(path).to_pylist()
        tasks_from_rows(rows, {"source": "x"}, where=str(path), check=True)
    except TaskLoadError as err:
        return err
    except Exception as raw_exc:
        return TaskLoadError(f"{path}: cannot read: {raw_exc}")
    return TaskLoadError(f"{path}: cannot load: {exc}")


# ---------------------------------------------------------------- the hub


def hub_endpoint() -> str:
    """The hub's address as `huggingface_hub` reads it: `HF_ENDPOINT` (a mirror), else the hub."""
    return (os.environ.get("HF_ENDPOINT") or HUB_ENDPOINT).rstrip("/")


def hub_offline() -> bool:
    """`HF_HUB_OFFLINE` set to a true value, as `huggingface_hub` reads it."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def hub_reachable(timeout: float = HUB_PROBE_SECONDS, repo: str = PRO_REPO) -> bool:
    """True when the hub (`hub_endpoint()`) answers an HTTP request for `repo`'s dataset page
    within `timeout` seconds, through the proxy the environment names (`HTTPS_PROXY`,
    `HTTP_PROXY`, `NO_PROXY`, as `huggingface_hub` uses them); False when `HF_HUB_OFFLINE` is
    set. Any HTTP answer counts (a 401 or 404 is still the hub answering)."""
    if hub_offline():
        return False
    import urllib.error
    import urllib.request

    url = f"{hub_endpoint()}/api/datasets/{repo}"
    result: list[bool] = []

    def probe() -> None:  # in a thread: name resolution has no timeout of its own
        request = urllib.request.Request(url, method="HEAD")
        opener = urllib.request.build_opener()  # the proxies the environment names now
        try:
            with opener.open(request, timeout=timeout):
                result.append(True)
        except urllib.error.HTTPError:
            result.append(True)
        except (OSError, ValueError):
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout)
    return bool(result and result[0])


def _hub_dataset(
    repo: str, config: str, split: str, alternatives: str | None = LOCAL_ALTERNATIVES
) -> Any:
    """The hub's `split` of `repo`'s `config` through `datasets` (its cache when offline); a
    `TaskLoadError` saying why not, followed by `alternatives` when given."""
    told_offline = hub_offline()
    online = hub_reachable(repo=repo)
    _quiet_datasets(offline=not online)
    import datasets

    try:
        return datasets.load_dataset(repo, config, split=split)
    except Exception as exc:
        if online:
            reason = str(exc)
        elif told_offline:
            reason = "HF_HUB_OFFLINE is set and no cached copy exists"
        else:
            reason = f"the hub ({hub_endpoint()}) is unreachable and no cached copy exists"
        then = f" {alternatives}" if alternatives else ""
        raise TaskLoadError(
            f"cannot load {repo} ({config}, split {split}): {reason}.{then}"
        ) from None


def _load_hub(split: str, rules: LoadRules | None = None) -> list[Task]:
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
    return tasks_from_rows(rows, defaults, where=f"hf:{split}", rules=rules)


def drop_null_fields(row: dict[str, Any]) -> dict[str, Any]:
    """A hub schema row with the null padding in `fields` removed."""
    fields = row.get("fields") or {}
    return {"object": row["object"], "fields": {k: v for k, v in fields.items() if v is not None}}


def schema_dataset(split: str) -> tuple[str, str, str]:
    """(repo, config, split) of a hub schema split: `b2b_schema` and `b2c_schema` of
    Salesforce/CRMArenaPro, `original_schema` for Salesforce/CRMArena's `schema` (split `test`),
    as upstream's `crm_sandbox/data/assets.py` loads them."""
    if split not in SCHEMA_SPLITS:
        raise TaskLoadError(f"unknown schema split {split!r}; use hf:b2b_schema or hf:b2c_schema")
    if split == "original_schema":
        return ORIGINAL_REPO, "schema", "test"
    return PRO_REPO, split, split


def load_schema_rows(
    src: str, alternatives: str | None = LOCAL_ALTERNATIVES
) -> list[dict[str, Any]]:
    """Schema rows `{"object", "fields": {name: description}}` from `hf:b2b_schema` (or b2c,
    original) or a local .json, .jsonl or .parquet file of such rows; null padding dropped. A hub
    split that cannot be loaded raises `TaskLoadError` ending with `alternatives`."""
    if src.startswith("hf:"):
        ds = _hub_dataset(*schema_dataset(src[3:]), alternatives=alternatives)
        return [drop_null_fields(r) for r in ds.to_list()]
    return _schema_file_rows(Path(src).expanduser())


SCHEMA_SUFFIXES = (".json", ".jsonl", ".parquet")


def _schema_file_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a schema file as the hub holds them: a JSON list, JSON Lines or parquet (a
    split saved with `datasets`' `to_json` / `to_parquet`); null padding dropped."""
    if not path.is_file():
        raise TaskLoadError(f"{path}: no such schema file")
    if path.suffix.lower() not in SCHEMA_SUFFIXES:
        raise TaskLoadError(
            f"{path}: unsupported schema file type {path.suffix!r}; use .json, .jsonl or .parquet"
        )
    try:
        if path.suffix.lower() == ".parquet":
            import pyarrow.parquet as pq

            rows: list[Any] = pq.read_table(path).to_pylist()
        else:
            rows = read_json_rows(path)
    except TaskLoadError:
        raise
    except Exception as exc:  # an unreadable file, or pyarrow's error for a file not parquet
        raise TaskLoadError(f"{path}: cannot read: {exc}") from None
    for n, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("object"), str):
            raise TaskLoadError(f"{path}: row {n}: field 'object' is missing")
        if not isinstance(row.get("fields"), dict):
            raise TaskLoadError(
                f"{path}: row {n} ({row['object']}): 'fields' is not an object of field names "
                "and descriptions"
            )
    if not rows:
        raise TaskLoadError(f"{path}: no schema rows")
    return [drop_null_fields(r) for r in rows]
