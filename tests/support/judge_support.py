"""A judge configured through the settings (`judge_model`), scripted: no network. It "extracts"
the ground truth of task IDX from ANSWER, which the deterministic extractor cannot read, so a path
that ignores the judge grades ANSWER 0 and a path that uses it grades it 1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from crmarena_tui.tasks.loaders import load_tasks
from crmarena_tui.tasks.model import Task
from tests.fakes.scripted_llm import register_script, unregister_script
from tests.support.app_support import SAMPLE, FakeOrg

ANSWER = "It is the article the policy team flagged last week."  # no Id in it
JUDGE = "scripted/judge-everywhere"
AGENT = "scripted/answer-everywhere"
IDX = 1763  # the first quote_approval task of the sample


def quote_task() -> Task:
    return next(t for t in load_tasks(str(SAMPLE)) if t.idx == IDX)


@contextmanager
def judge_configured(task: Task, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """`judge_model` set in the environment; the judge answers with the task's ground truth (the
    prompts it was asked are collected); AGENT answers ANSWER. The protocol is the default one,
    `upstream`."""
    asked: list[str] = []

    def judge(messages: list[dict[str, Any]], tools: Any) -> str:
        asked.append(messages[-1]["content"])
        return json.dumps({"extracted_answers": task.gold})  # the upstream protocol's form

    def agent(messages: list[dict[str, Any]], tools: Any) -> str:
        return f"<thought>I know it.</thought><respond>{ANSWER}</respond>"

    register_script("judge-everywhere", lambda: judge)
    register_script("answer-everywhere", lambda: agent)
    monkeypatch.setenv("CRMARENA_TUI_JUDGE_MODEL", JUDGE)
    from crmarena_tui.session.org_resolve import Available

    # every org is a FakeOrg, and the sample's real tasks find their upstream snapshot fetched
    # (routing is tested elsewhere)
    monkeypatch.setattr("crmarena_tui.session.org_resolve.open_org", lambda spec, **kw: FakeOrg())
    everything = Available(frozenset({"b2b", "b2c", "original"}))
    monkeypatch.setattr(Available, "probe", classmethod(lambda cls, env=None: everything))
    try:
        yield asked
    finally:
        unregister_script("judge-everywhere")
        unregister_script("answer-everywhere")
