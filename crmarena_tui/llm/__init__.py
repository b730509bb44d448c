"""Model access: `client.py` is the only code that imports litellm (lazily, at the first call):
retries, each attempt's deadline, accounting; how a failed call is classified, a reply read into
a `Completion`, the graders' judge, API keys and prices (read without importing litellm).
Layer: with `graders`, below `storage` in the `layers` contract (pyproject.toml): may import
`scratch` and every layer under it, down to `errors`; never textual (a forbidden contract)."""
