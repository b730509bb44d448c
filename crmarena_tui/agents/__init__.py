"""Agents: the model agents (ReAct and tool calling, one loop for both protocols) and their
prompts, the reference agent's scripted solvers (`solvers/`), the simulated users, the Python
agent API, an external agent's tools (`ToolEnv`) and the model proxy.
Layer: below `session`, above `studies` in the `layers` contract (pyproject.toml): may import
`studies` and every layer under it, down to `errors`; never textual (a forbidden contract)."""
