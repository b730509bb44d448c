"""A small MCP client: works every task of a `crmarena-tui mcp` queue through the official `mcp`
SDK's client over stdio, as any MCP-speaking agent framework would.

    python examples/mcp_client.py --tasks demo:small --limit 4 --protocol workbench

The arguments after the script's name go to `crmarena-tui mcp` (the queue, the protocol, `--db`);
the client's name and version ("example-mcp-client 0.1") name the participant. Per task it reads
the brief (`next_task`), looks at one object (`describe_object`), runs one query
(`execute_soql`) and answers "None" (`respond`); in a chat task it first greets the user. It
prints one line per task and stops when the queue is done.
"""

from __future__ import annotations

import asyncio
import sys


def _text(result) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def work_the_queue(server_args: list[str], command: list[str] | None = None) -> int:
    from mcp import Client, StdioServerParameters
    from mcp.types import Implementation

    command = command or ["crmarena-tui"]
    server = StdioServerParameters(command=command[0], args=[*command[1:], "mcp", *server_args])
    info = Implementation(name="example-mcp-client", version="0.1")
    done = 0
    async with Client(server, client_info=info) as client:
        while True:
            brief = _text(await client.call_tool("next_task", {}))
            if brief.startswith("The queue is done"):
                print(brief.splitlines()[0])
                return done
            first = brief.splitlines()[0]
            await client.call_tool("describe_object", {"name": "Case"})
            await client.call_tool("execute_soql", {"query": "SELECT COUNT() FROM Case"})
            if "a chat task" in first:
                await client.call_tool("respond", {"content": "Hello, how can I help?"})
            answer = ""
            for _ in range(12):  # in a chat, until the user ends it (or a turn limit does)
                answer = _text(await client.call_tool("respond", {"content": "None"}))
                if "a chat task" not in first or "Episode over" in answer:
                    break
            print(f"{first.split(' (')[0]}: {answer.splitlines()[-1] if answer else ''}")
            done += 1


if __name__ == "__main__":
    asyncio.run(work_the_queue(sys.argv[1:]))
