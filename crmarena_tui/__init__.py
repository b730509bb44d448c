"""crmarena-tui: a terminal workbench for the CRMArena-Pro benchmark."""

__version__ = "0.1.0"
