"""Settings and locations: typed settings (`CRMARENA_TUI_*`, then config.toml), the settings read
early without pydantic-settings and the rules both readers share, a bad setting's one line,
every path the project uses (XDG data, config, cache, state), read-only SQLite opens.
Layer: the lowest folder, above `errors` in the `layers` contract (pyproject.toml): may import
`errors` only; never textual (a forbidden contract)."""
