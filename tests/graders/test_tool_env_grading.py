"""Tool calling on the original CRMArena is graded as upstream's `ToolEnv` grades it (issue 34,
item 4): under `upstream`, the `respond` call's `content` exactly as the model wrote it, compared
with `==` against the task's answer (`crm_sandbox/env/env.py`, `ToolEnv.calculate_reward`: no
strip, no extraction, no judge; a null answer is "None"). An answer the extractor would read as
right scores 0 there, and `regrade --imported` keeps upstream's recorded 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmarena_tui.cli import main
from crmarena_tui.graders import grade
from crmarena_tui.graders.explain import compared
from crmarena_tui.storage import Store
from crmarena_tui.storage.submission_grade import grade_submission
from crmarena_tui.tasks.model import Task
from tests.support.upstream_results_support import info, write

RIGHT = "005Wt000003NIvNIAW"
SENTENCE = f"The agent with the lowest handle time is {RIGHT}."


def original_task(answer: list[str | None] | None = None, org_type: str = "original") -> Task:
    return Task(
        idx=41,
        task="handle_time",
        query="Which agent had the lowest average handle time last quarter? Only the Id.",
        answer=[RIGHT] if answer is None else answer,
        metadata={"required": "", "optional": ""},
        reward_metric="exact_match",
        source="hf:original",
        org_type=org_type,  # type: ignore[arg-type]
    )


def submitted(task: Task, answer: str, *, strategy: str = "tool_call", protocol: Any = "upstream"):
    return grade_submission(
        task, {"answer": answer}, "agent", {"strategy": strategy}, protocol, answer=answer
    )


def test_a_sentence_the_extractor_reads_is_not_the_answer_under_tool_env() -> None:
    task = original_task()
    assert grade(task, SENTENCE, protocol="upstream").reward == 1.0  # the extractor reads it
    result = submitted(task, SENTENCE)
    assert (result.reward, result.extraction, result.parsed_answer) == (0.0, "raw", [SENTENCE])
    assert "as written, is not exactly" in compared(result, "exact_match", task.answer)


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        (RIGHT, 1.0),  # the text itself
        (f" {RIGHT}", 0.0),  # upstream does not strip
        (f"{RIGHT}\n", 0.0),
        (f'"{RIGHT}"', 0.0),  # nor remove quotes (the evaluator would have)
        (RIGHT.lower(), 0.0),
    ],
)
def test_the_raw_text_is_compared_with_double_equals(answer: str, reward: float) -> None:
    assert submitted(original_task(), answer).reward == reward


def test_a_null_answer_is_the_text_none() -> None:
    task = original_task([None])
    assert submitted(task, "None").reward == 1.0
    assert submitted(task, "none").reward == 0.0
    assert submitted(task, "There is no such agent.").reward == 0.0


def test_only_tool_calling_on_the_original_org_under_upstream() -> None:
    assert submitted(original_task(), SENTENCE, strategy="react").reward == 1.0
    assert submitted(original_task(), SENTENCE, protocol="workbench").reward == 1.0
    assert submitted(original_task(org_type="b2b"), SENTENCE).reward == 1.0
    assert submitted(original_task(), SENTENCE, strategy="tool_call_flex").reward == 0.0


def _tool_item(task_id: int, content: str, reward: float) -> dict[str, Any]:
    call = {"id": "c1", "type": "function"}
    call["function"] = {"name": "respond", "arguments": json.dumps({"content": content})}
    return {
        "task_id": task_id,
        "task_type": "handle_time",
        "gt_answer": RIGHT,  # the original CRMArena's answers are one text
        "reward": reward,
        "agent_info": info(content=content),
        "traj": [
            {"role": "system", "content": "You can call the tools below."},
            {"role": "user", "content": "Which agent has the lowest handle time?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
        ],
    }


def test_regrade_imported_keeps_upstreams_zero_for_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CRMARENA_TUI_JUDGE_MODEL", raising=False)
    monkeypatch.delenv("CRMARENA_TUI_PROTOCOL", raising=False)
    items = [_tool_item(1, SENTENCE, 0), _tool_item(2, RIGHT, 1), _tool_item(3, f"{RIGHT} ", 0)]
    root = tmp_path / "results"
    write(root, "original/results_gpt-4o_tool_call_handle_time_interactive-False.json", items)
    db = tmp_path / "s.db"
    assert main(["import", str(root), "--db", str(db), "--org-type", "original"]) == 0
    capsys.readouterr()
    assert main(["regrade", "--imported", "--db", str(db), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    with Store(db) as store:
        idx = {s.id: s.task_idx for s in store.sessions()}
    got = {idx[r["session"]]: (r["old_reward"], r["reward"], r["extraction"]) for r in rows}
    assert got == {1: (0.0, 0.0, "raw"), 2: (1.0, 1.0, "raw"), 3: (0.0, 0.0, "raw")}


@pytest.mark.parametrize(
    ("content", "reward"), [(RIGHT, 1.0), (f"{RIGHT}\n", 0.0), (SENTENCE, 0.0)]
)
def test_a_tool_calling_run_submits_the_respond_as_written(
    tmp_path: Path, content: str, reward: float
) -> None:
    from crmarena_tui.agents.tool_calling import ToolCallingAgent
    from crmarena_tui.llm.client import Completion
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.storage.models import SessionSpec
    from tests.fakes.scripted_llm import ScriptedLLM, tool_call
    from tests.support.agents_llm_support import TinyOrg

    llm = ScriptedLLM([Completion(text="", tool_calls=[tool_call("respond", content=content)])])
    agent = ToolCallingAgent(llm)
    with Store(tmp_path / "s.db") as store:
        who = store.participant("agent", agent.name, model=agent.name, settings=agent.settings())
        spec = SessionSpec(
            original_task(), TinyOrg(), who, settings=agent.settings(), protocol="upstream"
        )
        episode = Episode.start(store, spec)
        [step] = list(agent.steps(episode))
        submit = next(e for e in store.events(episode.session_id) if e.kind == "submit")
    assert submit.payload["answer"] == content  # not stripped
    assert (step.grade.reward, step.grade.extraction) == (reward, "raw")
