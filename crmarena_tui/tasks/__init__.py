"""Tasks: the `Task` model, the loaders (demo, hub `hf:*`, files), the task-type catalogue, blind
mode's view of a task list, the browser's light rows and filter index, and a task set's
statistics (`tasks stats`).
Layer: below `orgs`, above `settings` in the `layers` contract (pyproject.toml): may import
`settings` and `errors`; never textual (a forbidden contract)."""
