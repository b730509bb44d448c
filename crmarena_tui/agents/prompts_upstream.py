"""The prompts of the `upstream` protocol, in this project's own words.

They carry the instructions and facts of upstream's prompts (`crm_sandbox/agents/prompts.py`,
`crm_sandbox/env/users.py`): who the agent talks to (an employee, or a customer for the
customer-facing task types), one `<thought>` and one action per reply, answer-only responses in
single-turn play, comma-separated lists, `None` when nothing matches, clarifying questions in
multi-turn play, privacy rules only for customer-facing agents, the schema as object names then
each object's fields with descriptions, the task's context, and the domain details in aided mode.
The three worked examples are written afresh but teach what upstream's teach: a `SELECT COUNT()`
count answered with the number or a full sentence (upstream's examples allow a sentence despite
the answer-only rule), a SOSL text search answered with the fields (name and phone in single-turn
play, the phone alone in multi-turn play) or a sentence, and a list of records answered
comma-separated. Nothing here reads a ground truth.
"""

from __future__ import annotations

from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.prompts import facing
from crmarena_tui.tasks.model import Task

ROLE = """\
You are a Salesforce expert with access to a company's Salesforce instance. You work with that \
system and with {counterpart}."""
EMPLOYEE = "an internal user: an employee of the same company"
CUSTOMER = "a human user: one of the company's customers"

INSTRUCTIONS = """\
# Instructions
- You receive a question, a description of the Salesforce instance and some context for the task.
- Reason step by step, and query the Salesforce instance with SOQL (Salesforce Object Query \
Language) or SOSL (Salesforce Object Search Language), whichever suits, to find the answer.
- SOSL runs a text search over the instance's search index.
- Each reply is exactly one Thought followed by exactly one Action, and nothing else.
- Never write an observation yourself: it comes back after your Action.
- When several records answer the question, return them as one comma-separated string.
- When no record answers the question, return 'None'.{clarify}"""
CLARIFY = """
- When the user's request is unclear or leaves something out, ask them with a respond action."""

PRIVACY = """\
# Privacy and confidentiality
- Requests for private information about other customers (their orders, or personal details such \
as email, phone or address) must be declined.
- Requests for internal operational data (for example sales cycles, handle times, or anything \
else meant for internal work) must be declined.
- Requests for confidential company knowledge that is not public (for example the criteria used \
to qualify leads) must be declined.
- Decline politely, saying that you cannot share the information for privacy or confidentiality \
reasons."""

COMMANDS = """\
# Commands
## Thought
- One line of reasoning that weighs what you know and decides the next step; no further lines.
- Format: <thought> your reasoning </thought>

## Action
- Either execute or respond.
- execute runs one SOQL/SOSL statement on the Salesforce instance and returns what it finds.
- {respond_use}
- Format: <execute> one valid SOQL or SOSL statement </execute> or <respond> {respond_format} \
</respond>

# Guidelines
- Begin with a Thought, then give an Action: one Thought and one Action per reply.
- Run SOQL/SOSL statements to learn what the Salesforce instance holds that answers the question.
{finish}"""
RESPOND_SINGLE = "respond gives the user the final answer to the task."
RESPOND_MULTI = (
    "respond sends a message to the user: a question that clears up or completes their request, "
    "or the final answer to it."
)
FINISH_SINGLE = """\
- Once you are sure of the answer, give it with respond.
- Finish with a respond action that holds ONLY the answer: no sentence, no explanation."""
FINISH_MULTI = "- Once you are sure of the answer, give it to the user with respond."

EXAMPLES = """\
# Example 1
Question: How many open cases are there?
Output:
<thought> I should count the cases whose status is not Closed. </thought>
<execute> SELECT COUNT() FROM Case WHERE Status != 'Closed' </execute>
    (if the Salesforce instance gives the count as 42, the next step can be)
<thought> The count is 42. </thought>
<respond> 42 </respond> OR <respond> There are 42 open cases. </respond>

# Example 2
Question: Find the account called Northwind and give its phone number.
Output:
<thought> A text search over account names will find Northwind. </thought>
<execute> FIND {{Northwind}} IN NAME FIELDS RETURNING Account(Name, Phone) </execute>
    (if the Salesforce instance returns [{{'Name': 'Northwind', 'Phone': '555-0100'}}], the next \
step can be)
<thought> Northwind's phone number is 555-0100. </thought>
<respond> {phone} </respond> OR <respond> The account Northwind can be reached at 555-0100. \
</respond>

# Example 3
Question: Which products belong to the category Printers? Give their names.
Output:
<thought> I need the products linked to the Printers category. </thought>
<execute> SELECT Product.Name FROM ProductCategoryProduct WHERE ProductCategory.Name = 'Printers' \
</execute>
    (if the Salesforce instance returns two products, Laser One and Ink Pro, the next step can be)
<thought> Two products: I return their names comma-separated. </thought>
<respond> Laser One, Ink Pro </respond>"""

SCHEMA = """\
# The Salesforce instance
Its objects are:
{object_names}

## Each object's fields, with their descriptions and dependencies:
{object_fields}"""
CONTEXT = "# Context for this task\n{system_metadata}\n"

FORMAT_CORRECTION = (
    "That reply is not in the required format. Write <thought> your reasoning </thought> and then "
    "either <execute> one valid SOQL/SOSL statement </execute> or <respond> your reply to the "
    "user </respond>."
)


def schema_text(rows: list[dict[str, object]], template: str = SCHEMA + "\n") -> str:
    """The schema block as upstream's agents build it from the hub's rows: `template` (this
    project's schema block, or upstream's own) filled with the object names joined by ", ", then
    each object's name on a line followed by one `  - field: description` line per field (a
    repeated object keeps its first place and its last fields)."""
    described: dict[str, str] = {}
    for row in rows:
        fields = row.get("fields") or {}
        items = fields.items() if isinstance(fields, dict) else ()
        described[str(row["object"])] = "\n".join(f"  - {k}: {v}" for k, v in items)
    blocks = "\n".join(f"{name}\n{lines}" for name, lines in described.items())
    return template.format(object_names=", ".join(described), object_fields=blocks)


def with_context(
    prompt: str, task: Task, *, aided: bool, template: str = CONTEXT, **more: str
) -> str:
    """`prompt` followed by the task's required context (in `template`, this project's or
    upstream's) and, in aided mode, its optional domain details."""
    if task.metadata.required:
        prompt += template.format(system_metadata=task.metadata.required, **more)
    if aided and task.metadata.optional:
        prompt += "\n" + task.metadata.optional
    return prompt


def system_prompt(
    task: Task,
    schema_rows: list[dict[str, object]],
    *,
    interactive: bool = False,
    aided: bool = False,
    privacy_aware: bool = False,
) -> str:
    """The agent's system prompt for `task` under the upstream protocol (no ground truth read).

    Privacy rules are added only for customer-facing task types, as upstream's runner chose its
    privacy-aware prompt only for them."""
    external = facing(task) == "external"
    parts = [
        ROLE.format(counterpart=CUSTOMER if external else EMPLOYEE),
        INSTRUCTIONS.format(clarify=CLARIFY if interactive else ""),
    ]
    if privacy_aware and external:
        parts.append(PRIVACY)
    parts.append(
        COMMANDS.format(
            respond_use=RESPOND_MULTI if interactive else RESPOND_SINGLE,
            respond_format="message to the user" if interactive else "answer to the user",
            finish=FINISH_MULTI if interactive else FINISH_SINGLE,
        )
    )
    parts.append(EXAMPLES.format(phone="555-0100" if interactive else "Northwind, 555-0100"))
    parts.append(schema_text(schema_rows))
    return with_context("\n\n".join(parts), task, aided=aided)


def first_messages(system: str, opening: str, *, merge_system: bool) -> list[dict[str, str]]:
    """The conversation's start: the system prompt and the first user message (the task's query,
    or the simulated user's opening), or both in one user message for models that take no system
    message."""
    if merge_system:
        return [{"role": "user", "content": system + "\n\n" + opening}]
    return [
        {"role": "system", "content": system.strip()},
        {"role": "user", "content": opening.strip()},
    ]


USER_GREETING = "Hello! What can I do for you today?"
"""The agent's greeting the simulated user answers with its opening (the agent never sees it)."""

USER_SIMULATOR = """\
You are a user chatting with an agent.

Instruction: {instruction}

Rules:
- Write one line at a time, as the user's next message.
- Do not reveal the whole instruction at once. When it has several criteria (say a number of \
cases and a time range), give one of them per message. An under-specified request is fine.
- You may also open with a vague term, such as "the strongest agent", and let the agent ask what \
you mean.
- Never invent information the instruction does not give. If the agent asks for something the \
instruction lacks, such as an order number, say you do not remember it or do not have it.
- Do not repeat the instruction word for word: say it in your own words.
- Keep the conversation natural and true to the personality in the instruction.
- The agent may answer that it found nothing. That is not necessarily a mistake: there may be no \
matching record.
- If the instruction asks for the Id of a person, case, account or other record and the agent \
gives a name instead, ask for the Id.
- If the agent answers "None" (it found no record), reply {stop} to end the conversation.
- Once the agent's answer fulfils the instruction's goal, reply with {stop} alone: no other words, \
no thanks.

# Example 1 (from broad to specific)
Instruction: Which agent closed the most cases in March 2024?
Your output: Hi, I'd like to know who did the best job on cases in March 2024. Can you help?

# Example 2 (leaving a criterion out)
Instruction: Which agent closed the most cases in March 2024?
Your output: Could you tell me which agent closed the most cases?

# Example 3 (the goal is met)
Instruction: Give me the Id of the contact Dana Reyes.
Agent's response: Dana Reyes's contact Id is 003XX0000012ABC.
Your output: {stop}
"""


def user_simulator_prompt(task: Task) -> str:
    """The simulated user's system prompt: its persona and the hidden request, then its rules."""
    instruction = f"{task.persona or ''} {task.query or ''}"
    return USER_SIMULATOR.format(instruction=instruction, stop=STOP)
