"""The widgets screens are composed of (task list, results table, record browser, step list,
sessions list, scratch pane, key footer, ...): each shows what it is handed and posts what it
wants as a message nested in its class.
Layer: below `screens` in the `layers` contract (pyproject.toml): may import `session` and the
layers below, but never `app`, `screens`, `storage` or `agents` (a forbidden contract)."""
