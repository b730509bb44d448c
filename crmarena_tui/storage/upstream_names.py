"""What the path of an upstream result file says about its run.

Upstream's batch script writes
`results/{org}[_interactive]/{strategy}_{provider}[_privacy_aware]/results_{model}_{strategy}_{task}.json`;
the result files shared in upstream's repository are named
`results_{model}_{strategy}_{task}_interactive-{True|False}.json`. Both are read here, and older
layouts too: a model containing `/` made upstream write nested folders
(`results_together_ai/meta-llama/Llama_react_all.json`), which are joined back; a folder named
`b2b`, `b2c` or `original` gives the org; `multi-turn`, `multi_turn` or `interactive` the mode.
Anything the path does not say stays None (the rows may say it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from crmarena_tui.storage.configuration import ORG_TYPES as ORG_TYPES
from crmarena_tui.storage.configuration import STRATEGIES as STRATEGIES
from crmarena_tui.tasks.catalog import BY_NAME

_INTERACTIVE = re.compile(r"_interactive-(true|false)$", re.I)
_ORG_FOLDER = re.compile(r"^(b2b|b2c|original)(_interactive)?$", re.I)
_RUN_FOLDER = re.compile(
    rf"^({'|'.join(STRATEGIES)})_([a-z0-9_]+?)(_privacy_aware)?$",
    re.I,
)
_MODE_FOLDERS = ("multi-turn", "multi_turn", "interactive")


@dataclass(frozen=True, slots=True)
class RunName:
    """What a result file's path says about the run (`task` may be `all` or a comma list).

    `provider` and `privacy_aware` come from the batch script's run folder
    (`react_openai_privacy_aware`); `privacy_aware` is None when the path does not say."""

    model: str
    strategy: str
    task: str
    interactive: bool | None
    org_type: str | None
    provider: str | None = None
    privacy_aware: bool | None = None


def _task_spec(text: str) -> bool:
    return bool(text) and all(part == "all" or part in BY_NAME for part in text.split(","))


def _folders(parts: list[str]) -> tuple[bool | None, str | None, str | None, bool | None]:
    """(interactive, org type, provider, privacy aware) from the folders, innermost winning.

    A bare org folder (`b2b`) means single-turn only in the batch script's layout, that is when a
    run folder (`react_openai`) follows it; elsewhere it leaves the mode to the file or rows."""
    interactive: bool | None = None
    org: str | None = None
    provider: str | None = None
    privacy: bool | None = None
    bare_org = False
    for folder in parts:
        name = folder.lower()
        if found := _ORG_FOLDER.match(name):
            org, bare_org = found.group(1), not found.group(2)
            interactive = True if found.group(2) else None
        elif name in _MODE_FOLDERS:
            interactive, bare_org = True, False
        elif found := _RUN_FOLDER.match(name):
            provider, privacy = found.group(2), bool(found.group(3))
            if bare_org:
                interactive = False
    return interactive, org, provider, privacy


def parse_run_name(path: Path | str) -> RunName:
    """Model, strategy, task, mode, org type, provider and privacy-aware flag from a file's path."""
    path = Path(path)
    parts = list(path.parts)
    stem = path.name[:-5] if path.name.lower().endswith(".json") else path.name
    folders = parts[:-1]
    if not stem.startswith("results_"):
        start = next(
            (i for i in range(len(parts) - 2, -1, -1) if parts[i].startswith("results_")), None
        )
        if start is not None:  # a model name with "/" became folders
            stem = "/".join([*parts[start:-1], stem])
            folders = parts[:start]
    stem = stem.removeprefix("results_")
    interactive, org_type, provider, privacy = _folders(folders)
    if found := _INTERACTIVE.search(stem):
        interactive = found.group(1).lower() == "true"
        stem = stem[: found.start()]
    candidates = []
    for strategy in STRATEGIES:
        at = stem.rfind(f"_{strategy}_")
        if at > 0:
            candidates.append((_task_spec(stem[at + len(strategy) + 2 :]), at, strategy))
    if candidates:
        _valid, at, strategy = max(candidates)
        model, task = stem[:at], stem[at + len(strategy) + 2 :]
    else:
        model, strategy, task = stem or path.stem, "unknown", ""
    return RunName(model, strategy, task, interactive, org_type, provider, privacy)


def find_result_files(paths: Iterable[Path | str]) -> list[Path]:
    """The files named, plus every `*.json` under the folders named (recursively), sorted."""
    found: list[Path] = []
    for entry in map(Path, paths):
        found.extend(
            sorted(p for p in entry.rglob("*.json") if p.is_file()) if entry.is_dir() else [entry]
        )
    return list(dict.fromkeys(found))
