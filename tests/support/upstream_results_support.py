"""Upstream result items and files written the way upstream's `run_tasks.py` writes them.

The shapes follow CRMARENA_PRO.md sections 5 and 8 (`agent_info`, `end_reason`, `usage`,
`num_turns`, fuzzy rewards as a dict with a nested `rouge`, API failures as `{"source": "api"}`);
the prompt text is this project's own, carrying the facts the importer reads: a `# Domain Details`
section in aided runs, a "must decline" rule in privacy-aware prompts, "interactive conversations"
in the interactive prompts, and the system prompt merged into the first user message for models
without a system role.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AGENT = "005Wt000003NIvNIAW"
DOMAIN = (
    "# Domain Details\n## Quarters of the Year\n- Q1: January 1 to March 31.\n"
    "- Q2: April 1 to June 30."
)
REQUIRED = (
    "\n        ## Routing guide.\n        Pick the agent with the most matching cases.\n\n"
    "        Break ties by workload.\n        "
)


def system_prompt(
    *, interactive: bool = False, privacy_aware: bool = False, aided: bool = False
) -> str:
    """A system prompt with upstream's sections, in this project's words."""
    who = "a customer" if privacy_aware else "an employee of the company"
    parts = [
        f"You are a Salesforce specialist helping {who}.",
        "Answer with <thought>...</thought> and then <execute>SOQL or SOSL</execute> or "
        "<respond>answer</respond>.",
    ]
    if interactive:
        parts.append("Use respond during interactive conversations to ask for missing details.")
    if privacy_aware:
        parts.append("When asked for private or confidential data you must decline politely.")
    parts.append("# Salesforce instance description\nObjects: Case, User\n")
    text = "\n".join(parts) + "\n# Salesforce instance Metadata\n" + REQUIRED + "\n"
    return text + ("\n" + DOMAIN if aided else "")


def info(
    end: str = "Submit action", content: str = AGENT, *, user_turns: int = 0, calls: int = 2
) -> dict[str, Any]:
    return {
        "observation_sizes": [1] * (calls - 1),
        "end_reason": {"source": "agent", "message": end, "content": content},
        "usage": {
            "cost": [0.01] * calls,
            "prompt_tokens": [1000] * calls,
            "completion_tokens": [50] * calls,
            "total_tokens": [1050] * calls,
        },
        "total_cost": 0.01 * calls,
        "num_turns": [user_turns, calls],
    }


def react_item(
    task_id: int = 1483,
    task_type: str = "case_routing",
    *,
    answer: str = AGENT,
    gold: list[str | None] | None = None,
    reward: Any = 1,
    merged: bool = False,
    **prompt: bool,
) -> dict[str, Any]:
    """A single-turn ReAct run: one query, one observation, one respond."""
    query = "Which agent should take this new case? Return only the Id of the agent."
    system = system_prompt(**prompt)
    head = (
        [{"role": "user", "content": system + "\n\n" + query}]
        if merged
        else [{"role": "system", "content": system.strip()}, {"role": "user", "content": query}]
    )
    traj = [
        *head,
        {
            "role": "assistant",
            "content": "<thought>Find the owners.</thought>\n<execute>SELECT OwnerId FROM Case"
            "</execute>",
        },
        {"role": "user", "content": f"Salesforce instance output: [{{'OwnerId': '{AGENT}'}}]"},
        {"role": "assistant", "content": f"<thought>Done.</thought>\n<respond>{answer}</respond>"},
    ]
    return {
        "task_id": task_id,
        "task_type": task_type,
        "gt_answer": [AGENT] if gold is None else gold,
        "reward": reward,
        "agent_info": info(content=answer),
        "traj": traj,
    }


def interactive_item(task_id: int = 1663, *, clarifying: bool = True, **prompt: bool) -> dict:
    """A multi-turn run opened by the simulated user; with `clarifying`, the agent asks first.
    Upstream does not log the user's final `###STOP###`: the trajectory ends on the respond."""
    traj: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(interactive=True, **prompt).strip()},
        {"role": "user", "content": "Hi, a new lead needs an owner."},
    ]
    turns = 1
    if clarifying:
        traj += [
            {
                "role": "assistant",
                "content": "<thought>Ask.</thought><respond>Which state?</respond>",
            },
            {"role": "user", "content": "Missouri."},
        ]
        turns = 2
    traj += [
        {"role": "assistant", "content": "<execute>SELECT Id FROM User</execute>"},
        {"role": "user", "content": f"Salesforce instance output: [{{'Id': '{AGENT}'}}]"},
        {"role": "assistant", "content": f"<respond>{AGENT}</respond>"},
    ]
    return {
        "task_id": task_id,
        "task_type": "lead_routing",
        "gt_answer": [AGENT],
        "reward": 1,
        "agent_info": info(user_turns=turns),
        "traj": traj,
    }


def tool_call_item(task_id: int = 7, *, answer: str = AGENT) -> dict[str, Any]:
    """An original-CRMArena tool-calling run: the answer is the `respond` call's content."""

    def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        }

    return {
        "task_id": task_id,
        "task_type": "handle_time",
        "gt_answer": [AGENT],
        "reward": 1,
        "agent_info": info(),
        "traj": [
            {"role": "system", "content": "You can call the tools below."},
            {"role": "user", "content": "Which agent has the lowest handle time?"},
            call("get_cases", {"start_date": "2021-01-01"}, "call_1"),
            {"role": "tool", "tool_call_id": "call_1", "name": "get_cases", "content": "[...]"},
            call("respond", {"content": answer}, "call_2"),
        ],
    }


def failed_item(task_id: int, error: str, **kwargs: Any) -> dict[str, Any]:
    """A run that raised: upstream's runner keeps the messages so far and reward 0."""
    item = react_item(task_id, **kwargs)
    item.update(reward=0, agent_info={"source": "api", "content": f"Error: {error}"})
    item["traj"] = item["traj"][:3]
    return item


def fuzzy_item(task_id: int = 683) -> dict[str, Any]:
    item = react_item(task_id, "knowledge_qa", answer="Encryption and MFA", gold=["Encryption"])
    item["reward"] = {
        "em": False,
        "f1": 0.5,
        "bleu": 0.0,
        "rouge": {"rouge-1": 0.5, "rouge-2": 0.0, "rouge-l": 0.5},
    }
    return item


def write(root: Path, relative: str, items: list[dict[str, Any]], *, indent: int = 2) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(items, indent=indent or None), encoding="utf-8")
    return path


MODELS = ("gpt-4o-2024-11-20", "o1-mini", "llama-3.3-70b", "claude-3-5-sonnet")
TASK_TYPES = ("handle_time", "case_routing", "lead_routing", "knowledge_qa", "quote_approval")


def write_many(root: Path, sessions: int, *, steps: int = 8) -> Path:
    """A results folder of `sessions` upstream-shaped items, spread over four models and five task
    types (one file each, upstream's batch layout), each a ReAct run of `steps` queries and
    observations before its respond; every seventh item failed. Returns the folder."""
    files = [(m, t) for m in MODELS for t in TASK_TYPES]
    per_file = -(-sessions // len(files))
    system = system_prompt().strip()
    made = 0
    for model, task_type in files:
        count = min(per_file, sessions - made)
        if count <= 0:
            break
        items = []
        for k in range(count):
            idx = (made + k) % 2140
            traj: list[dict[str, Any]] = [
                {"role": "system", "content": system},
                {"role": "user", "content": f"Task {idx}: which agent should take the case?"},
            ]
            for step in range(steps):
                traj.append(
                    {
                        "role": "assistant",
                        "content": f"<thought>Look {step}.</thought><execute>SELECT Id FROM "
                        f"Case WHERE Priority = 'P{step}' LIMIT 3</execute>",
                    }
                )
                traj.append(
                    {
                        "role": "user",
                        "content": f"Salesforce instance output: [{{'Id': '{AGENT}'}}]",
                    }
                )
            traj.append({"role": "assistant", "content": f"<respond>{AGENT}</respond>"})
            items.append(
                {
                    "task_id": idx,
                    "task_type": task_type,
                    "gt_answer": [AGENT],
                    "reward": 0 if (made + k) % 7 == 0 else 1,
                    "agent_info": info(calls=steps + 1),
                    "traj": traj,
                }
            )
        write(root, f"b2b/react_openai/results_{model}_react_{task_type}.json", items, indent=0)
        made += count
    return root


def imported_database(root: Path, sessions: int) -> Path:
    """A sessions database in `root` holding `sessions` one-step upstream sessions, imported as
    the `import` command imports them (the sessions list's tests open it)."""
    from crmarena_tui.cli import main

    results = write_many(root / "results", sessions, steps=1)
    assert main(["import", str(results), "--db", str(root / "sessions.db")]) == 0
    return root / "sessions.db"
