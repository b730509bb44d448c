"""Every path the project reads or writes, in one place (XDG data, config, cache and state
directories).

Nothing here touches the file system at import time; callers create directories when they write.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "crmarena-tui"


def data_dir() -> Path:
    """`$XDG_DATA_HOME/crmarena-tui` (default `~/.local/share/crmarena-tui`)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP_NAME


def config_dir() -> Path:
    """`$XDG_CONFIG_HOME/crmarena-tui` (default `~/.config/crmarena-tui`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / APP_NAME


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/crmarena-tui` (default `~/.cache/crmarena-tui`)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / APP_NAME


def state_dir() -> Path:
    """`$XDG_STATE_HOME/crmarena-tui` (default `~/.local/state/crmarena-tui`)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / APP_NAME


def crash_dir() -> Path:
    """Where an unexpected error's traceback is written (`<state dir>/crashes`)."""
    return state_dir() / "crashes"


def config_file() -> Path:
    return config_dir() / "config.toml"


def sessions_db_path(given: str | Path | None = None, configured: object = None) -> Path:
    """The one rule for which sessions database is opened: `given` (a command's `--db`, the
    app's option), else `CRMARENA_TUI_DB`, else `configured` (the config file's `db`), else
    `<data dir>/sessions.db`. `Settings.db_path`, `default_db_path` and the commands' `db_path`
    all ask it; `sessions_db_origin` says which of the four it took."""
    return _sessions_db(given, configured)[0]


def sessions_db_origin(given: str | Path | None = None, configured: object = None) -> str:
    """What chose the sessions database (`sessions_db_path`): `--db`, `CRMARENA_TUI_DB`, the
    config file, or the default place."""
    return _sessions_db(given, configured)[1]


def _sessions_db(given: str | Path | None, configured: object) -> tuple[Path, str]:
    for candidate, origin in (
        (given, "--db"),
        (os.environ.get("CRMARENA_TUI_DB"), "CRMARENA_TUI_DB"),
        (configured, "the config file"),
    ):
        if candidate:
            return Path(str(candidate)).expanduser(), origin
    return data_dir() / "sessions.db", "default"


def default_db_path() -> Path:
    """The sessions database when no option names one and no config file is read (`Store()`):
    `CRMARENA_TUI_DB` if set, else `<data dir>/sessions.db`."""
    return sessions_db_path()


def orgs_dir() -> Path:
    """The folder of the org files: demo orgs, imported upstream snapshots and their downloads
    (`CRMARENA_TUI_ORG_DIR` overrides it; default `<data dir>/orgs`)."""
    override = os.environ.get("CRMARENA_TUI_ORG_DIR")
    return Path(override).expanduser() if override else data_dir() / "orgs"


def demo_org_path(org_type: str = "b2b") -> Path:
    """Where the built-in demo org of `org_type` is cached."""
    return orgs_dir() / f"demo-{org_type}.db"


def upstream_org_path(org_type: str) -> Path:
    """Where `org fetch` puts the imported upstream snapshot of `org_type` (`upstream:<type>`)."""
    return orgs_dir() / f"upstream-{org_type}.db"


def downloads_dir() -> Path:
    """Where `org fetch` keeps downloaded snapshot files (and partial downloads)."""
    return orgs_dir() / "downloads"
