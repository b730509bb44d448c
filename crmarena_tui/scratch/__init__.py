"""The scratch pane's core: arithmetic and date expressions, SQL over the result sets a session
has fetched (tables r1, r2, ...), Salesforce date helpers, and where an output may be saved
(docs/ARCHITECTURE.md, "The Episode": `Episode.compute`).
Layer: below `graders` and `llm`, above `demo` in the `layers` contract (pyproject.toml): may
import `demo` and every layer under it, down to `errors`; never textual (a forbidden contract)."""
