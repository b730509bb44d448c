"""The app's screens and dialogs, each a `BaseScreen` (a worker's failure reported once, the
focused pane marked, `f1` and `f10`); a big screen is composed of parts that own their workers
(the workspace, the trajectory viewer, the agent run), never split along an inheritance chain.
Layer: below `app`, above `widgets` in the `layers` contract (pyproject.toml): screens compose
widgets and reach the app through `arena.Arena`; never import `app`."""
