"""Subcommands of `crmarena-tui`, one module each (see `crmarena_tui.cli`)."""
