"""The model proxy's options, alike for `mcp` and `run` (agents/model_proxy.py)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmarena_tui.agents.python_proxy import PythonProxy


def add_proxy(parser: argparse.ArgumentParser, *, who: str, server_key: bool = False) -> None:
    """`--model-proxy`, `--proxy-port`, `--proxy-api-base` (and `--proxy-key` for `mcp`);
    `who`: how the agent learns the URL and key."""
    parser.add_argument(
        "--model-proxy",
        action="store_true",
        help="serve an OpenAI-compatible /v1/chat/completions on 127.0.0.1 that sends your "
        "agent's model calls on to the model and records each in the session it works (the "
        f"URL and key: {who})",
    )
    parser.add_argument(
        "--proxy-port",
        type=int,
        default=8766,
        metavar="N",
        help="the model proxy's port (default: 8766; 0: any free port)",
    )
    parser.add_argument(
        "--proxy-api-base",
        metavar="URL",
        default=None,
        help="where the model proxy calls models (default: the `api_base` setting, else the "
        "provider litellm picks from the model's name)",
    )
    if server_key:
        parser.add_argument(
            "--proxy-key",
            default=None,
            metavar="KEY",
            help="the model proxy's server-wide key (default: a random one, printed at start)",
        )


def start_proxy(args: argparse.Namespace, agent: str, service: Any) -> PythonProxy | None:
    """`run --model-proxy`: the Python agents' proxy, started (None without the option); a
    proxy it cannot start is refused (`UserError`)."""
    if not args.model_proxy:
        return None
    from crmarena_tui.agents.python_agent import PythonAgent, is_python_spec
    from crmarena_tui.agents.python_proxy import PythonProxy
    from crmarena_tui.errors import ExitCode, UserError

    if not is_python_spec(agent):
        raise UserError(
            "--model-proxy is for a Python agent (--agent FILE.py:NAME): a model agent's "
            "calls are recorded already",
            code=ExitCode.USAGE,
        )
    api_base = args.proxy_api_base or service.settings.api_base
    proxy = PythonProxy(api_base=api_base, api_key=service.settings.api_key if api_base else None)
    try:
        url = proxy.start(args.proxy_port)
    except OSError as exc:
        raise UserError(f"the model proxy cannot listen on port {args.proxy_port}: {exc}") from exc
    PythonAgent.proxy = proxy
    print(f"crmarena-tui run: model proxy at {url}", file=sys.stderr)
    return proxy
