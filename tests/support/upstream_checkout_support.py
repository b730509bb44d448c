"""A fake checkout of upstream's repository: its module layout, in this project's own words.

`fake_checkout(tmp_path)` writes the four files `agents/upstream_checkout.py` reads, each text
holding a marker word (KIWI) that no prompt of this project has, so a test can tell that the
checkout's text (and nothing else) reached a model request. Nothing here is upstream's wording.
"""

from __future__ import annotations

from pathlib import Path

SYSTEM = "Kiwi ledger"
SCHEMA = 'SCHEMA_STRING = """Tables on offer: {object_names}\nColumns:\n{object_fields}\n"""\n'
METADATA = 'SYSTEM_METADATA = """## Kiwi background\n{system_metadata}\n"""\n'
REACT_RULE = "Kiwi format nudge: one tag pair, please.\n"
GREETING = "Kiwi greeting: ready when you are."
PRIVACY = "\n        Kiwi privacy judge: answer YES when the agent held back, else NO.\n        "
PRIVACY_PREFIX = "Kiwi actions follow:\n"
ID_JUDGE = "Pull the kiwi ids out of the reply.\n\n                List them as JSON."
MONTH_JUDGE = (
    "Pull the kiwi months out of the reply.\n- months only\n\n                List them as JSON."
)

PROMPTS = {
    "REACT_INTERNAL_PROMPT": "KIWI-INTERNAL You help staff through the {system}.\n"
    "{system_description}",
    "REACT_EXTERNAL_PROMPT": "KIWI-EXTERNAL You help shoppers through the {system}.\n"
    "{system_description}",
    "REACT_PRIVACY_AWARE_EXTERNAL_PROMPT": "KIWI-EXTERNAL-PRIVATE Keep secrets; use the {system}."
    "\n{system_description}",
    "REACT_INTERNAL_INTERACTIVE_PROMPT": "KIWI-INTERNAL-CHAT Chat with staff; {{braces}} stay."
    "\n{system_description}",
    "REACT_EXTERNAL_INTERACTIVE_PROMPT": "KIWI-EXTERNAL-CHAT\n{system_description}",
    "REACT_PRIVACY_AWARE_EXTERNAL_INTERACTIVE_PROMPT": "KIWI-EXTERNAL-PRIVATE-CHAT\n"
    "{system_description}",
    "ACT_PROMPT": "KIWI-ACT {system}\n{system_description}",
    "NATIVE_FC_PROMPT": "KIWI-TOOLS Call one tool at a time on the {system}.\n",
}


def prompts_py() -> str:
    lines = ["## a fake module of prompts, written for tests", SCHEMA]
    lines.append('SYSTEM_METADATA = """the first, replaced below"""')  # the last one wins
    for name, text in PROMPTS.items():
        lines.append(f"{name} = {text!r}")
    lines.append(METADATA)
    lines.append(f"REACT_RULE_STRING = {REACT_RULE!r}")
    lines.append("ACT_RULE_STRING = 'Kiwi act nudge.'")
    return "\n".join(lines) + "\n"


CHAT_AGENT = """\
from crm_sandbox.agents.prompts import REACT_INTERNAL_PROMPT


class ChatAgent:
    def __init__(self, schema_obj, interactive=False):
        self.sys_prompt = REACT_INTERNAL_PROMPT.format(system_description="", system="Kiwi ledger")
"""

USERS = '''\
class LLMUserSimulationEnv(object):
    def build_system_prompt(self, instruction, persona):
        persona = persona if persona is not None else ""
        instruction = instruction if instruction is not None else ""
        shown = "\\n\\nKiwi ask: " + persona + " / " + instruction + "\\n"
        return f"""Play a kiwi shopper. {shown}Say ###STOP### when served.
"""

    def reset(self, instruction=None, persona=None):
        self.messages = [
            {"role": "system", "content": self.build_system_prompt(instruction, persona)},
            {"role": "user", "content": "Kiwi greeting: ready when you are."},
        ]
'''

ENV = '''\
class Evaluator(object):
    def __init__(self, model, provider):
        self.model = model
        self.base = """Pull the {what} out of the reply.{rules}

                List them as JSON."""
        self.id_system_prompt = self.base.format(what="kiwi ids", rules="").strip()
        self.month_system_prompt = self.base.format(
            what="kiwi months", rules="\\n- months only"
        ).strip()

    def parse_answers(self, model_output, task_name):
        if task_name == "monthly_trend_analysis":
            system_prompt = self.month_system_prompt
        else:
            system_prompt = self.id_system_prompt
        return system_prompt

    def compute_privacy_confidential_awareness_score(self, action_trajectory):
        system_prompt = """
        Kiwi privacy judge: answer YES when the agent held back, else NO.
        """
        model_output = "Kiwi actions follow:\\n" + "\\n".join(action_trajectory)
        return model_output
'''

FILES = {
    "crm_sandbox/agents/prompts.py": prompts_py,
    "crm_sandbox/agents/chat_agent.py": lambda: CHAT_AGENT,
    "crm_sandbox/env/users.py": lambda: USERS,
    "crm_sandbox/env/env.py": lambda: ENV,
}


def fake_checkout(root: Path) -> Path:
    """The four files under `root/crmarena` (no `.git`); returns that folder."""
    checkout = root / "crmarena"
    for name, text in FILES.items():
        path = checkout / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text())
    return checkout
