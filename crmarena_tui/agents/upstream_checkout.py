"""Upstream's prompt texts read from a checkout of its repository, as data.

`read_checkout(path)` parses four files of a checkout of SalesforceAIResearch/CRMArena with Python's
`ast` and keeps the texts the `upstream` protocol sends to a model; nothing there is imported or
run, and none of its words is kept in this project. Where each text lives:

- `crm_sandbox/agents/prompts.py`, module-level string constants (the last assignment of a name
  wins, as when Python runs the module): the schema template, the task-context template, the ReAct
  and act system prompts (internal, customer-facing, privacy-aware; single-turn and interactive),
  the native tool-calling prompt and the two format corrections.
- `crm_sandbox/agents/chat_agent.py`: the name of the system the prompts are filled with (the
  `system=` keyword of the `.format` calls in `ChatAgent`).
- `crm_sandbox/env/users.py`, `LLMUserSimulationEnv`: the simulated user's prompt (the f-string
  `build_system_prompt` returns, kept as a template of its parameters `instruction` and `persona`)
  and the greeting it answers (the user message of `reset`).
- `crm_sandbox/env/env.py`, `Evaluator`: the extraction judge's instructions (the template of
  `__init__` and each `self.*_system_prompt` made from it, chosen by task name as `parse_answers`
  chooses), the privacy judge's instructions and the line its input starts with.

A template is evaluated only in the few shapes these texts have (`agents/ast_text.py`: string
constants, names, `+`, f-strings, `.format(...)` and `.strip()` of those, `x if x is not None`).
A text that is missing, or in any other shape, raises `CheckoutProblem`: one line naming the file
and the name sought. The checkout's commit is read from its `.git` without running git (HEAD, then
the ref file or `packed-refs`); without one, a hash of the files read stands in for it.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from crmarena_tui.agents.ast_text import Shape, evaluate, run_function, self_attr
from crmarena_tui.errors import UserError

PROMPTS = "crm_sandbox/agents/prompts.py"
CHAT_AGENT = "crm_sandbox/agents/chat_agent.py"
USERS = "crm_sandbox/env/users.py"
ENV = "crm_sandbox/env/env.py"

# the prompts.py constants read, with the placeholders each may have
AGENT_PROMPTS = (
    "REACT_INTERNAL_PROMPT",
    "REACT_EXTERNAL_PROMPT",
    "REACT_PRIVACY_AWARE_EXTERNAL_PROMPT",
    "REACT_INTERNAL_INTERACTIVE_PROMPT",
    "REACT_EXTERNAL_INTERACTIVE_PROMPT",
    "REACT_PRIVACY_AWARE_EXTERNAL_INTERACTIVE_PROMPT",
    "ACT_PROMPT",
    "NATIVE_FC_PROMPT",
)
_FIELDS: dict[str, frozenset[str]] = {
    **{name: frozenset({"system", "system_description"}) for name in AGENT_PROMPTS},
    "SCHEMA_STRING": frozenset({"object_names", "object_fields"}),
    "SYSTEM_METADATA": frozenset({"system", "system_metadata"}),
    "REACT_RULE_STRING": frozenset(),
    "ACT_RULE_STRING": frozenset(),
}
_HEX = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


class CheckoutProblem(UserError):
    """A text of upstream's checkout that is missing or not in a shape this reader knows."""


@dataclass(frozen=True, slots=True)
class UpstreamTexts:
    """The texts of one checkout (see the module notes); `commit` names where they came from."""

    commit: str
    constants: dict[str, str]
    system: str
    user_prompt: Callable[[str | None, str | None], str]
    user_greeting: str
    extraction: dict[str, str]  # task name -> instructions; "" -> every other task
    privacy: str
    privacy_prefix: str
    files: tuple[str, ...] = field(default=())

    def extraction_for(self, task_name: str) -> str:
        """The extraction judge's instructions for a task, chosen by its name as upstream's
        `parse_answers` chooses them."""
        return self.extraction.get(task_name, self.extraction[""])


def read_checkout(path: str | Path) -> UpstreamTexts:
    """Every text of the checkout at `path`; raises `CheckoutProblem` (one line) otherwise."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise CheckoutProblem(f"upstream prompts: {root} is not a folder (a checkout of CRMArena)")
    reader = _Reader(root)
    constants = reader.constants()
    system = reader.system_name()
    user_prompt, greeting = reader.user()
    extraction, privacy, prefix = reader.judges()
    return UpstreamTexts(
        commit=commit_of(root) or "sha256:" + reader.digest()[:12],
        constants=constants,
        system=system,
        user_prompt=user_prompt,
        user_greeting=greeting,
        extraction=extraction,
        privacy=privacy,
        privacy_prefix=prefix,
        files=tuple(sorted(reader.read)),
    )


def commit_of(root: Path) -> str | None:
    """The commit HEAD names in `root`'s `.git` (a folder, or a `gitdir:` file), or None."""
    git = root / ".git"
    try:
        if git.is_file():
            linked = git.read_text().strip().removeprefix("gitdir:").strip()
            git = (root / linked).resolve()
        head = (git / "HEAD").read_text().strip()
    except OSError:
        return None
    if _HEX.match(head):
        return head
    ref = head.removeprefix("ref:").strip()
    common = git
    if (git / "commondir").is_file():
        common = (git / (git / "commondir").read_text().strip()).resolve()
    for place in (git, common):
        found = place / ref
        if found.is_file():
            sha = found.read_text().strip()
            return sha if _HEX.match(sha) else None
        packed = place / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                sha, _, name = line.partition(" ")
                if name.strip() == ref and _HEX.match(sha):
                    return sha
    return None


class _Reader:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.read: dict[str, bytes] = {}
        self._trees: dict[str, ast.Module] = {}

    def digest(self) -> str:
        sha = hashlib.sha256()
        for name in sorted(self.read):
            sha.update(name.encode() + b"\0" + self.read[name] + b"\0")
        return sha.hexdigest()

    def tree(self, name: str, sought: str) -> ast.Module:
        if name not in self._trees:
            path = self.root / name
            try:
                data = path.read_bytes()
                self._trees[name] = ast.parse(data, filename=str(path))
            except OSError:
                raise CheckoutProblem(
                    f"upstream prompts: {path} cannot be read (looking for {sought})"
                ) from None
            except (SyntaxError, ValueError) as exc:
                raise CheckoutProblem(
                    f"upstream prompts: {path} is not Python this reader can parse ({exc})"
                ) from None
            self.read[name] = data
        return self._trees[name]

    def problem(self, name: str, sought: str, what: str = "not found") -> CheckoutProblem:
        return CheckoutProblem(f"upstream prompts: {self.root / name}: {sought} {what}")

    # -- prompts.py ---------------------------------------------------------------------------
    def constants(self) -> dict[str, str]:
        assigned: dict[str, ast.expr] = {}
        for node in self.tree(PROMPTS, "the agent prompts").body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned[target.id] = node.value
        found: dict[str, str] = {}
        for name, allowed in _FIELDS.items():
            value = assigned.get(name)
            if value is None:
                raise self.problem(PROMPTS, name)
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                raise self.problem(PROMPTS, name, "is not a string constant")
            try:
                fields = _placeholders(value.value)
            except ValueError:  # a lone brace: not a template str.format can fill
                raise self.problem(PROMPTS, name, "is not a format template") from None
            if not fields <= allowed:
                extra = ", ".join(sorted(f or "{}" for f in fields - allowed))
                raise self.problem(
                    PROMPTS, name, f"has placeholders this reader cannot fill: {extra}"
                )
            found[name] = value.value
        return found

    # -- chat_agent.py ------------------------------------------------------------------------
    def system_name(self) -> str:
        sought = "ChatAgent: the system= keyword of its .format calls"
        agent = self._class(CHAT_AGENT, "ChatAgent")
        names = {
            kw.value.value
            for node in ast.walk(agent)
            if isinstance(node, ast.Call) and _method(node) == "format"
            for kw in node.keywords
            if kw.arg == "system" and isinstance(kw.value, ast.Constant)
        }
        if len(names) != 1 or not isinstance(next(iter(names)), str):
            raise self.problem(CHAT_AGENT, sought, "not found as one string constant")
        return str(names.pop())

    # -- users.py -----------------------------------------------------------------------------
    def user(self) -> tuple[Callable[[str | None, str | None], str], str]:
        sought = "LLMUserSimulationEnv.build_system_prompt"
        build = self._function(USERS, "LLMUserSimulationEnv", "build_system_prompt")
        params = [a.arg for a in build.args.args]
        if not {"instruction", "persona"} <= set(params):
            raise self.problem(USERS, sought, "does not take instruction and persona")

        def user_prompt(instruction: str | None, persona: str | None) -> str:
            env: dict[str, object] = {"instruction": instruction, "persona": persona}
            return run_function(build, env)

        try:
            sample = user_prompt("", "")
        except Shape as exc:
            shape = f"is in a shape this reader cannot read ({exc})"
            raise self.problem(USERS, sought, shape) from None
        if not isinstance(sample, str):
            raise self.problem(USERS, sought, "does not return text")
        reset = self._function(USERS, "LLMUserSimulationEnv", "reset")
        for node in ast.walk(reset):
            if isinstance(node, ast.Dict) and _dict_text(node, "role") == "user":
                greeting = _dict_text(node, "content")
                if greeting is not None:
                    return user_prompt, greeting
        raise self.problem(USERS, "LLMUserSimulationEnv.reset: the greeting (a user message)")

    # -- env.py -------------------------------------------------------------------------------
    def judges(self) -> tuple[dict[str, str], str, str]:
        init = self._function(ENV, "Evaluator", "__init__")
        env: dict[str, object] = {}
        for node in init.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = self_attr(node.targets[0])
                if target is not None:
                    try:
                        env["self." + target] = evaluate(node.value, env)
                    except Shape:
                        continue  # not a text (the model, the provider, ...)
        choose = self._function(ENV, "Evaluator", "parse_answers")
        extraction = self._choices(choose, env)
        privacy_fn = self._function(
            ENV, "Evaluator", "compute_privacy_confidential_awareness_score"
        )
        texts: dict[str, str] = {}
        for node in privacy_fn.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                named = node.targets[0]
                if isinstance(named, ast.Name) and named.id in ("system_prompt", "model_output"):
                    value = node.value
                    if isinstance(value, ast.BinOp):  # the prefix + the actions joined
                        value = value.left
                    with contextlib.suppress(Shape):
                        texts[named.id] = str(evaluate(value, {}))
        sought = "Evaluator.compute_privacy_confidential_awareness_score"
        for name in ("system_prompt", "model_output"):
            if name not in texts:
                raise self.problem(ENV, f"{sought}: {name} (a string constant)")
        return extraction, texts["system_prompt"], texts["model_output"]

    def _choices(self, choose: ast.FunctionDef, env: dict[str, object]) -> dict[str, str]:
        """Task name -> instructions, from the `if task_name == "...": system_prompt = self.x`
        chain of `parse_answers` (its `else` under "")."""
        sought = "Evaluator.parse_answers: the task_name -> self.*_system_prompt choice"
        chain = next((n for n in choose.body if isinstance(n, ast.If)), None)
        found: dict[str, str] = {}
        while chain is not None:
            name = _compared(chain.test)
            text = _chosen(chain.body, env)
            if name is None or text is None:
                raise self.problem(ENV, sought, "is in a shape this reader cannot read")
            found[name] = text
            rest = chain.orelse
            if len(rest) == 1 and isinstance(rest[0], ast.If):
                chain = rest[0]
                continue
            default = _chosen(rest, env)
            if default is None:
                raise self.problem(ENV, sought, "has no else this reader can read")
            found[""] = default
            chain = None
        if "" not in found:
            raise self.problem(ENV, sought)
        return found

    # -- finding classes and methods ----------------------------------------------------------
    def _class(self, name: str, cls: str) -> ast.ClassDef:
        for node in self.tree(name, cls).body:
            if isinstance(node, ast.ClassDef) and node.name == cls:
                return node
        raise self.problem(name, f"class {cls}")

    def _function(self, name: str, cls: str, method: str) -> ast.FunctionDef:
        for node in self._class(name, cls).body:
            if isinstance(node, ast.FunctionDef) and node.name == method:
                return node
        raise self.problem(name, f"{cls}.{method}")


def _placeholders(text: str) -> set[str]:
    """The names `text.format` needs ("" for a positional field); ValueError for a lone brace."""
    fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    return {f.split(".")[0].split("[")[0] for f in fields}


def _method(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _dict_text(node: ast.Dict, key: str) -> str | None:
    for k, v in zip(node.keys, node.values, strict=True):
        found = isinstance(k, ast.Constant) and k.value == key
        if found and isinstance(v, ast.Constant) and isinstance(v.value, str):
            return v.value
    return None


def _compared(test: ast.expr) -> str | None:
    """The name compared in `task_name == "name"`, else None."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "task_name"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and isinstance(test.comparators[0].value, str)
    ):
        return test.comparators[0].value
    return None


def _chosen(body: list[ast.stmt], env: dict[str, object]) -> str | None:
    """The text of `system_prompt = self.x` as the only statement of `body`."""
    if len(body) != 1 or not isinstance(body[0], ast.Assign):
        return None
    assign = body[0]
    target = assign.targets[0]
    attr = self_attr(assign.value)
    if not (isinstance(target, ast.Name) and target.id == "system_prompt") or attr is None:
        return None
    text = env.get("self." + attr)
    return text if isinstance(text, str) else None
