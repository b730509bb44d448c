"""The scratch pane's core (no textual): arithmetic and date expressions, and SQL over the result
sets a session has fetched (docs/ARCHITECTURE.md, "The Episode": `Episode.compute`)."""
