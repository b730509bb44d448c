"""Failure analysis by model: scanners that read sessions and propose failure-mode labels or answer a
rubric, the compacted transcript they read, their cost estimate, and themes over reasons and notes.
Layer: below `reports`, beside `interchange`, above `storage` in the `layers` contract
(pyproject.toml): may import `storage` and every layer under it (the model client in `llm`), down
to `errors`; never textual (a forbidden contract)."""
