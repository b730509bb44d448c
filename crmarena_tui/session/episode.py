"""The Episode: one attempt at one task by one participant (docs/ARCHITECTURE.md, "The Episode").

Humans (through the app) and agents (through their loops) call the same verbs. Every verb writes
its events to the sessions database before it returns, so a session survives its process dying
and is resumed by rebuilding its state from the event log.

The participant never sees the ground truth before submitting: `Episode.task` has no answer (and,
in multi-turn play, no query either: the simulated user reveals it. The persona stays visible, so
a human knows whom they are talking to; the agents' prompts leave it out, as upstream's do).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from crmarena_tui.agents.base import STOP, UserSimulator
from crmarena_tui.graders.base import DEFAULT_PROTOCOL
from crmarena_tui.graders.structured import StructuredAnswer
from crmarena_tui.orgs.base import Org, QueryResult, route, send
from crmarena_tui.orgs.observation_text import ConnectorCrash, observation_text
from crmarena_tui.session import org_clock
from crmarena_tui.session.episode_log import DATA_WARNING, EpisodeLog, recorded, resume_key
from crmarena_tui.session.episode_log import Clock as Clock
from crmarena_tui.session.episode_log import EpisodeError as EpisodeError
from crmarena_tui.session.protocols import grade_payload
from crmarena_tui.storage import replay
from crmarena_tui.storage.models import Event, Participant, Session, SessionKind, SessionSpec
from crmarena_tui.storage.steps import step_after
from crmarena_tui.storage.submission_grade import grade_submission
from crmarena_tui.tasks.model import Task

if TYPE_CHECKING:
    from collections.abc import Callable

    from crmarena_tui.graders import Grade, GradingProtocol, Judge
    from crmarena_tui.scratch.compute_output import ComputeOutput
    from crmarena_tui.storage.store import Store

RECORDABLE = frozenset({"thought", "error", "usage", "note", "system", "model_turn"})


class Episode(EpisodeLog):
    """Use `Episode.start`, `Episode.open` or `Episode.fork`, not the constructor."""

    # -- starting and reopening ---------------------------------------------------------------

    @classmethod
    def start(
        cls,
        store: Store,
        spec: SessionSpec,
        *,
        user: UserSimulator | None = None,
        resume: bool = True,
        judge: Judge | None = None,
        clock: Clock = time.time,
    ) -> Episode:
        """A new session of `spec`, or (with `resume`) the latest in-progress attempt of its
        participant on its task (source and idx) with the same settings (`resume_key`); `user`
        plays the user in a chat task. Study mode passes the study in `spec.settings` too, so
        it resumes only sessions of the study."""
        spec = recorded(spec, user, now=clock())
        key = resume_key(spec)
        protocol = spec.protocol
        if resume:
            found = store.find_session(spec.participant.id, spec.task.source, spec.task.idx, key)
            if found is not None and found.status == "in_progress":
                return cls._reopen(
                    store, found, spec.org, user=user, judge=judge, protocol=protocol, clock=clock
                )
        session = store.create_session(spec, settings_key=key, started_at=clock())
        return cls(store, session, spec.org, user=user, judge=judge, protocol=protocol, clock=clock)

    @classmethod
    def open(
        cls,
        store: Store,
        session_id: int,
        org: Org,
        *,
        user: UserSimulator | None = None,
        judge: Judge | None = None,
        protocol: GradingProtocol = DEFAULT_PROTOCOL,
        clock: Clock = time.time,
    ) -> Episode:
        """Reopen any session by id; an in-progress one continues where its log stops."""
        return cls._reopen(
            store,
            store.session(session_id),
            org,
            user=user,
            judge=judge,
            protocol=protocol,
            clock=clock,
        )

    @classmethod
    def _reopen(cls, store: Store, session: Session, org: Org, **kwargs: Any) -> Episode:
        episode = cls(store, session, org, **kwargs)
        if not episode.finished and not episode.paused:
            # The time between the log's last event and now was not work.
            episode._append("system", "resume", {"reopened": True})
        return episode

    @classmethod
    def fork(
        cls,
        store: Store,
        session_id: int,
        at_seq: int,
        org: Org,
        participant: Participant,
        *,
        user: UserSimulator | None = None,
        settings: dict[str, Any] | None = None,
        judge: Judge | None = None,
        protocol: GradingProtocol = DEFAULT_PROTOCOL,
        clock: Clock = time.time,
        kind: SessionKind = "fork",
    ) -> Episode:
        """A new session for `participant` that continues session `session_id` after its event
        `at_seq` (events 1..at_seq are copied, then a `fork` event is appended, naming the step
        the viewer numbers it by: `at_step`), under `protocol`
        (the service passes the source session's). `kind` is `fork`, or `takeover` for a human
        continuing an agent's session: neither counts as an attempt."""
        source = store.session(session_id)
        logged = store.events(session_id)
        copied = [ev for ev in logged if ev.seq <= at_seq]
        if not copied or copied[-1].seq != at_seq:
            raise EpisodeError(f"session {session_id} has no event {at_seq} to fork from")
        if any(ev.kind in ("submit", "grade") for ev in copied):
            raise EpisodeError(f"cannot fork session {session_id} after its submission")
        spec = recorded(
            SessionSpec(
                task=source.task(),
                org=org,
                participant=participant,
                protocol=protocol,
                settings={**org_clock.inherited(source), **(settings or {})},
                kind=kind,
                parent_id=source.id,
                fork_seq=at_seq,
                aided=source.aided,
                blind=source.blind,
            ),
            user,
            now=clock(),
        )
        session = store.create_session(spec, settings_key=resume_key(spec), started_at=clock())
        store.copy_events(source.id, session.id, at_seq)
        episode = cls(store, session, org, user=user, judge=judge, protocol=protocol, clock=clock)
        episode._append(
            "system",
            "fork",
            {
                "from_session": source.id,
                "at_seq": at_seq,
                "at_step": step_after(logged, at_seq),  # the viewer's "after step N"
                "participant_id": participant.id,
            },
        )
        return episode

    # -- verbs --------------------------------------------------------------------------------

    def opening(self) -> str | None:
        """Multi-turn: the simulated user's first message (asked for once, then read back)."""
        if not self.interactive:
            return None
        with self._lock:
            for ev in self._events:
                if ev.kind == "message" and ev.actor == "user":
                    return ev.text
            self._require_open("start the conversation")
            simulator = self._require_user()
            text = simulator.opening(self._user_task())
            self._append("user", "message", {"text": text, "opening": True})
            return text

    def execute(
        self,
        text: str,
        actor: str = "human",
        *,
        kind: Literal["query", "search"] | None = None,
        shown: Callable[[QueryResult], str] | None = None,
    ) -> QueryResult:
        """Run SOQL or SOSL against the org; the query and its observation or error are logged.
        What the participant is shown is built once, here, and kept as `result.shown`: an
        agent's under the session's protocol (`shown(result)` when given: a paged view), a
        human's the JSON records. The statement is routed once (`orgs.base.route`: a code fence
        unwrapped; FIND is SOSL unless `kind` names the endpoint, as a tool does).

        Raises `ConnectorCrash` (after logging the query and a notice as its observation) where
        upstream's connector raised on the result an agent under `upstream` would be shown: the
        agent's loop ends the episode on it (agents/turn_rules.py)."""
        with self._lock:
            self._require_open("run a query")
            self._wake(actor)
            kind, statement = route(text, kind)
            self._append(actor, kind, {"text": text})
            started = time.perf_counter()
            try:
                result = send(self.org, kind, statement, text)
            except Exception as exc:  # a backend failure is an observation, not a crash
                result = QueryResult(
                    error=f"INTERNAL_ERROR: {type(exc).__name__}: {exc}", kind=kind
                )
            elapsed = result.elapsed_ms or (time.perf_counter() - started) * 1000.0
            if result.warning and self.warned:
                result.warning = None  # a session is warned once, on its first such query
            crash = self._show(result, actor, shown)
            if result.ok:
                self._append(
                    "system",
                    "observation",
                    {
                        "observation": result.shown,
                        "total_size": result.total_size,
                        "elapsed_ms": elapsed,
                        "count_only": result.count_only,
                    },
                    duration_ms=elapsed,
                )
                if result.warning:
                    self._append(
                        "system", "system", {"event": DATA_WARNING, "text": result.warning}
                    )
            else:
                self._append(
                    "system",
                    "error",
                    {
                        "error": result.error,
                        "offset": result.error_offset,
                        "elapsed_ms": elapsed,
                    },
                    duration_ms=elapsed,
                )
            if crash is not None:
                raise crash
            return result

    def compute(self, text: str, actor: str = "human") -> ComputeOutput:
        """The scratch pane: evaluate an expression, or SQL over this session's result sets
        (`r1`, `r2`, ... numbered as its queries). Input and output are one `compute` event."""
        with self._lock:
            self._require_open("compute")
            self._wake(actor)
            if self._scratch is None:
                from crmarena_tui.scratch.scratch import Scratch

                self._scratch = Scratch(self._truth.today())
            output = self._scratch.run(text, self._events)
            self._append(actor, "compute", output.payload(), duration_ms=output.elapsed_ms)
            return output

    def say(self, text: str, actor: str = "human") -> str | None:
        """Send a message; multi-turn: returns the simulated user's reply (`###STOP###` ends the
        dialogue). Single-turn: the message is logged and None is returned."""
        with self._lock:
            self._require_open("send a message")
            self._wake(actor)
            if not self.interactive:
                self._append(actor, "message", {"text": text})
                return None
            simulator = self._require_user()
            self.opening()
            if self.dialogue_over:
                raise EpisodeError(
                    "the user has ended the conversation (###STOP###): submit the answer"
                )
            self._append(actor, "message", {"text": text})
            user_turns = sum(1 for m in self.history() if m["role"] == "user")
            # Under upstream an agent's loop applies upstream's user-turn limit itself.
            capped = self.protocol != "upstream" or actor != "agent"
            if capped and user_turns >= self.max_user_turns:
                reply, extra = STOP, {"turn_limit": self.max_user_turns}
            else:
                reply, extra = simulator.reply(self._user_task(), self.history()), {}
            self._append("user", "message", {"text": reply, **extra})
            return reply

    def submit(
        self, answer: str, actor: str = "human", *, structured: StructuredAnswer | None = None
    ) -> Grade:
        """Submit the final answer: logged, the session closed (with its active time), graded.

        A `structured` answer (items picked or a decline, from the submit dialog) is stored with
        the submit event and graded directly; its text is the answer. If grading fails, the
        submission stands and `regrade()` grades it later."""
        with self._lock:
            if self._session.status == "submitted":
                raise EpisodeError(
                    f"session {self.session_id} was already submitted; "
                    "start a new attempt to answer again"
                )
            self._require_open("submit")
            payload: dict[str, Any] = {"answer": answer}
            if structured is not None:
                payload["answer"] = answer = structured.text
                payload["structured"] = structured.to_payload()
            event = self._append(actor, "submit", payload)
            self._close_submitted(event)
            return self._grade(answer, structured)

    def _close_submitted(self, event: Event) -> None:
        ended = event.ts.timestamp() if event.ts is not None else self.store.clock()
        active = replay.active_seconds(self._session.started_at.timestamp(), self._events, ended)
        self._session = self.store.set_status(
            self.session_id, "submitted", ended_at=ended, active_seconds=active
        )

    def end(self, reason: str, answer: str = "", *, source: str = "agent") -> Grade:
        """End the episode without a confirmed answer (a turn limit, upstream's connector failing):
        the session closes as submitted with no answer; `answer` (the agent's last respond, if
        any) is kept as `last_respond`, never as the answer. Graded by
        `submission_grade.unconfirmed_grade`: reward 0 under `upstream`, the end reason in the metrics
        (as upstream's `end_reason` did)."""
        with self._lock:
            self._require_open("end the episode")
            payload = {"answer": "", "end_reason": reason, "end_source": source}
            event = self._append("system", "submit", {**payload, "last_respond": answer})
            self._close_submitted(event)
            return self._grade("")

    def regrade(self, judge: Judge | None = None) -> Grade:
        """Grade the submitted answer again (e.g. with a judge model) and store the new grade.
        An episode that ended without a confirmed answer (`end`, or an imported one upstream
        ended so) scores 0 under `upstream`; see `submission_grade.unconfirmed_grade`."""
        with self._lock:
            submits = [ev for ev in self._events if ev.kind == "submit"]
            if not submits:
                raise EpisodeError(f"session {self.session_id} has no submitted answer to grade")
            if judge is not None:
                self.judge = judge
            last = submits[-1]
            return self._grade(
                last.text, StructuredAnswer.from_payload(last.payload.get("structured"))
            )

    def note(self, text: str, actor: str = "human") -> Event:
        """A free-text note (allowed at any time, also after submitting)."""
        with self._lock:
            return self._append(actor, "note", {"text": text})

    def pause(self, *, idle_seconds: float | None = None) -> None:
        """Stop the clock (no-op when already paused or finished). `idle_seconds`: the app
        paused it by itself after that long without input (logged as an `auto` pause)."""
        payload: dict[str, Any] = {}
        if idle_seconds is not None:
            payload = {"auto": True, "reason": "idle", "idle_seconds": round(idle_seconds, 1)}
        with self._lock:
            if not self.finished and not self.paused:
                self._append("system", "pause", payload)

    def resume(self) -> None:
        """Restart the clock (no-op unless paused)."""
        with self._lock:
            if not self.finished and self.paused:
                self._append("system", "resume", {})

    def abandon(self) -> None:
        """Give up on the attempt: the session is closed without an answer."""
        with self._lock:
            self._require_open("abandon")
            now = self.clock()
            active = replay.active_seconds(self._session.started_at.timestamp(), self._events, now)
            self._append("system", "system", {"event": "abandoned"})
            self._session = self.store.set_status(
                self.session_id, "abandoned", ended_at=now, active_seconds=active
            )
            self.store.index_session(self.session_id)

    def record(self, kind: str, payload: dict[str, Any], actor: str = "agent") -> Event:
        """Log an agent's thought, error (e.g. a format violation), token usage, note or a
        system event. Queries, messages and submissions go through their verbs."""
        if kind not in RECORDABLE:
            raise ValueError(
                f"record() takes kinds {sorted(RECORDABLE)}; use the verbs for {kind!r}"
            )
        with self._lock:
            return self._append(actor, kind, payload)

    def _user_task(self) -> Task:
        """What the simulated user knows: the query and persona, never the ground truth."""
        return self._truth.redacted()

    def _show(
        self, result: QueryResult, actor: str, shown: Callable[[QueryResult], str] | None
    ) -> ConnectorCrash | None:
        """Set `result.shown`: what the querying agent is shown, under the session's protocol. A
        human sees the records themselves (the table), so their observation is always the plain
        JSON records, whatever the protocol grades by. Upstream's connector crashing on the
        result is returned (the notice is what is logged)."""
        try:
            if shown is not None:
                result.shown = shown(result)
            else:
                protocol = self.protocol if actor == "agent" else "workbench"
                result.shown = observation_text(result, protocol)
        except ConnectorCrash as exc:
            result.shown = f"(upstream's connector failed on this result: {exc})"
            return exc
        return None

    def _grade(self, answer: str, structured: StructuredAnswer | None = None) -> Grade:
        last = next((ev for ev in reversed(self._events) if ev.kind == "submit"), None)
        result = grade_submission(
            self._truth,
            last.payload if last is not None else {},
            last.actor if last is not None else "",
            self._session.settings,
            self.protocol,
            answer=answer,
            structured=structured,
            judge=self.judge,
            trajectory=self.trajectory(),
        )
        self._append("system", "grade", grade_payload(result))
        self.store.add_grade(self.session_id, result, graded_at=self.clock())
        self.store.index_session(self.session_id)  # (its events for search, once it ended)
        return result
