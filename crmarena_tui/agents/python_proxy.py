"""The model proxy for Python agents (`run --agent FILE.py:NAME --model-proxy`): one proxy for
the run, shared by its workers; each session its agent works gets its own key, handed to `solve`
in `AgentTask.model_base_url` and `AgentTask.model_key`, and the calls made with that key are
recorded in that session (agents/model_proxy.py). The Episode records them from the proxy's
thread (its lock orders them with the agent's own calls). The agents sit below the sessions
that run them: an episode is typed `Any` here, as in every agent loop."""

from __future__ import annotations

import threading
from typing import Any

from crmarena_tui.agents.model_proxy import ModelProxy, OpenSessions, ProxySessions


class PythonProxy:
    """The run's proxy: `start`, then `open(episode)` per session and `close(episode)`."""

    def __init__(self, *, api_base: str | None = None, api_key: Any = None) -> None:
        self.open_now = OpenSessions()
        self.sessions = ProxySessions(holders=lambda: self.open_now)
        self.proxy = ModelProxy(self.sessions, self.record, api_base=api_base, api_key=api_key)
        self._episodes: dict[int, Any] = {}
        self._lock = threading.Lock()

    def start(self, port: int = 0) -> str:
        return self.proxy.start("127.0.0.1", port)

    def stop(self) -> None:
        self.proxy.stop()

    def open(self, episode: Any) -> tuple[str, str]:
        """The base URL and the key of `episode`'s model calls."""
        holder = f"session-{episode.session_id}"
        with self._lock:
            self._episodes[episode.session_id] = episode
        self.open_now.opened(holder, episode.session_id)
        return self.sessions.base_url, self.sessions.key_for(holder)

    def close(self, episode: Any) -> None:
        self.open_now.opened(f"session-{episode.session_id}", None)
        with self._lock:
            self._episodes.pop(episode.session_id, None)

    def record(
        self, holder: str, session_id: int, events: list[tuple[str, dict[str, Any]]]
    ) -> None:
        with self._lock:
            episode = self._episodes.get(session_id)
        if episode is not None and not episode.finished:
            for kind, payload in events:
                episode.record(kind, payload, actor="agent")
