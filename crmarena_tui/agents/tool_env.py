"""The tools an external agent works a task with, as plain Python: one session's `Episode` seen
through `execute_soql`, `execute_sosl`, `describe_object`, `respond` and `report_usage`.

`ToolEnv` is what the MCP server (`session/mcp_server.py`) serves and what a Python agent gets as
its `env`: the tools' meaning and return values are defined here, once. Every call goes
through the Episode's verbs, so it is an event of the session before the call returns
(docs/ARCHITECTURE.md, "The Episode"), and the benchmark's turn limits are `agents/turn_rules.py`'s,
the same rules `ModelAgent` follows:

- an action (`execute_soql`, `execute_sosl`, `respond`) is one turn; `describe_object`,
  `task_brief` and `report_usage` are not (the schema is in the system prompt already);
- at most `max_turns` (20) actions without a respond: the episode then ends (`workbench`: the last
  respond is submitted and graded; `upstream`: reward 0, "Max turns reached");
- single-turn: a respond is the submitted answer; multi-turn: it goes to the simulated user and
  their reply comes back; the episode ends when the user says `###STOP###` (the respond it
  answers is submitted), or at the user-turn limit.

Every return value is text for the agent: an org error is the Salesforce-style `CODE: message`,
an ended episode says so. The answer is never shown; the reward only with `show_grade`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.agents import prompts, prompts_upstream
from crmarena_tui.agents.agent_schema import PROJECT, AgentSchema
from crmarena_tui.agents.replay import LoopState
from crmarena_tui.agents.turn_rules import TurnRules
from crmarena_tui.storage.end_reason import MAX_TURNS_REACHED, MAX_USER_TURNS_REACHED

if TYPE_CHECKING:
    from crmarena_tui.agents.result_pages import ResultPages
    from crmarena_tui.agents.step import AgentStep
    from crmarena_tui.storage.models import Event

STRATEGY = "mcp"
ENDED = "This task has ended ({status}). Call next_task for the next one."
STATEMENT_KIND: dict[str, Literal["query", "search"]] = {"soql": "query", "sosl": "search"}


@dataclass(frozen=True, slots=True)
class TaskBrief:
    """What an agent is given for a task: never its answer (nor, in a chat task, the request
    itself: `request` is then the simulated user's opening message)."""

    session_id: int
    number: int | None  # its place in the queue, from 1 (None outside a queue)
    total: int | None  # the queue's length
    interactive: bool  # a chat task: `respond` talks to a simulated user
    protocol: str
    system_prompt: str  # the role, the tools, the schema, `metadata.required` (and what the
    # protocol and the options add: the domain details with `aided`, the privacy rules)
    request: str
    resumed: bool  # the session was left in progress and continues (its events kept)
    finished: bool
    trial: int = 1  # which of the queue's attempts at the task this is (`mcp --trials K`)
    trials: int = 1  # the attempts the queue makes at each task

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def loop_state(events: list[Event]) -> LoopState:
    """The turn counts of an external agent's session, read from its events (a resumed session
    continues with the counts it had): every query, search and agent message was one turn."""
    state = LoopState()
    for ev in events:
        if ev.actor == "agent" and ev.kind in ("query", "search"):
            state.turn += 1
            state.turns_since_respond += 1
        elif ev.kind == "message" and ev.actor == "agent":
            state.turn += 1
            state.turns_since_respond = 0
            state.last_respond = ev.text
        elif ev.kind == "message" and ev.actor == "user":
            state.user_turns += 1
    return state


def usage_payload(
    model: str | None = None,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    cost: float | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A `usage` event as the project's own agents record it (`llm.Completion.usage`); without a
    cost, the price litellm's map gives `model` (None when it knows none)."""
    try:
        prompt, completion = int(prompt_tokens or 0), int(completion_tokens or 0)
        cost = None if cost is None else float(cost)
    except (TypeError, ValueError):
        raise ValueError(
            "usage: prompt_tokens and completion_tokens are integers, cost a number"
        ) from None
    if cost is None and model and (prompt or completion):
        cost = _price(model, prompt, completion)
    payload: dict[str, Any] = {
        "model": model,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cost": cost,
        "source": "reported",
    }
    payload.update({k: v for k, v in extra.items() if isinstance(v, str | int | float | bool)})
    return payload


def _price(model: str, prompt: int, completion: int) -> float | None:
    """litellm's price for `model`, read from its bundled map (never imports litellm, never
    waits on the network: llm/prices.py)."""
    from crmarena_tui.llm import prices

    return prices.cost(model, prompt, completion)


class ToolEnv:
    """One session's tools. Make it with the session's Episode (`TaskQueue.next_task` does);
    `number`/`total` place the task in its queue, `trials` is how many attempts the queue makes
    at each task (the session's `trial` says which this is). Not thread-safe: call it from one
    thread."""

    def __init__(
        self,
        episode: Any,
        *,
        number: int | None = None,
        total: int | None = None,
        trials: int = 1,
        resumed: bool = False,
        aided: bool = False,
        privacy_aware: bool = False,
        show_grade: bool = False,
        max_turns: int = 20,
        max_user_turns: int = 10,
        schema: AgentSchema | None = None,
        pages: ResultPages | None = None,
    ) -> None:
        """`schema`: the schema the agent is shown (`SchemaSources.for_org`; None: the org's
        own describe); `pages`: large query results are paged and capped (`query_more`; the
        MCP server's tools: agents/result_pages.py; never under `upstream`)."""
        self.episode = episode
        self.schema = schema or AgentSchema(PROJECT)
        self.number, self.total, self.resumed = number, total, resumed
        self.trials = trials
        self.aided, self.privacy_aware, self.show_grade = aided, privacy_aware, show_grade
        self.rules = TurnRules(
            protocol=episode.protocol, max_turns=max_turns, max_user_turns=max_user_turns
        )
        self.state = loop_state(episode.events)
        self.pages = None if self.rules.upstream else pages
        self._brief: TaskBrief | None = None

    def settle(self) -> bool:
        """Finish what the log shows was decided before an interruption: a chat whose user
        said `###STOP###` is submitted with the agent's last respond (as `ModelAgent` does on
        resuming). True when the episode is now finished."""
        episode = self.episode
        if not episode.finished and episode.interactive and episode.dialogue_over:
            episode.submit(self.state.last_respond or "", actor="agent")
        return episode.finished

    @property
    def session_id(self) -> int:
        return self.episode.session_id

    @property
    def finished(self) -> bool:
        return self.episode.finished

    # -- what the agent is given ----------------------------------------------------------------

    def system_prompt(self) -> str:
        """The project's tool-calling system prompt for this task (the tools named as here), with
        the schema rows' block as upstream builds it when the session has rows (`schema`)."""
        episode = self.episode
        rows = self.schema.rows
        return prompts.system_prompt(
            episode.task.redacted(),
            prompts_upstream.schema_text(list(rows))
            if rows
            else episode.org.describe().to_prompt(),
            strategy="tool_call",
            interactive=episode.interactive,
            aided=self.aided,
            privacy_aware=self.privacy_aware,
        )

    def task_brief(self) -> TaskBrief:
        """The task as the agent is given it (a chat task's opening is asked for once)."""
        episode = self.episode
        if self._brief is None or self._brief.finished != episode.finished:
            if episode.interactive:
                request = self._opening()
            else:
                request = prompts.first_message(episode.task)
            self._brief = TaskBrief(
                session_id=episode.session_id,
                number=self.number,
                total=self.total,
                interactive=episode.interactive,
                protocol=episode.protocol,
                system_prompt=self.system_prompt(),
                request=request,
                resumed=self.resumed,
                finished=episode.finished,
                trial=episode.session.trial,
                trials=self.trials,
            )
        return self._brief

    def _opening(self) -> str:
        for ev in self.episode.events:
            if ev.kind == "message" and ev.actor == "user":
                return ev.text
        return "" if self.episode.finished else (self.episode.opening() or "")

    # -- tools ----------------------------------------------------------------------------------

    def execute_soql(self, query: str) -> str:
        """Run one SOQL query: the records as the protocol shows them, or `CODE: message`."""
        return self._execute(query, "soql")

    def execute_sosl(self, search: str) -> str:
        """Run one SOSL search (`FIND {...} RETURNING ...`): as `execute_soql`."""
        return self._execute(search, "sosl")

    def describe_object(self, name: str) -> str:
        """The object's fields (name, type, description, relationship) as JSON, from the schema
        the system prompt shows (a field the schema rows describe, in their words);
        `INVALID_TYPE: ...` for an object the org does not have."""
        schema = self.schema.describe(self.episode.org)
        obj = schema.object(name.strip())
        if obj is None:
            text = f"INVALID_TYPE: sObject type '{name.strip()}' is not supported."
            if not self.episode.finished:
                payload = {"error": text, "source": "tool", "tool": "describe_object"}
                self.episode.record("error", {**payload, "object": name.strip()}, actor="agent")
            return text
        fields = []
        for f in obj.fields:
            row: dict[str, Any] = {"name": f.name, "type": f.type, "description": f.description}
            if f.reference_to:
                row["reference_to"] = f.reference_to
                row["relationship_name"] = f.relationship_name
            fields.append(row)
        children = [
            {"relationship_name": c.name, "child_object": c.child_object, "field": c.field}
            for c in schema.child_relationships(obj.name)
        ]
        described = {"name": obj.name, "label": obj.label, "fields": fields}
        if children:
            described["child_relationships"] = children
        if not self.episode.finished:
            self.episode.record(
                "system", {"tool": "describe_object", "object": obj.name}, actor="agent"
            )
        return json.dumps(described, ensure_ascii=False)

    def query_more(self, cursor: str) -> str:
        """The next batch of a paged query result (its `nextRecordsUrl`), stored as a `system`
        event (`query_more`) holding what the agent is shown; not a turn, as in Salesforce a
        query's batches are one query. `INVALID_QUERY_LOCATOR: ...` for an unknown cursor."""
        if self.episode.finished:
            return self._ended()
        found = self.pages.more(cursor) if self.pages is not None else None
        if found is None:
            text = "INVALID_QUERY_LOCATOR: invalid query locator: run the query again"
            payload = {"error": text, "source": "tool", "tool": "query_more", "cursor": cursor}
            self.episode.record("error", payload, actor="agent")
            return text
        payload = {"event": "query_more", "cursor": cursor, "observation": found}
        self.episode.record("system", payload, actor="agent")
        return found

    def respond(self, content: str, usage: dict[str, Any] | None = None) -> str:
        """Single-turn: submit `content` as the answer ("Submitted.", the reward only with
        `show_grade`). Multi-turn: send it to the simulated user and return their reply; when
        the user ends the conversation the respond it answers is submitted. `usage`: the model
        usage behind this turn (`report_usage`'s arguments)."""
        if usage:
            self.report_usage(**usage)
        if self.episode.finished:
            return self._ended()
        if self.rules.turn_limit_reached(self.state):  # a session resumed at its limit
            return self._end_text(self.rules.finish(self.episode, self.state, "turn_limit"))
        self.rules.count_turn(self.state)
        step = self.rules.respond(self.episode, self.state, content.strip(), "")
        if step.action == "submit" and not self.episode.interactive:
            return self._submitted(step)
        reply = step.observation or ""
        if step.done:
            return f"{reply}\n\n{self._end_text(step)}".strip()
        return reply

    def report_usage(
        self,
        model: str | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        cost: float | None = None,
        **extra: Any,
    ) -> str:
        """Record the agent's model and token usage (a `usage` event, as the project's own
        agents record theirs; the cost from litellm's prices when not given). Once the model
        proxy has recorded usage in the session, the proxy counts it: a report is kept as a
        `system` event (`reported_usage`), not counted a second time."""
        if self.proxy_counts():
            given: dict[str, Any] = {"model": model, "prompt_tokens": prompt_tokens}
            given |= {"completion_tokens": completion_tokens, "cost": cost, **extra}
            payload = {k: v for k, v in given.items() if isinstance(v, str | int | float | bool)}
            self.episode.record("system", {"event": "reported_usage", **payload}, actor="agent")
            return "Recorded (not counted: the model proxy counts this session's model calls)."
        payload = usage_payload(model, prompt_tokens, completion_tokens, cost, **extra)
        self.episode.record("usage", payload, actor="agent")
        return "Recorded."

    def proxy_counts(self) -> bool:
        """Whether the model proxy has recorded usage in this session."""
        return any(
            ev.kind == "usage" and ev.payload.get("source") == "proxy" for ev in self.episode.events
        )

    # -- internals ------------------------------------------------------------------------------

    def _execute(self, text: str, language: str) -> str:
        if self.episode.finished:
            return self._ended()
        if not text.strip():
            empty = f"MALFORMED_QUERY: the {language.upper()} statement is empty"
            tool = {"error": empty, "source": "tool", "tool": f"execute_{language}"}
            self.episode.record("error", tool, actor="agent")
            return empty
        if self.rules.turn_limit_reached(self.state):  # a session resumed at its limit
            return self._end_text(self.rules.finish(self.episode, self.state, "turn_limit"))
        self.rules.count_turn(self.state)
        shown = self.pages.view if self.pages is not None else None
        step = self.rules.execute(
            self.episode, self.state, text.strip(), "", kind=STATEMENT_KIND[language], shown=shown
        )
        observation = step.observation or ""
        if step.done:  # the protocol ended the episode on this action
            return f"{observation}\n\n{self._end_text(step)}".strip()
        if self.rules.turn_limit_reached(self.state):
            ended = self.rules.finish(self.episode, self.state, "turn_limit")
            return f"{observation}\n\n{self._end_text(ended)}"
        return observation

    def _submitted(self, step: AgentStep) -> str:
        text = "Submitted."
        if self.show_grade and step.grade is not None:
            text += f" Reward: {step.grade.reward:.3f}."
        return text

    def _end_text(self, step: AgentStep) -> str:
        """What the agent is told when its episode ends at this step."""
        graded = (
            ""
            if step.grade is None or not self.show_grade
            else (f" Reward: {step.grade.reward:.3f}.")
        )
        submitted = "your last respond was submitted."
        if step.end_reason == "user_stop":
            return f"Episode over: the user ended the conversation; {submitted}{graded}"
        if step.action in ("turn_limit", "user_limit"):
            turns = step.action == "turn_limit"
            if self.rules.upstream:
                reason = MAX_TURNS_REACHED if turns else MAX_USER_TURNS_REACHED
                return f"Episode over: {reason}; no answer was confirmed.{graded}"
            limit = (
                f"the turn limit ({self.rules.max_turns} actions without a respond)"
                if turns
                else f"the user-turn limit ({self.rules.max_user_turns} replies)"
            )
            return f"Episode over: {limit} was reached; {submitted}{graded}"
        if step.action == "connector_error":
            return f"Episode over: upstream's connector failed on this result.{graded}"
        return f"Episode over ({step.end_reason or step.action}).{graded}"

    def _ended(self) -> str:
        return ENDED.format(status=self.episode.status)
