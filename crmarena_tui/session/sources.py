"""What a session's models are shown under `upstream`, and how its settings record where it came
from: the agent's schema text (the `schema` setting, `agents/agent_schema.py`, recorded on an
agent's session as `schema_source`) and the protocol's prompts (the `upstream_prompts` setting,
`agents/prompt_source.py`, recorded on every session as `prompt_source`: a human's simulated user
and judge read them too). `episode_log.resume_key` leaves out each key's default (`project`,
`paraphrased`), so sessions stored before the keys were recorded resume.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmarena_tui.agents.agent_schema import SchemaSources
from crmarena_tui.agents.prompt_source import PROMPT_SOURCE_KEY

if TYPE_CHECKING:
    from crmarena_tui.agents.prompt_source import PromptSource
    from crmarena_tui.orgs.base import Org

SCHEMA_SOURCE_KEY = "schema_source"


class SessionSources:
    """The schema text and the prompts of one service's sessions (each loaded once)."""

    def __init__(self, schema: str | None = None, upstream_prompts: Path | None = None) -> None:
        self.schemas = SchemaSources(schema)
        self.upstream_prompts = upstream_prompts

    def prompts(self, protocol: str) -> PromptSource:
        """The prompts of a session under `protocol` (`prompt_source.source_for`); raises
        `CheckoutProblem` (one line)."""
        from crmarena_tui.agents.prompt_source import source_for

        return source_for(self.upstream_prompts, protocol)

    def recorded(
        self, settings: dict[str, Any] | None, org: Org, protocol: str, *, agent: bool
    ) -> dict[str, Any]:
        """`settings` with the `prompt_source` of `protocol` (unless they name one) and, for an
        agent, the `schema_source` it is shown on `org`. Raises `SchemaUnavailable`."""
        found = {PROMPT_SOURCE_KEY: self.prompts(protocol).name, **(settings or {})}
        if agent:
            found[SCHEMA_SOURCE_KEY] = self.schemas.for_org(org, protocol).source
        return found
