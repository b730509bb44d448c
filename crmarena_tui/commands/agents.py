"""`crmarena-tui agents`: the agents `run --agent` (and the app's `ctrl+g`) can run besides a
model: the built-in reference agent and the agents installed under the entry-point group
`crmarena_tui.agents` (`agents/python_agent.py`)."""

from __future__ import annotations

import argparse
import json

from crmarena_tui.commands.common import add_format

ORDER = 41


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "agents",
        help="list the agents run --agent can run besides a model (built in and installed)",
        description="The built-in reference agent, and every agent installed as a package under "
        "the entry-point group crmarena_tui.agents (in pyproject.toml: [project.entry-points."
        '"crmarena_tui.agents"] my-agent = "my_package.agent:MyAgent"). Run one with '
        "`run --agent NAME`; an agent in a file or module needs no install: "
        "`run --agent path/to/agent.py:NAME` or `run --agent package.module:NAME`.",
    )
    add_format(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from crmarena_tui.agents.python_agent import GROUP, installed_agents

    rows = [{"name": "reference", "source": "built in: the scripted analyst (demo tasks)"}]
    rows += [{"name": n, "source": v} for n, v in sorted(installed_agents().items())]
    if args.format == "json":
        print(json.dumps(rows, indent=1))
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}}  {r['source']}")
    if len(rows) == 1:
        print(f"(no agent is installed under the entry-point group {GROUP})")
    print("Any model: run --agent MODEL. Your own code: run --agent FILE.py:NAME or module:NAME.")
    return 0
