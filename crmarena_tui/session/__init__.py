"""The headless core of a session: the Episode (one attempt, its verbs, its event log), the
service that sets up every session, the one agent loop (`AgentDriver`), the batch runner, the
protocols, the org clock, and where tasks meet their orgs and outside agents their queue.
Layer: below the app's folders, above `agents` in the `layers` contract (pyproject.toml): may
import `agents` and every layer under it, down to `errors`; never textual (a forbidden contract)."""
