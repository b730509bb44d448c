"""The collector is off during `play`'s start-up only where the rows are read quickly."""

from __future__ import annotations

import gc

import pytest

from crmarena_tui.app import startup_gc


@pytest.fixture(autouse=True)
def _collector_on():
    yield
    gc.enable()
    gc.unfreeze()


@pytest.mark.parametrize("source", ["demo", "demo:small", "tasks.json", "T.JSONL"])
def test_quick_sources_pause_the_collector_until_settled(source: str) -> None:
    gc.unfreeze()  # (tests/conftest.py froze what collection imported)
    startup_gc.pause(source)
    assert not gc.isenabled()
    startup_gc.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


@pytest.mark.parametrize("source", ["hf:Salesforce/CRMArenaPro", "tasks.parquet", "hf:x.json"])
def test_datasets_sources_keep_the_collector(source: str) -> None:
    startup_gc.pause(source)
    assert gc.isenabled()


def test_resume_turns_it_back_on() -> None:
    startup_gc.pause("demo")
    startup_gc.resume()
    assert gc.isenabled()
