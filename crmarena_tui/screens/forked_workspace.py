"""The workspace opened on a fork just made: `Workspace.for_fork`, a configuration of the one
workspace screen (no subclass). This name stays for `screens/viewer_fork.py` until it calls
`Workspace.for_fork` itself."""

from __future__ import annotations

from crmarena_tui.screens.workspace import Workspace

ForkedWorkspace = Workspace.for_fork
