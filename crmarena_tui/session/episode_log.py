"""The state half of an Episode: its session, its event log and what is read from them.

`Episode` (episode.py) adds the verbs and the ways to start, reopen and fork a session. Everything
here is derived from the stored session and its events, so a reopened session reads the same.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, Any

from crmarena_tui.agents.agent_schema import PROJECT
from crmarena_tui.agents.base import STOP, UserSimulator
from crmarena_tui.agents.prompt_source import PARAPHRASED_NAME, PROMPT_SOURCE_KEY
from crmarena_tui.errors import UserError
from crmarena_tui.graders.base import DEFAULT_PROTOCOL
from crmarena_tui.orgs.base import Org
from crmarena_tui.orgs.dated_org import DatedOrg
from crmarena_tui.orgs.strictness import with_org_mode
from crmarena_tui.session import org_clock
from crmarena_tui.session.org_clock import with_org_clock
from crmarena_tui.session.protocols import with_protocol
from crmarena_tui.storage import replay
from crmarena_tui.storage.convert import scrub_secrets, settings_key
from crmarena_tui.storage.models import Event, GradeRow, Session, SessionSpec
from crmarena_tui.tasks.model import Task

if TYPE_CHECKING:
    from crmarena_tui.graders import GradingProtocol, Judge
    from crmarena_tui.scratch.scratch import Scratch
    from crmarena_tui.storage.store import Store

Clock = Callable[[], float]
MAX_USER_TURNS = 10
DATA_WARNING = "data_warning"  # a system event: the org's warning about values left as text


class EpisodeError(UserError, RuntimeError):
    """A verb that cannot be carried out in the episode's current state."""


def recorded(
    spec: SessionSpec, user: UserSimulator | None = None, *, now: float | None = None
) -> SessionSpec:
    """`spec` as its session is recorded and keyed: the local org's strict or lenient mode, the
    protocol, the prompt source (`paraphrased` unless the spec names upstream's) and the org's
    clock (`session/org_clock.py`; the run's date is that of `now`, an epoch time, default the
    present) added to the settings, the simulated user's name in a chat task (`user`; none in a
    single-turn one), the blind flag for a human only (an agent's session has none: None)."""
    settings = with_protocol(with_org_mode(dict(spec.settings), spec.org), spec.protocol)
    settings.setdefault(PROMPT_SOURCE_KEY, PARAPHRASED_NAME)
    run_day = date.fromtimestamp(time.time() if now is None else now)
    settings = with_org_clock(settings, spec.task, spec.org, spec.protocol, spec.org_today, run_day)
    return replace(
        spec,
        settings=settings,
        user=user.name if user is not None and spec.task.interactive else None,
        blind=spec.blind if spec.participant.kind == "human" else None,
    )


def resume_key(spec: SessionSpec) -> str:
    """The key under which an attempt of a `recorded` spec is found again (`Episode.start`
    resumes it, `run` skips it). An agent's session (`blind` None) keys as agents' sessions did
    when they were stored blind (before schema version 8), so a run over an existing database
    resumes them; likewise an agent shown the org's own schema (`schema_source` `project`), and a
    session with the paraphrased prompts (`prompt_source` `paraphrased`), keys as before that key
    was recorded. The org's clock is left out unless it was set explicitly (`org_clock.keyed`): a
    run resumed after midnight finds its sessions."""
    settings = scrub_secrets(org_clock.keyed(spec.settings or {}))
    if settings.get("schema_source") == PROJECT:
        settings.pop("schema_source")
    if settings.get(PROMPT_SOURCE_KEY) == PARAPHRASED_NAME:
        settings.pop(PROMPT_SOURCE_KEY)
    keyed: dict = {
        "aided": spec.aided,
        "blind": True if spec.blind is None else spec.blind,
        "org_kind": spec.org.kind,
        "user": spec.user,
        "settings": settings,
    }
    if spec.trial != 1:  # trial 1 keys as every attempt did before trials, so old runs resume
        keyed["trial"] = spec.trial
    return settings_key(keyed)


class EpisodeLog:
    """One session and its events, with the clock that stamps new ones."""

    def __init__(
        self,
        store: Store,
        session: Session,
        org: Org,
        *,
        user: UserSimulator | None = None,
        judge: Judge | None = None,
        protocol: GradingProtocol = DEFAULT_PROTOCOL,
        clock: Clock = time.time,
        max_user_turns: int = MAX_USER_TURNS,
    ) -> None:
        self.store = store
        self._truth = session.task()
        # the session's org clock (its stored day, else its task's date) goes with each query
        self.org: Org = DatedOrg(org, org_clock.session_day(session))
        self.user = user
        self.judge = judge
        self.protocol: GradingProtocol = protocol  # how its answer is graded
        self.clock = clock
        self.max_user_turns = max_user_turns
        self._session = session
        self._events: list[Event] = store.events(session.id)
        self._lock = threading.RLock()
        self._scratch: Scratch | None = None  # the scratch pane's tables, made on first use

    # -- state --------------------------------------------------------------------------------

    @property
    def session_id(self) -> int:
        return self._session.id

    @property
    def session(self) -> Session:
        return self._session

    @property
    def task(self) -> Task:
        """The task as the participant may see it: no ground truth; in multi-turn play, no query
        (the simulated user reveals it)."""
        visible = self._truth.redacted()
        if self._truth.interactive:
            visible = visible.model_copy(update={"query": ""})
        return visible

    @property
    def events(self) -> list[Event]:
        return list(self._events)

    @property
    def status(self) -> str:
        return self._session.status

    @property
    def interactive(self) -> bool:
        return self._truth.interactive

    @property
    def finished(self) -> bool:
        return self._session.status != "in_progress"

    @property
    def paused(self) -> bool:
        return replay.is_paused(self._events)

    @property
    def query_count(self) -> int:
        return sum(1 for ev in self._events if ev.kind in ("query", "search"))

    @property
    def warned(self) -> bool:
        """Whether the session was shown the org's warning about values left as text (a
        `system` event; `Episode.execute` shows it on the first query that needs it)."""
        return any(
            ev.kind == "system" and ev.payload.get("event") == DATA_WARNING for ev in self._events
        )

    @property
    def dialogue_over(self) -> bool:
        """True once the simulated user has said `###STOP###`."""
        return any(
            ev.kind == "message" and ev.actor == "user" and ev.text == STOP for ev in self._events
        )

    @property
    def active_seconds(self) -> float:
        """Working time so far (final once submitted or abandoned), pauses excluded."""
        if self.finished and self._session.active_seconds is not None:
            return self._session.active_seconds
        return replay.active_seconds(
            self._session.started_at.timestamp(), self._events, self.clock()
        )

    def history(self) -> list[dict[str, str]]:
        """The dialogue so far, as the user simulator reads it."""
        return replay.dialogue(self._events)

    def trajectory(self) -> list[dict[str, str]]:
        """The attempt as role/content messages (what the privacy judge reads)."""
        return replay.trajectory(None if self.interactive else self._truth.query, self._events)

    def ground_truth(self) -> list[str]:
        """The right answer: only once the session is submitted (blind mode or not: the
        session's `blind` flag records how the browser listed the tasks)."""
        if self._session.status != "submitted":
            raise EpisodeError("the ground truth is shown only after the answer is submitted")
        return self._truth.gold

    def latest_grade(self) -> GradeRow | None:
        return self.store.grade(self.session_id)

    # -- internals ----------------------------------------------------------------------------

    def _append(
        self, actor: str, kind: str, payload: dict[str, Any], duration_ms: float | None = None
    ) -> Event:
        event = self.store.append_event(
            self.session_id, actor, kind, payload, duration_ms, ts=self.clock()
        )
        self._events.append(event)
        return event

    def _require_open(self, verb: str) -> None:
        if self.finished:
            raise EpisodeError(f"session {self.session_id} is {self.status}: cannot {verb}")

    def _require_user(self) -> UserSimulator:
        if self.user is None:
            raise EpisodeError("this multi-turn session has no user simulator attached")
        return self.user

    def _wake(self, actor: str) -> None:
        if self.paused:
            self._append("system", "resume", {"by": actor})
