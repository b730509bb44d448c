"""An upstream `traj` (the agent's message list) read as session events, the way upstream's agent
loop wrote it.

- Assistant replies are parsed like upstream's agent: `<execute>` before `<respond>`. Tool-calling
  runs answer with a `respond` tool call (`{"content": ...}`), or, for models prompted to write
  tool calls as text, with `Action: respond` and a JSON `Action Input`: the final answer is
  taken from whichever the run used.
- Models without a system role (o1 and the like) got the system prompt and the query merged into
  the first user message (`prompt + "\\n\\n" + query`): `split_merged_prompt` takes them apart.
- What the prompt says about the run: aided mode adds the task's optional metadata (a
  `# Domain Details` section); the privacy-aware prompt tells the agent it must decline; the
  interactive prompts speak of interactive conversations.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, NamedTuple

from crmarena_tui.orgs.base import is_sosl, unwrap_code_fence
from crmarena_tui.storage import strict_json
from crmarena_tui.storage.end_reason import STOP

OBSERVATION = "Salesforce instance output:"
_ERROR = re.compile(r"^([A-Z][A-Z0-9_]{2,}): ")
_THOUGHT = re.compile(r"<thought>(.*?)(?:</thought>|(?=<execute>|<respond>)|\Z)", re.S | re.I)
_ACTIONS = (
    ("execute", re.compile(r"<execute>(.*?)(?:</execute>|\Z)", re.S | re.I)),
    ("respond", re.compile(r"<respond>(.*?)(?:</respond>|\Z)", re.S | re.I)),
)
_TEXT_TOOL = re.compile(r"Action:\s*respond\b.*?Action Input:\s*(.*)\Z", re.S | re.I)
_DOMAIN_DETAILS = "# Domain Details"
_METADATA = "# Salesforce instance Metadata"
_DOUBLE_BLANK = re.compile(r"\n[ \t]*\n[ \t]*\n\s*")
_PROMPT_MARKS = ("<execute>", "<respond>", "Salesforce instance", "# Domain Details")
_PRIVACY_AWARE = re.compile(r"\bmust\s+decline\b", re.I)
_INTERACTIVE_PROMPT = re.compile(r"\binteractive\s+conversations?\b", re.I)


class Step(NamedTuple):
    """One event of the trajectory (a tuple: an import makes tens of thousands)."""

    actor: str
    kind: str
    payload: dict[str, Any]


# Steps are made as `_new(Step, (actor, kind, payload))`: `tuple.__new__` at C speed rather than
# the named tuple's `__new__`, a Python function (an import makes thirty steps per item).
_new = tuple.__new__


def message_text(content: Any) -> str:
    """A message's content as text (content blocks joined)."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def parse_reply(text: str, lower: str | None = None) -> tuple[str, str | None, str]:
    """(thought, action, content) the way upstream read a reply: `<execute>` before `<respond>`.

    String searches on the lower-cased text (the tags are ASCII; `lower` when the caller has it),
    with the regular expressions as the fallback for text whose lower-casing changes its length."""
    if lower is None:
        lower = text.lower()
    if len(lower) != len(text):
        return _parse_reply_slow(text)
    thought = ""
    at = lower.find("<thought>")
    if at >= 0:
        start = at + 9
        end = len(text)
        for tag in _THOUGHT_ENDS:
            found = lower.find(tag, start, end + len(tag) - 1)  # starting before `end`
            if found >= 0:
                end = found
        thought = text[start:end].strip()
    for open_tag, close_tag, action in _ACTION_TAGS:
        at = lower.find(open_tag)
        if at >= 0:
            start = at + len(open_tag)
            end = lower.find(close_tag, start)
            content = text[start : end if end >= 0 else len(text)].strip()
            if content:
                return thought, action, content
    return thought, None, ""


_THOUGHT_ENDS = ("</thought>", "<execute>", "<respond>")
_ACTION_TAGS = (("<execute>", "</execute>", "execute"), ("<respond>", "</respond>", "respond"))


def _parse_reply_slow(text: str) -> tuple[str, str | None, str]:
    thought = _THOUGHT.search(text)
    for action, pattern in _ACTIONS:
        found = pattern.search(text)
        if found and found.group(1).strip():
            return (thought.group(1).strip() if thought else ""), action, found.group(1).strip()
    return (thought.group(1).strip() if thought else ""), None, ""


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str) and raw.strip():
        try:
            return strict_json.loads(raw)
        except ValueError:  # not JSON, or a value no database holds: kept as the text it is
            return {"raw": raw}
    return raw or {}


def _first_text(args: Any) -> str:
    if isinstance(args, dict):
        if isinstance(args.get("content"), str):
            return args["content"]
        return next((str(v) for v in args.values() if v), "")
    return "" if args is None else str(args)


def respond_call(message: dict[str, Any], text: str, lower: str | None = None) -> str | None:
    """The answer of a tool-calling run's `respond` call in this message, or None."""
    for call in message.get("tool_calls") or ():
        function = call.get("function", {}) if isinstance(call, dict) else {}
        if isinstance(function, dict) and str(function.get("name", "")).strip() == "respond":
            return _first_text(_arguments(function.get("arguments"))).strip()
    if "action" in (text.lower() if lower is None else lower) and (
        found := _TEXT_TOOL.search(text)
    ):
        return _first_text(_arguments(found.group(1).strip())).strip()
    return None


def split_merged_prompt(text: str) -> tuple[str, str] | None:
    """(system prompt, query) of a first user message that merges both, or None if it does not.

    The query follows the blank line after the `# Domain Details` section (aided runs), else the
    last double blank line (the metadata section ends with one), else the last blank line."""
    if "\n\n" not in text:
        return None
    if len(text) <= 1500 and not any(mark in text for mark in _PROMPT_MARKS):
        return None
    at = text.rfind(_DOMAIN_DETAILS)
    cut = text.find("\n\n", at) if at >= 0 else -1
    if cut >= 0:
        return text[:cut].rstrip(), text[cut:].strip()
    blanks = list(_DOUBLE_BLANK.finditer(text))
    if blanks:
        return text[: blanks[-1].start()].rstrip(), text[blanks[-1].end() :].strip()
    prompt, _, query = text.rpartition("\n\n")
    return prompt.rstrip(), query.strip()


def prompt_says(traj: list[dict[str, Any]]) -> dict[str, bool]:
    """What the run's system prompt says: `aided`, `privacy_aware`, `interactive`."""
    first = message_text(traj[0].get("content")) if traj else ""
    if traj and traj[0].get("role") == "user":
        split = split_merged_prompt(first)
        first = split[0] if split else ""
    return dict(_prompt_flags(first))


@lru_cache(maxsize=64)
def _prompt_flags(prompt: str) -> tuple[tuple[str, bool], ...]:
    """A run repeats one system prompt per task type: read each distinct prompt once."""
    return (
        ("aided", _DOMAIN_DETAILS in prompt),
        ("privacy_aware", bool(_PRIVACY_AWARE.search(prompt))),
        ("interactive", bool(_INTERACTIVE_PROMPT.search(prompt))),
    )


@lru_cache(maxsize=64)
def prompt_json(prompt: str) -> str:
    """A system prompt as a JSON string (`dumps(prompt)`). A run repeats one system prompt
    (kilobytes) per task type, so in every item of a file: each distinct prompt is escaped once
    and found again by its hash, a cheaper pass over the text than escaping it (the import key's
    canonical JSON and the system prompt's event both hold it)."""
    return _json_text(prompt)


_json_text = json.encoder.encode_basestring  # (`dumps`' text, not ASCII-escaped)


def prompt_metadata(prompt: str) -> tuple[str, str]:
    """(required, optional) task metadata as the run's system prompt carries them: the section
    after `# Salesforce instance Metadata` (the task's required metadata: policy, today's date),
    and the `# Domain Details` section of aided runs. Empty when the prompt has neither."""
    at = prompt.find(_METADATA)
    details = prompt.find(_DOMAIN_DETAILS)
    required = ""
    if at >= 0:
        end = details if details > at else len(prompt)
        required = prompt[at + len(_METADATA) : end].strip("\n")
    optional = prompt[details:].strip() if details >= 0 else ""
    return required, optional


def responds_then_user(traj: list[Any]) -> bool:
    """True when a user (not the org) speaks after an agent's respond: a multi-turn dialogue."""
    roles = [(m.get("role"), message_text(m.get("content"))) for m in traj if isinstance(m, dict)]
    return any(
        role == "assistant"
        and parse_reply(text)[1] == "respond"
        and nxt == "user"
        and not ntext.startswith(OBSERVATION)
        for (role, text), (nxt, ntext) in zip(roles, roles[1:], strict=False)
    )


def _tool_step(call: Any) -> Step:
    function = call.get("function", {}) if isinstance(call, dict) else {}
    name = str(function.get("name", ""))
    args = _arguments(function.get("arguments", ""))
    text = _first_text(args)
    kind = "search" if is_sosl(text) else "query"
    return _new(Step, ("agent", kind, {"text": text, "tool": name, "arguments": args}))


def _user_step(text: str, last_action: str, query: str) -> tuple[Step, str]:
    if text.startswith(OBSERVATION):
        body = text[len(OBSERVATION) :].strip()
        if "A" <= body[:1] <= "Z" and (code := _ERROR.match(body)):  # (`_ERROR`'s first letter)
            return _new(Step, ("system", "error", {"error": body, "code": code.group(1)})), query
        return _new(Step, ("system", "observation", {"observation": body})), query
    if last_action == "invalid":
        return _new(Step, ("system", "error", {"source": "format", "error": text})), query
    payload: dict[str, Any] = {"text": text}
    if not query:
        query, payload["opening"] = text, True
    if text.strip() == STOP:
        payload["stop"] = True
    return _new(Step, ("user", "message", payload)), query


def trajectory_steps(
    traj: list[dict[str, Any]], interactive: bool, ended: tuple[str, str] | None = None
) -> tuple[list[Step], str, str]:
    """The events of an upstream `traj`, the query (first user turn) and the final answer.

    `ended` = (reason, source): upstream ended the episode without a confirmed answer (any end
    reason but "Submit action"). Then there is no answer: the last respond stays a message event
    and a system `submit` event names the end (`end_reason`, `end_source`, `last_respond`), as
    `Episode.end` writes it."""
    messages = [
        (str(m.get("role")), c if type(c := m.get("content")) is str else message_text(c), m)
        for m in traj
    ]
    if messages and messages[0][0] == "user" and (split := split_merged_prompt(messages[0][1])):
        messages[0:1] = [("system", split[0], {}), ("user", split[1], {})]
    answers: dict[int, str] = {}
    replies: dict[int, tuple[str, str | None, str]] = {}
    for i, (role, text, raw) in enumerate(messages):
        if role == "assistant":
            lower = text.lower()
            reply = replies[i] = parse_reply(text, lower)
            if reply[1] == "respond":
                answers[i] = reply[2]
            elif (tool_answer := respond_call(raw, text, lower)) is not None:
                answers[i] = tool_answer
    final = max(answers) if answers else None
    steps: list[Step] = []
    query, last_action, turn, stop = "", "none", 0, None
    for i, (role, text, raw) in enumerate(messages):
        if role == "assistant":  # (the commonest roles first)
            turn += 1
            thought, action, content = replies[i]
            steps.append(
                _new(Step, ("agent", "thought", {"text": thought, "reply": text, "turn": turn}))
            )
            for call in raw.get("tool_calls") or ():
                if i not in answers or action == "respond":
                    steps.append(_tool_step(call))
                action = action or "tool"
            if action == "execute":
                soql = unwrap_code_fence(content)
                sosl = soql[:1] not in "Ss" and is_sosl(soql)  # (SELECT: no need to ask)
                steps.append(_new(Step, ("agent", "search" if sosl else "query", {"text": soql})))
            elif i in answers and (interactive or i != final or ended):
                steps.append(_new(Step, ("agent", "message", {"text": answers[i]})))
            last_action = action or ("respond" if i in answers else "invalid")
        elif role == "user":
            step, query = _user_step(text, last_action, query)
            if stop is None and "stop" in step.payload:
                stop = len(steps)
            steps.append(step)
            last_action = "user"
        elif role == "system":
            steps.append(_new(Step, ("system", "system", {"event": "system_prompt", "text": text})))
        elif role == "tool":
            steps.append(_new(Step, ("system", "observation", {"observation": text})))
    answer = answers[final] if final is not None else ""
    if ended is not None:
        end = {"answer": "", "end_reason": ended[0], "end_source": ended[1]}
        steps.append(_new(Step, ("system", "submit", {**end, "last_respond": answer})))
        return steps, query, ""
    if final is not None:
        submit = _new(Step, ("agent", "submit", {"answer": answer}))
        steps.insert(stop + 1, submit) if stop is not None else steps.append(submit)
    return steps, query, answer
