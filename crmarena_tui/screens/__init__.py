"""The app's screens and dialogs, each a `BaseScreen` (a worker's failure reported once, the
focused pane marked, `f1` and `f10`); a big screen is composed of parts that own their workers
(the workspace, the trajectory viewer, the agent run), never split along an inheritance chain.
Layer: with `app` and `widgets`, below `commands` in the `layers` contract (pyproject.toml):
screens compose widgets; may import `session` and every layer under it, down to `errors`."""
