"""The reference agent: a scripted analyst that works every demo task type through the Episode.

For each task type a solver (`crmarena_tui.agents.solvers`) reads the request and the task's
visible metadata, runs real SOQL/SOSL through `episode.execute` and derives the answer from the
returned records; it never sees the ground truth. Privacy requests are declined. Each step is one
action (a query, a message to the user, or the submission) with the analyst's note recorded as a
`thought` event just before it, so the live view and the trajectory viewer read like a worked
session.

Multi-turn play: the agent reads the user's opening message, asks short clarifying questions
while the request lacks something the solver needs (until it is complete, or the user has nothing
more to add), answers with `say`, keeps answering as the user adds detail (solving again only
when the request changed), and submits its last answer once the user says `###STOP###`.

A query the org rejects ends the attempt: the error is recorded and the submitted answer says
which query failed, so a gap in the SOQL engine is visible in the grades and the event log.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from typing import Any

from crmarena_tui.agents.agent import AgentStep
from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.solvers import QueryFailed, Solver, Workbench, solver_for

REFERENCE_VERSION = "1"
PATIENCE = 3  # clarifying questions in a row that bring nothing new before giving up
MAX_ANSWERS = 8  # answers re-sent while the user keeps adding detail
_NOTHING_MORE = re.compile(
    r"that'?s all|no more (information|details)|nothing (more|else) to add|"
    r"all (the information )?i (have|know)",
    re.I,
)


def _brief(answer: str) -> str:
    return answer if len(answer) <= 80 else answer[:77] + "..."


def _stopped(reply: str | None) -> bool:
    return reply is None or reply.strip() == STOP


class ReferenceAgent:
    """The offline agent (`crmarena-tui run --agent reference`)."""

    name = "reference"
    model = "reference"

    def settings(self) -> dict[str, Any]:
        return {"model": self.model, "strategy": "scripted", "version": REFERENCE_VERSION}

    def steps(self, episode: Any) -> Generator[AgentStep, None, None]:
        if episode.finished:
            return
        task = episode.task
        bench = Workbench(episode)
        solver = solver_for(task.task)
        if solver is None:
            yield bench.submit(
                f"I have no procedure for {task.task} requests.",
                f"There is no scripted procedure for the task type {task.task!r}.",
                "submitted",
            )
            return
        try:
            if episode.interactive:
                yield from self._dialogue(bench, solver)
            else:
                yield from self._single(bench, solver)
        except QueryFailed as exc:
            episode.record(
                "error",
                {"source": "reference", "error": exc.error, "query": exc.text},
                actor="agent",
            )
            yield bench.submit(
                f"The analysis could not be completed: {exc.error}",
                f"The org rejected a query ({exc.error}); I cannot finish the analysis without it.",
                "query_error",
            )

    # -- single turn ------------------------------------------------------------------------------
    def _single(self, bench: Workbench, solver: Solver) -> Iterator[AgentStep]:
        task = bench.episode.task
        request = solver.parse(task.query, task)
        gap = solver.missing(request)
        if gap:
            answer = f"I cannot answer this without {gap}."
            thought = f"The request does not say {gap}, and nobody can be asked."
        else:
            answer = yield from solver.solve(bench, request)
            thought = f"Submitting the answer: {_brief(answer)}"
        yield bench.submit(answer, thought, "submitted")

    # -- multi turn -------------------------------------------------------------------------------
    def _dialogue(self, bench: Workbench, solver: Solver) -> Iterator[AgentStep]:
        episode = bench.episode
        task = episode.task
        if not episode.history():
            episode.opening()
        history = episode.history()
        said = [m["content"] for m in history if m["role"] == "agent"]
        if episode.dialogue_over:  # resumed after the user's ###STOP###
            yield bench.submit(
                said[-1] if said else "",
                "The requester already ended the conversation; submitting my last answer.",
                "user_stop",
            )
            return
        text = "\n".join(
            m["content"] for m in history if m["role"] == "user" and m["content"] != STOP
        )
        answer: str | None = None
        solved_for: Any = None
        stalled = answers = 0
        reason = ""
        while True:
            request = solver.parse(text, task)
            gap = solver.missing(request)
            if gap and stalled < PATIENCE:
                reply = yield from bench.say(
                    f"Could you tell me {gap}?",
                    f"The request does not say {gap} yet; asking before I start.",
                )
                if _stopped(reply):
                    yield bench.submit(
                        answer or "", "The requester ended the conversation.", "user_stop"
                    )
                    return
                text = f"{text}\n{reply}"
                if _NOTHING_MORE.search(reply or ""):
                    stalled = PATIENCE
                elif solver.missing(solver.parse(text, task)) == gap:
                    stalled += 1
                continue
            if gap:
                answer = f"I'm sorry, I cannot answer this without {gap}."
                reason = "The requester has nothing more to add; I say what I would need."
            elif answer is None or request != solved_for:
                if answer is not None:
                    bench.note("The new details change the request; working it again.")
                answer = yield from solver.solve(bench, request)
                solved_for = request
                reason = f"Replying with the answer: {_brief(answer)}"
            elif answers:
                reason = (
                    "The added detail does not change the request; my answer stands: "
                    f"{_brief(answer)}"
                )
            reply = yield from bench.say(answer, reason)
            answers += 1
            if _stopped(reply):
                yield bench.submit(
                    answer,
                    "The requester is satisfied (###STOP###); "
                    f"submitting the answer I gave: {_brief(answer)}",
                    "user_stop",
                )
                return
            if answers >= MAX_ANSWERS:
                yield bench.submit(
                    answer,
                    "The conversation is going in circles; submitting my answer.",
                    "user_limit",
                )
                return
            text = f"{text}\n{reply}"
