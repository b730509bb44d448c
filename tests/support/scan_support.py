"""Failed sessions to scan, made straight in the store, and a scripted scanner model: a responder
for the loopback OpenAI server (tests/fakes/openai_server.py) that answers a labels, rubric or
themes prompt (scans/prompts.py, scans/themes.py) as a model would, and remembers which session
each request read."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from typing import Any

from crmarena_tui.graders.base import Grade
from crmarena_tui.storage import Store
from tests.fakes.openai_server import Reply
from tests.support.spec_support import session_spec
from tests.support.trials_support import task

SESSION = re.compile(r"^Session (\d+):", re.M)
SEQ = re.compile(r"^\[(\d+)\] ", re.M)
ITEM = re.compile(r"^(\d+)\. ", re.M)


def failed_sessions(
    store: Store, count: int, *, model: str = "gpt-4o", observation: str = "[]"
) -> list[int]:
    """`count` submitted sessions of `model` (strategy react), each a thought, a query, its
    `observation`, an answer and a grade of 0; their ids."""
    who = store.participant("agent", f"{model}/react", model=model, settings={"strategy": "react"})
    ids = []
    for idx in range(count):
        sid = store.create_session(
            session_spec(who, task(idx), settings={"strategy": "react"}), status="submitted"
        ).id
        store.append_event(sid, "agent", "thought", {"text": f"Find the cases of task {idx}."})
        store.append_event(sid, "agent", "query", {"text": "SELECT Id FROM Case"})
        store.append_event(sid, "system", "observation", {"observation": observation})
        store.append_event(sid, "agent", "submit", {"answer": "None"})
        store.add_grade(
            sid,
            Grade(answer="None", parsed_answer=["None"], reward=0.0, grader="exact_match",
                  extraction="strip", metrics={}, protocol="workbench"),
        )  # fmt: skip
        ids.append(sid)
    return ids


class ScannerModel:
    """Answers each request as a scanner model: a labels prompt with `wrong object` at the
    session's query (odd sessions) or `gave up` for the session (even ones); a rubric prompt with
    `{"blamed_user": <odd session>}`; a themes prompt with two themes (odd items, even items).
    `asked` counts the requests per session. With `hold_after` set, every request after that
    many waits until `release` is set (a process killed meanwhile never gets its reply)."""

    def __init__(
        self, *, hold_after: int | None = None, prompt_tokens: int = 1000, bad_first: bool = False
    ) -> None:
        self.asked: Counter[int] = Counter()
        self.requests = 0
        self.hold_after = hold_after
        self.release = threading.Event()
        self.prompt_tokens = prompt_tokens
        self.bad_first = bad_first
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        system = body["messages"][0]["content"]
        user = body["messages"][1]["content"]
        if "Group them into themes" in system:
            return Reply.chat(json.dumps({"themes": _themes(user)}))
        session = int(SESSION.search(user).group(1))  # type: ignore[union-attr]
        with self._lock:
            self.requests += 1
            self.asked[session] += 1
            turn = self.requests
        if self.hold_after is not None and turn > self.hold_after:
            self.release.wait(900)  # (released by the test; long: a loaded machine is slow)
        if self.bad_first and len(body["messages"]) == 2:
            return Reply.chat(
                "I think it picked the wrong object.", prompt_tokens=self.prompt_tokens
            )
        seqs = [int(s) for s in SEQ.findall(user)]
        if "answer must satisfy" in system:
            answer = {"answer": {"blamed_user": session % 2 == 1}, "step": None, "reason": "No."}
            return Reply.chat(json.dumps(answer), prompt_tokens=self.prompt_tokens)
        label = (
            {"label": "wrong object", "step": seqs[1], "reason": "It queried Case."}
            if session % 2
            else {"label": "gave up", "step": None, "reason": "It answered None."}
        )
        return Reply.chat(
            json.dumps({"labels": [label]}), prompt_tokens=self.prompt_tokens, completion_tokens=30
        )


def _themes(user: str) -> list[dict[str, Any]]:
    items = [int(i) for i in ITEM.findall(user)]
    return [
        {"name": "Wrong object", "description": "Queried the wrong sObject.",
         "items": [i for i in items if i % 2]},
        {"name": "Gave up", "description": "Answered without the data.",
         "items": [i for i in items if not i % 2]},
    ]  # fmt: skip
