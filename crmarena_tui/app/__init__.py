"""The Textual app: `CrmArenaApp` (app.py, app.tcss), its command palette, where it defers to a
study's seat, the app's own messages, the keymap and the key gate, and start-up helpers (the
first-run demo build, the collector kept off while the first rows are read).
Layer: below `commands`, above `screens` in the `layers` contract (pyproject.toml): the app
composes screens; may import `screens`, `widgets`, `session` and every layer under them."""
