"""A small agent for the Python agent API: the "None" baseline.

    crmarena-tui run --agent examples/none_baseline.py:NoneBaseline --tasks demo:small --limit 20

It looks at the org as an agent would (the object the task is about, a count of its records),
reports its (zero) model usage, and answers "None"; in a chat task it first asks the user what
they need. Its score is the share of tasks whose right answer is "None" (about a fifth of most
CRMArena-Pro task types): the floor any agent should clear. The API: `solve(task, env)`, with
`task.idx`, `task.query`, `task.prompt`, `task.interactive` and `env.execute_soql`,
`env.execute_sosl`, `env.describe_object`, `env.respond`, `env.report_usage`.
"""

from __future__ import annotations

import json
import re

OBJECTS = {"Case": "Case", "Lead": "Lead", "Opportunity": "Opportunity", "Quote": "Quote"}


class NoneBaseline:
    name = "none-baseline"

    def solve(self, task, env) -> None:
        text = f"{task.prompt}\n{task.query}"
        about = next(
            (obj for word, obj in OBJECTS.items() if re.search(rf"\b{word}\b", text)), "Case"
        )
        fields = json.loads(env.describe_object(about))["fields"]
        env.execute_soql(f"SELECT COUNT() FROM {about}")
        env.execute_soql(f"SELECT Id FROM {about} LIMIT {min(5, len(fields))}")
        env.report_usage(model=None, prompt_tokens=0, completion_tokens=0, cost=0.0)
        if not task.interactive:
            env.respond("None")
            return
        env.respond("Hello! What can I help you with today?")
        while not env.finished:  # the user ends the chat once answered (or at the turn limits)
            env.respond("None")
