"""The subcommands of `crmarena-tui`, one module each (`cli.py` builds the parser and prints a
command's `UserError` as one line); modules starting with `_` are shared by several commands.
Nothing heavy is imported at module level: a command imports what it needs when it runs.
Layer: the top folder, under `cli` only, in the `layers` contract (pyproject.toml): may import
every folder (app, screens, widgets, session, ... down to `errors`)."""
