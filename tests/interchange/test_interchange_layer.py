"""The interchange folder stays headless: importing it pulls in neither textual nor the app."""

import subprocess
import sys


def test_importing_interchange_loads_no_textual() -> None:
    code = (
        "import sys, crmarena_tui.interchange; "
        "print(sorted(m for m in sys.modules if m.startswith(('textual', 'crmarena_tui.app'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
