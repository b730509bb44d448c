"""A small sessions database for the Inspect log tests: two agent configurations and a human,
with every kind of event a log shows (thoughts, queries, observations, an error, a format
correction, usage, a chat with the simulated user, an answer and its grade), labels and notes,
a judged grade and a session left ungraded."""

from __future__ import annotations

from pathlib import Path

from crmarena_tui.graders import Grade
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.spec_support import session_spec

T0 = 1_700_000_000.0


def demo_task(idx: int, query: str = "", *, interactive: bool = False) -> Task:
    return Task(
        idx=idx,
        task="handle_time",
        query=query or f"Which agent closed case {idx} fastest?",
        answer=["005Wt000003NIvNIAW"] if idx % 3 else [None],
        reward_metric="exact_match",
        source="demo",
        metadata={"required": "## Today's date: 2023-03-27", "optional": ""},
        interactive=interactive,
    )


def graded(store: Store, sid: int, result: Grade, at: float) -> None:
    """The grade stored and its `grade` event logged, as an episode's submit does."""
    store.append_event(
        sid,
        "system",
        "grade",
        {
            "reward": result.reward,
            "grader": result.grader,
            "extraction": result.extraction,
            "metrics": result.metrics,
        },
    )
    store.add_grade(sid, result, graded_at=at)  # fmt: skip


def grade(answer: str, reward: float, **more: object) -> Grade:
    fields: dict = {
        "answer": answer,
        "parsed_answer": [answer],
        "reward": reward,
        "metrics": {"gold_count": 1.0},
        "grader": "exact_match",
        "extraction": "strip",
        "protocol": "workbench",
    }
    fields.update(more)
    return Grade(**fields)


def agent_session(store: Store, person, task: Task, *, reward: float, at: float) -> int:
    """A ReAct-shaped run: two query rounds (one an error), a format correction, usage, an
    answer and its grade."""
    sid = store.create_session(
        session_spec(person, task, "local", "demo:b2b", settings={"strategy": "react"}),
        started_at=at,
    ).id
    store.append_event(
        sid, "system", "system", {"event": "system_prompt", "text": "You are a CRM agent."}
    )
    store.append_event(sid, "user", "message", {"text": task.query})
    store.append_event(
        sid,
        "agent",
        "usage",
        {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120, "cost": 0.01},
    )
    store.append_event(sid, "agent", "thought", {"text": "Look at the cases."})
    store.append_event(sid, "agent", "query", {"text": "SELECT Id FROM Case"})
    store.append_event(
        sid,
        "system",
        "observation",
        {"observation": '[{"Id": "500"}]', "total_size": 1},
        duration_ms=3.5,
    )
    store.append_event(sid, "agent", "error", {"source": "format", "error": "no <execute> tag"})
    store.append_event(sid, "agent", "query", {"text": "SELECT Nme FROM Account"})
    store.append_event(
        sid, "system", "error", {"error": "INVALID_FIELD: No such column 'Nme'", "offset": 7}
    )
    store.append_event(
        sid,
        "agent",
        "usage",
        {"prompt_tokens": 200, "completion_tokens": 30, "total_tokens": 230, "cost": 0.02},
    )
    store.append_event(sid, "agent", "thought", {"text": "The owner closed it."})
    answer = "005Wt000003NIvNIAW"
    store.append_event(sid, "agent", "submit", {"answer": answer})
    store.set_status(sid, "submitted", ended_at=at + 40, active_seconds=38.0)
    graded(store, sid, grade(answer, reward), at + 41)
    return sid  # fmt: skip


def build(path: Path) -> Path:
    """The database (see the module's docstring) at `path`."""
    with Store(path) as store:
        gpt = store.participant(
            "agent", "openai/gpt-4o/react", model="openai/gpt-4o", settings={"strategy": "react"}
        )
        mini = store.participant(
            "agent",
            "openai/gpt-4o-mini/react",
            model="openai/gpt-4o-mini",
            settings={"strategy": "react"},
        )
        ana = store.participant("human", "ana")
        first = agent_session(store, gpt, demo_task(1), reward=1.0, at=T0)
        agent_session(store, gpt, demo_task(2), reward=0.0, at=T0 + 100)
        agent_session(store, mini, demo_task(1), reward=0.0, at=T0 + 200)
        store.annotations.add(
            first, "wrong_filter", note="missed the date", annotator="bo", event_seq=5
        )
        store.annotations.add(first, "", "look at owners", annotator="cy", kind="note")
        chat_task = demo_task(3, interactive=True)
        sid = store.create_session(
            session_spec(ana, chat_task, "local", "demo:b2b", user="scripted"), started_at=T0 + 300
        ).id
        store.append_event(
            sid, "user", "message", {"text": "Hi, I need a case owner.", "opening": True}
        )
        store.append_event(sid, "human", "message", {"text": "Which case?"})
        store.append_event(sid, "user", "message", {"text": "Case 4."})
        store.append_event(sid, "system", "pause", {})
        store.append_event(sid, "system", "resume", {})
        store.append_event(sid, "human", "note", {"text": "owner field"})
        store.append_event(sid, "human", "submit", {"answer": "None"})
        store.set_status(sid, "submitted", ended_at=T0 + 400, active_seconds=80.0)
        graded(
            store,
            sid,
            grade(
                "None",
                1.0,
                extraction="llm",
                judge_model="openai/gpt-4o",
                judge_raw="The answer names no one: None.",
                protocol="upstream",
            ),
            T0 + 401,
        )
        open_one = store.create_session(
            session_spec(ana, demo_task(5), "local", "demo:b2b"), started_at=T0 + 500
        ).id
        store.append_event(open_one, "human", "query", {"text": "SELECT Id FROM User"})
    return path  # fmt: skip
