"""Test-wide isolation: every test runs with its own XDG and Hugging Face directories, offline."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SAMPLE_ROWS = DATA / "crmarenapro_b2b_sample.json"

# Before anything imports datasets/huggingface_hub: no network, no progress bars.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_DATASETS_DISABLE_PROGRESS_BARS"] = "1"
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

# Module- and session-scoped fixtures run before the per-test isolation below: point every user
# directory at a throw-away folder from the start, so no test can touch the real home.
_SESSION_HOME = Path(tempfile.mkdtemp(prefix="crmarena-tui-tests-"))
atexit.register(shutil.rmtree, _SESSION_HOME, ignore_errors=True)  # one per process, every run
for _var, _sub in (
    ("XDG_DATA_HOME", "data"),
    ("XDG_CONFIG_HOME", "config"),
    ("XDG_CACHE_HOME", "cache"),
    ("XDG_STATE_HOME", "state"),
    ("HF_HOME", "hf"),
):
    os.environ[_var] = str(_SESSION_HOME / _sub)
os.environ.pop("CRMARENA_TUI_DB", None)

# The app's commands run as an installed package runs: with their modules' bytecode cached. A
# machine that sets PYTHONDONTWRITEBYTECODE would otherwise compile the project again in every
# command a test starts (and pytest would rewrite every test module again in every worker).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.delenv("CRMARENA_TUI_DB", raising=False)
    for key in list(os.environ):
        if key.startswith("SALESFORCE_") or key.endswith("_API_KEY"):
            monkeypatch.delenv(key, raising=False)
    return home


@pytest.fixture(scope="session")
def shared_org_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the built demo orgs, shared by all tests (and xdist workers) of a run."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / "demo-orgs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(autouse=True)
def _shared_orgs(shared_org_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRMARENA_TUI_ORG_DIR", str(shared_org_dir))


@pytest.fixture(scope="session")
def demo_orgs(shared_org_dir: Path) -> Path:
    """The demo orgs and their full task lists, built once into the shared folder (under a file
    lock, so xdist workers share one build): a test that needs them asks for this fixture rather
    than relying on an earlier test having built them. Returns the folder."""
    from crmarena_tui.demo.generator import ensure_demo_org
    from crmarena_tui.demo.tasks import demo_tasks

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CRMARENA_TUI_ORG_DIR", str(shared_org_dir))
        for org_type in ("b2b", "b2c"):
            ensure_demo_org(org_type)
            demo_tasks(org_type, "full")
    return shared_org_dir


@pytest.fixture(scope="session")
def hf_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hf")


@pytest.fixture(autouse=True)
def _hf_home(hf_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HOME", str(hf_cache))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(hf_cache / "datasets"))


@pytest.fixture
def sample_rows_path() -> Path:
    return SAMPLE_ROWS


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        help="also run the tests marked `full` (whole demo sets, eight participants at once)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """A test process keeps a large heap (textual, litellm, the SDKs, the test modules) and makes
    garbage fast: at the interpreter's default the collector ran about 30,000 times a worker and
    walked that heap about 250 times: 81 s of the default run's 730 s of worker CPU (2026-12-03).
    Collected after 10,000 new objects instead of 700, with the modules frozen below: 51 s.
    What a test sees is the same; only when the garbage is collected changes."""
    gc.set_threshold(10_000, 10, 10)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported lives as long as the process: out of the collector's way."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `full` (a seeded sample of the same checks runs by default) are skipped
    unless `--full` is given or the suite runs in CI (`CI=true`, as `.ci/run` is run, so CI runs
    the README's own command and still plays whole sets): docs/development.md, "Markers"."""
    if config.getoption("--full") or os.environ.get("CI", "").lower() == "true":
        return
    skip = pytest.mark.skip(reason="a full run: `python -m pytest --full -m full` runs it")
    for item in items:
        if "full" in item.keywords:
            item.add_marker(skip)
