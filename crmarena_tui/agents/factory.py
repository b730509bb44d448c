"""`make_agent(spec)`: the one place a spec from the command line, the app or a study becomes an
agent. It sits above the agent classes (the base loop in `agents/agent.py`, the strategies, the
reference and Python agents), each imported only when its spec asks for it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crmarena_tui.agents.step import Agent
from crmarena_tui.llm.client import make_client

if TYPE_CHECKING:
    from crmarena_tui.agents.agent_schema import SchemaSources
    from crmarena_tui.agents.prompt_source import PromptSource


def make_agent(
    spec: str,
    *,
    strategy: str = "react",
    api_base: str | None = None,
    aided: bool = False,
    privacy_aware: bool = False,
    settings: Any = None,
    schemas: SchemaSources | None = None,
    prompt_source: PromptSource | None = None,
    **client_kwargs: Any,
) -> Agent:
    """`reference` -> the oracle agent; `FILE.py:NAME`, `package.module:NAME` or an installed
    agent's name -> a researcher's own (`agents/python_agent.py`); any other spec is a model name
    (litellm, or a registered provider's). `schemas`: where the schema text comes from (the
    service's; None: each org's own). A model agent under the `upstream` protocol takes its texts
    from `prompt_source` (`agents.prompt_source`; default: this project's paraphrase)."""
    if spec == "reference":
        from crmarena_tui.agents.reference import ReferenceAgent

        return ReferenceAgent()
    from crmarena_tui.agents.python_agent import PythonAgent, is_python_spec

    if is_python_spec(spec):  # FILE.py:NAME, package.module:NAME or an installed agent
        return PythonAgent(spec, aided=aided, privacy_aware=privacy_aware, schemas=schemas)
    if strategy not in ("react", "tool_call", "tool_calling"):
        raise ValueError(f"unknown strategy {strategy!r}: use react or tool_call")
    client = make_client(spec, api_base=api_base, settings=settings, **client_kwargs)
    chosen: dict[str, Any] = {"schemas": schemas}
    if prompt_source is not None:
        chosen["prompt_source"] = prompt_source
    if strategy == "react":
        from crmarena_tui.agents.react import ReactAgent

        return ReactAgent(client, aided=aided, privacy_aware=privacy_aware, **chosen)
    from crmarena_tui.agents.tool_calling import ToolCallingAgent

    return ToolCallingAgent(client, aided=aided, privacy_aware=privacy_aware, **chosen)
