"""The built-in demo orgs (B2B and B2C) and their tasks: `orggen/` builds each org from a seed at
the real b2b org's record counts, `taskgen/` derives tasks with ground truth from the org by plain
SQL and Python (never through the SOQL engine), `tasks.py` caches them next to the org.
Layer: below `scratch`, above `orgs` in the `layers` contract (pyproject.toml): may import `orgs`,
`tasks`, `settings` and `errors`; never textual (a forbidden contract)."""
