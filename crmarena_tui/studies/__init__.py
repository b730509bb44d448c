"""Baseline studies: many experts, one plan, one database. `model.py` the plain data, `assign.py`
the plan (who works which tasks, in which order), `db.py` their SQL over the Store; joins,
progress, export and import, the study report, and `mode.py`, a seat as the app uses it.
Layer: below `agents`, above `reports` in the `layers` contract (pyproject.toml): may import
`reports` and every layer under it, down to `errors`; no textual, no dataframe library."""
