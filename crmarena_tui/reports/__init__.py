"""Reports over the sessions database: success by configuration and split, the task as the unit
(intervals, pass@k), human time, human vs agent, paired statistics, power, labels and agreement,
and the data the research screens show (the sessions list's rows, alignment, trajectories).
Layer: below `studies`, above `interchange | scans` in the `layers` contract (pyproject.toml):
may import `interchange`, `scans` and every layer under them, down to `errors`; never textual (a
forbidden contract)."""
