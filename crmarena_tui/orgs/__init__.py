"""Org backends behind one protocol (`base.Org`): the local SQLite org with its SOQL/SOSL engine
(`soql/`, strict as Salesforce unless lenient) and a live Salesforce org; the benchmark's schema,
snapshots fetched, imported and verified, and what an agent is shown of a result.
Layer: below `demo`, above `tasks` in the `layers` contract (pyproject.toml): may import `tasks`,
`settings` and `errors`; never `session` nor textual (forbidden contracts)."""
