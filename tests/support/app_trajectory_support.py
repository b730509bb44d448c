"""Helpers for the research screens' tests (no tests here): a seeded sessions database with human
and agent sessions on shared tasks, labels by two annotators, and an app on the fake org.

Everything is deterministic (fixed timestamps), so the same seed also feeds the snapshot tests.

Seeded sessions (task source: the sample file, as the app loads it):
  handle_time #883  (gold 005Wt000003NIvNIAW): 1 agent gpt-4o/react won (4 steps, one error),
                    2 ann lost, 3 bob won                        -> outcome "both"
  handle_time #887  (gold None): 4 agent lost, 5 ann won         -> "human_only"
  case_routing #1483: 6 agent won, 7 bob lost                    -> "agent_only"
  case_routing #1487: 8 agent lost, 9 ann lost                   -> "neither"
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from crmarena_tui.app.app import CrmArenaApp, PlayOptions
from crmarena_tui.graders import Grade
from crmarena_tui.storage import Store
from crmarena_tui.tasks.model import Task
from tests.support.app_support import SAMPLE, FakeOrg, wait_for_workers
from tests.support.spec_support import session_spec

T0 = 1_735_689_600.0  # 2025-01-01T00:00:00Z
SOURCE = str(SAMPLE.resolve())
AGENT = "gpt-4o/react"
Q1 = "SELECT Id, OwnerId FROM Case WHERE Status = 'Closed'"
Q1_HUMAN = 'select Id,OwnerId from Case where Status = "Closed";'  # same query, other spelling
Q2 = "SELECT CaseId__c, NewValue__c FROM CaseHistory__c WHERE Field__c = 'Owner Assignment'"
Q3 = "SELECT Handle__c FROM Case"
Q3_ERROR = "INVALID_FIELD: No such column 'Handle__c' on entity 'Case'"
CASES = [{"Id": f"500Wt00000DDxW{i}IA1", "OwnerId": "005Wt000003NIvNIAW"} for i in range(3)]


def sample_task(idx: int) -> Task:
    row = next(r for r in json.loads(SAMPLE.read_text()) if r["idx"] == idx)
    return Task(**{**row, "source": SOURCE})


class Seeder:
    """Writes sessions with fixed timestamps: every event one second after the previous one."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.t = T0

    def tick(self) -> float:
        self.t += 1.0
        return self.t

    def session(
        self,
        who: Any,
        idx: int,
        steps: list[tuple[str, str, dict]],
        reward: float | None,
        active: float | None = None,
    ) -> int:
        task = sample_task(idx)
        s = self.store.create_session(
            session_spec(who, task, "local", "fake"), started_at=self.tick()
        )
        for actor, kind, payload in steps:
            self.store.append_event(
                s.id,
                actor,
                kind,
                payload,
                duration_ms=12.0 if kind == "observation" else None,
                ts=self.tick(),
            )
        if reward is not None:
            answer = next((p["answer"] for _, k, p in steps if k == "submit"), "")
            self.store.append_event(
                s.id,
                "system",
                "grade",
                {
                    "reward": reward,
                    "parsed_answer": [answer],
                    "grader": task.reward_metric,
                    "grader_version": "1.0.0",
                    "extraction": "strip",
                    "metrics": {},
                },
                ts=self.tick(),
            )
            self.store.set_status(s.id, "submitted", ended_at=self.t, active_seconds=active)
            self.store.add_grade(
                s.id,
                Grade(
                    answer=answer,
                    parsed_answer=[answer],
                    reward=reward,
                    grader=task.reward_metric,
                    extraction="strip",
                ),
                graded_at=self.t,
            )
        return s.id


def obs(records: list[dict]) -> dict:
    return {"observation": json.dumps(records), "total_size": len(records), "elapsed_ms": 12.0}


def usage(tokens: int) -> tuple[str, str, dict]:
    return (
        "agent",
        "usage",
        {
            "prompt_tokens": tokens - 100,
            "completion_tokens": 100,
            "total_tokens": tokens,
            "cost": 0.01,
        },
    )


def thought(text: str, action: str) -> tuple[str, str, dict]:
    return ("agent", "thought", {"text": text, "reply": f"<thought>{text}</thought>{action}"})


def agent_steps(answer: str) -> list[tuple[str, str, dict]]:
    return [
        usage(1100),
        thought("Cases closed in the window.", f"<execute>{Q1}</execute>"),
        ("agent", "query", {"text": Q1}),
        ("system", "observation", obs(CASES)),
        usage(1200),
        thought("Who owned them before?", f"<execute>{Q2}</execute>"),
        ("agent", "query", {"text": Q2}),
        ("system", "observation", obs([])),
        usage(1300),
        thought("Maybe a handle time field.", f"<execute>{Q3}</execute>"),
        ("agent", "query", {"text": Q3}),
        ("system", "error", {"error": Q3_ERROR}),
        usage(1400),
        thought("That is the answer.", f"<respond>{answer}</respond>"),
        ("agent", "submit", {"answer": answer}),
    ]


def human_steps(queries: list[str], answer: str) -> list[tuple[str, str, dict]]:
    steps: list[tuple[str, str, dict]] = []
    for q in queries:
        steps.append(("human", "query", {"text": q}))
        steps.append(("system", "observation", obs(CASES[:1])))
    steps.append(("human", "submit", {"answer": answer}))
    return steps


def seed(db: Path) -> dict[str, int]:
    """The seeded database (see the module notes); returns session ids by name."""
    store = Store(db, clock=lambda: T0)
    ann = store.participant("human", "ann")
    bob = store.participant("human", "bob")
    agent = store.participant("agent", AGENT, model="gpt-4o", settings={"strategy": "react"})
    s = Seeder(store)
    gold = "005Wt000003NIvNIAW"
    ids = {
        "agent": s.session(agent, 883, agent_steps(gold), 1.0),
        "ann": s.session(ann, 883, human_steps([Q1_HUMAN, "SELECT Id FROM User"], "None"), 0.0, 95),
        "bob": s.session(
            bob, 883, human_steps([Q1, Q2, "SELECT Id, Name FROM User"], gold), 1.0, 240
        ),
        "b_agent": s.session(agent, 887, agent_steps("005Wt000003NIvNIAW"), 0.0),
        "b_ann": s.session(ann, 887, human_steps([Q1], "None"), 1.0, 60),
        "c_agent": s.session(agent, 1483, agent_steps("005Wt000003NIYnIAO"), 1.0),
        "c_bob": s.session(bob, 1483, human_steps([Q1], "nobody"), 0.0, 120),
        "d_agent": s.session(agent, 1487, agent_steps("nobody"), 0.0),
        "d_ann": s.session(ann, 1487, human_steps([Q1], "nobody"), 0.0, 30),
    }
    error_seq = next(
        e.seq for e in store.events(ids["agent"]) if e.kind == "query" and e.payload["text"] == Q3
    )
    store.annotations.add(
        ids["agent"],
        "unrecovered tool error",
        "kept guessing field names",
        annotator="bob",
        event_seq=error_seq,
    )
    store.annotations.add(ids["agent"], "gave up", annotator="bob")
    store.annotations.add(ids["agent"], "gave up", annotator="ann")
    store.annotations.add(ids["b_agent"], "wrong field", annotator="bob")
    store.annotations.add(ids["b_agent"], "wrong filter or date range", annotator="ann")
    store.close()
    return ids


def research_app(
    tmp_path: Path, org: FakeOrg | None = None, participant: str = "ann", **kw: Any
) -> CrmArenaApp:
    org = org or FakeOrg()
    return CrmArenaApp(
        PlayOptions(
            tasks=str(SAMPLE),
            participant=participant,
            db=tmp_path / "sessions.db",
            clock=lambda: 0.0,
            wall_clock=lambda: T0 + 3600,
            **kw,
        ),
        org_factory=lambda org_type: org,
    )


async def push(pilot: Pilot, screen: Any) -> None:
    """Push `screen` once the app has started, then wait for its workers."""
    await wait_for_workers(pilot, pilot.app)
    pilot.app.push_screen(screen)
    await wait_for_workers(pilot, pilot.app)
