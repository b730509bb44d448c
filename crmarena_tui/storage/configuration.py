"""What a session's participant was, as the CRMArena-Pro paper tells runs apart, and which split
of the benchmark the session belongs to.

A configuration is a participant under one set of agent settings: model, strategy (react,
tool_call, tool_call_flex, ...), aided (the task's optional domain details in the prompt) and
privacy-aware (the prompt's privacy rules), and where the `upstream` protocol's prompts came from
(`prompt_source`: this project's paraphrase, unnamed, or upstream's own read from a checkout,
`upstream-prompts`). Its name reads like an imported run's participant (`storage/upstream.py`):
`<model>/<strategy>[/aided][/privacy-aware][/upstream-prompts]`. A name that already says a part
(an imported participant, a native one named since configurations were) is not given it twice, so
a database made before keeps its names and only gains the parts they lacked. Humans have no
strategy: `<name>[/aided][/upstream-prompts]` (their simulated user and judge read the prompts).

In a chat session the simulated user is part of the configuration: the same agent talking to two
user models is two configurations. The name says it (`/user=<model>`) unless the user is one a
protocol plays by default (`DEFAULT_USERS`: the offline scripted user, upstream's own user model
played upstream's way, an imported upstream run's user), so a database whose chat sessions all
had the default user reads as before; a single-turn session has no user and no such part.

A split is the org type (b2b, b2c, original) by mode (single-turn or chat), as the paper reports
every figure. The org type is read from the session's task snapshot, else its org reference
(`demo:b2c`, `upstream:b2c`, `salesforce:b2c`), else its task source (`hf:b2c_interactive`); the
mode is the session's `interactive` column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Participant, Session
    from crmarena_tui.storage.store import Store

# the strategies of model agents (upstream's names and this project's); the reference agent's
# `scripted` is not one: it has a single configuration
STRATEGIES = (
    "tool_call_superface",
    "tool_call_flex",
    "function_calling",
    "tool_calling",
    "tool_call",
    "react",
    "act",
)
ORG_TYPES = ("b2b", "b2c", "original")
MODES = ("single", "chat")
ALL_SPLITS = "all"
PRIVACY_PARTS = ("privacy-aware", "privacy_aware")
UPSTREAM_PROMPTS_PART = "upstream-prompts"
USER_PART = "user="
# the recorded names (`UserSimulator.name`) of the users a protocol plays by default: the
# scripted user (workbench), upstream's user model played upstream's way, an imported run's user
DEFAULT_USERS = ("scripted", "upstream", "upstream:gpt-4o-2024-08-06")
_USER_KINDS = ("llm:", "upstream:")  # how the model played the user: the protocol says it too


def configuration_name(
    base: str,
    *,
    strategy: str | None = None,
    aided: bool = False,
    privacy_aware: bool = False,
    upstream_prompts: bool = False,
    user: str | None = None,
) -> str:
    """`base` followed by the parts of the configuration it does not already name; `user`: the
    simulated user's model when it is not a default one (`named_user`), last."""
    parts = base.split("/")
    extra = []
    if strategy in STRATEGIES and strategy not in parts:
        extra.append(str(strategy))
    if aided and "aided" not in parts:
        extra.append("aided")
    if privacy_aware and not any(p in parts for p in PRIVACY_PARTS):
        extra.append("privacy-aware")
    if upstream_prompts and UPSTREAM_PROMPTS_PART not in parts:
        extra.append(UPSTREAM_PROMPTS_PART)
    if user and not any(p.startswith(USER_PART) for p in parts):
        extra.append(USER_PART + user)
    return "/".join([base, *extra])


def agent_participant(
    store: Store, name: str, model: str | None, settings: dict[str, Any]
) -> Participant:
    """The participant row of the agent `name` under `settings` (its `settings()`), named by its
    configuration. A database made when agents were named by their model alone keeps using that
    row for the same settings, so a run started then resumes its sessions."""
    configured = configuration_name(
        name,
        strategy=settings.get("strategy"),
        aided=bool(settings.get("aided")),
        privacy_aware=bool(settings.get("privacy_aware")),
        upstream_prompts=str(settings.get("prompt_source", "")).startswith("upstream@"),
    )
    if configured != name:
        earlier = store.find_participant("agent", name, model=model, settings=settings)
        if earlier is not None:
            return earlier
    return store.participant("agent", configured, model=model, settings=settings)


def user_model_of(session: Session) -> str | None:
    """The model that played the simulated user of a chat session (`openai/gpt-4o-mini`,
    `gpt-4o-2024-08-06`), `scripted` for the offline scripted user, `upstream` for an imported
    upstream run's (its model unrecorded); None in a single-turn session or when none is
    recorded."""
    recorded = session.user_simulator if session.interactive else None
    if not recorded:
        return None
    for kind in _USER_KINDS:
        if recorded.startswith(kind) and len(recorded) > len(kind):
            return recorded[len(kind) :]
    return recorded


def named_user(session: Session) -> str | None:
    """The user model a chat session's configuration names: None for a single-turn session and
    for a user a protocol plays by default (`DEFAULT_USERS`)."""
    recorded = session.user_simulator if session.interactive else None
    if not recorded or recorded in DEFAULT_USERS:
        return None
    return user_model_of(session)


def _setting(settings: Mapping[str, Any], *more: Mapping[str, Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for found in (*more, settings):  # the participant's settings win over the session's
        merged.update({k: v for k, v in found.items() if v is not None})
    return merged


def strategy_of(participant: Participant, session: Session) -> str | None:
    """The agent strategy of the session (None for humans and agents that record none)."""
    if participant.kind != "agent":
        return None
    found = _setting(participant.settings, session.settings).get("strategy")
    return str(found) if found else None


def privacy_aware_of(participant: Participant, session: Session) -> bool:
    """Whether the agent ran under the privacy-aware prompt (False for humans)."""
    if participant.kind != "agent":
        return False
    return bool(_setting(participant.settings, session.settings).get("privacy_aware"))


def prompt_source_of(participant: Participant, session: Session) -> str:
    """Where the session's prompts came from (`paraphrased`, `upstream@<commit>`); sessions
    stored before prompt sources were recorded used this project's paraphrase; an imported
    upstream run used upstream's own (`upstream (imported)`; its name is upstream's already)."""
    found = _setting(participant.settings, session.settings).get("prompt_source")
    if not found and session.settings.get("imported_from") == "upstream":
        return "upstream (imported)"
    return str(found) if found else "paraphrased"


def session_configuration(participant: Participant, session: Session) -> str:
    """The configuration name of `participant` in `session` (a chat session's with its user
    model when that is not a default one: module docstring)."""
    return configuration_name(
        participant.name,
        strategy=strategy_of(participant, session),
        aided=session.aided,
        privacy_aware=privacy_aware_of(participant, session),
        upstream_prompts=prompt_source_of(participant, session).startswith("upstream@"),
        user=named_user(session),
    )


def org_type_of(session: Session) -> str:
    """b2b, b2c or original (else whatever the snapshot says; `unknown` when nothing does)."""
    found = session.task_json.get("org_type")
    if isinstance(found, str) and found:
        return found
    for text in (session.org_ref, session.task_source):
        tail = text.split(":", 1)[-1].lower()
        for org in ORG_TYPES:
            if tail == org or tail.startswith(org + "_"):
                return org
    return "unknown"


def mode_of(session: Session) -> str:
    """`chat` for a multi-turn (interactive) session, else `single`."""
    return "chat" if session.interactive else "single"


def split_name(org_type: str, mode: str) -> str:
    return f"{org_type} {mode}"
