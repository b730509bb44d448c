"""Trajectories in other harnesses' formats: ATIF trajectories and Inspect eval logs, written from
the sessions database and read into it as sessions of their own configuration.
Layer: below `reports`, beside `scans`, above `storage` in the `layers` contract (pyproject.toml):
may import `storage` and every layer under it, down to `errors`; never textual (a forbidden
contract). Grading an imported session under a protocol is composed by the command above."""
